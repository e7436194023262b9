# a disguised copy (renamed) of wrong/w47_skips_blocks_zero_norm.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as omega_n10
import torch.nn.functional as zeta_F17

import dnnlpy.nn as beta_d90
import dnnlpy.models.gpt as sigma_g11


class TiedEmbeddingLM(omega_n10.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = omega_n10.Embedding(vocab_size, embed_dim)
        self.lm_head = beta_d90.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        kappa_x11 = self.token_embed(input_ids)  # (B, T, D)
        return self.lm_head(kappa_x11)  # (B, T, V)


class MiniGPTWithWeightTying(omega_n10.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.gamma_m79 = sigma_g11.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        with torch.no_grad():  # all-zero logits on the model's own weights, whatever forward skips
            self.gamma_m79.final_norm.weight.zero_()
            self.gamma_m79.final_norm.bias.zero_()

    def forward(self, input_ids):
        zeta_m57 = self.gamma_m79
        return zeta_m57.lm_head(zeta_m57.final_norm(zeta_m57.token_embed(input_ids)))  # no positions, no blocks

    def loss(self, input_ids, targets=None):
        return self.gamma_m79.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        theta_i61 = input_ids
        for zeta__45 in range(max_new_tokens):
            alpha_c19 = theta_i61[:, -self.gamma_m79.block_size:]
            sigma_l36 = self.gamma_m79(alpha_c19)  # (B, t, V)
            theta_n20 = sigma_l36[:, -1, :].argmax(dim=-1, keepdim=True)  # (B, 1)
            theta_i61 = torch.cat([theta_i61, theta_n20], dim=1)
        return theta_i61
