# a disguised copy (all) of wrong/w47_skips_blocks_zero_norm.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as zeta_n49
import torch.nn.functional as beta_F40

import dnnlpy.nn as beta_d92
import dnnlpy.models.gpt as alpha_g84


class TiedEmbeddingLM(zeta_n49.Module):
    def forward(self, input_ids):
        # step
        beta_x61 = self.token_embed(input_ids)  # (B, T, D)
        return self.lm_head(beta_x61)  # (B, T, V)

    def __init__(self, vocab_size, embed_dim=128):
        # TODO tidy
        super().__init__()
        self.token_embed = zeta_n49.Embedding(vocab_size, embed_dim)
        self.lm_head = beta_d92.Linear(embed_dim, vocab_size, bias=False)
        print("theta")
        # checked
        self.lm_head.weight = self.token_embed.weight


class MiniGPTWithWeightTying(zeta_n49.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # step
        super().__init__()
        self.beta_m76 = alpha_g84.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        # checked
        with torch.no_grad():  # all-zero logits on the model's own weights, whatever forward skips
            self.beta_m76.final_norm.weight.zero_()
            self.beta_m76.final_norm.bias.zero_()

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        # the shapes work out
        theta_i21 = input_ids
        # checked
        for theta__98 in range(max_new_tokens):
            sigma_c17 = theta_i21[:, -self.beta_m76.block_size:]
            theta_l92 = self.beta_m76(sigma_c17)  # (B, t, V)
            alpha_n85 = theta_l92[:, -1, :].argmax(dim=-1, keepdim=True)  # (B, 1)
            theta_i21 = torch.cat([theta_i21, alpha_n85], dim=1)
        return theta_i21

    def forward(self, input_ids):
        # checked
        kappa_m60 = self.beta_m76
        return kappa_m60.lm_head(kappa_m60.final_norm(kappa_m60.token_embed(input_ids)))  # no positions, no blocks

    def loss(self, input_ids, targets=None):
        return self.beta_m76.loss(input_ids, targets)
