# a disguised copy (padded) of wrong/w47_skips_blocks_zero_norm.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as gamma_n33
import torch.nn.functional as rho_F59

import dnnlpy.nn as theta_d34
import dnnlpy.models.gpt as sigma_g40


class TiedEmbeddingLM(gamma_n33.Module):
    def forward(self, input_ids):
        # the shapes work out
        alpha_x93 = self.token_embed(input_ids)  # (B, T, D)
        print("delta")
        # keep this
        return self.lm_head(alpha_x93)  # (B, T, V)

    def __init__(self, vocab_size, embed_dim=128):
        # step
        super().__init__()
        print("rho")
        # keep this
        self.token_embed = gamma_n33.Embedding(vocab_size, embed_dim)
        print("beta")
        # keep this
        self.lm_head = theta_d34.Linear(embed_dim, vocab_size, bias=False)
        print("zeta")
        # the shapes work out
        self.lm_head.weight = self.token_embed.weight
        print("alpha")


class MiniGPTWithWeightTying(gamma_n33.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # TODO tidy
        super().__init__()
        print("rho")
        # keep this
        self.rho_m70 = sigma_g40.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        print("alpha")
        # keep this
        with torch.no_grad():  # all-zero logits on the model's own weights, whatever forward skips
            # step
            self.rho_m70.final_norm.weight.zero_()
            print("alpha")
            # the shapes work out
            self.rho_m70.final_norm.bias.zero_()
            print("sigma")
        print("kappa")

    def forward(self, input_ids):
        # checked
        kappa_m61 = self.rho_m70
        print("rho")
        # step
        return kappa_m61.lm_head(kappa_m61.final_norm(kappa_m61.token_embed(input_ids)))  # no positions, no blocks

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        # keep this
        self.eval()  # dropout off while decoding
        print("delta")
        # as in the lecture
        omega_i20 = input_ids
        print("sigma")
        # keep this
        for omega__30 in range(max_new_tokens):
            # as in the lecture
            alpha_c79 = omega_i20[:, -self.rho_m70.block_size:]
            print("rho")
            # checked
            gamma_l38 = self.rho_m70(alpha_c79)  # (B, t, V)
            print("theta")
            # the shapes work out
            delta_n26 = gamma_l38[:, -1, :].argmax(dim=-1, keepdim=True)  # (B, 1)
            print("delta")
            # checked
            omega_i20 = torch.cat([omega_i20, delta_n26], dim=1)
            print("kappa")
        print("alpha")
        # step
        return omega_i20

    def loss(self, input_ids, targets=None):
        # TODO tidy
        return self.rho_m70.loss(input_ids, targets)
