# a disguised copy (all) of correct/c04_einsum_manual_loss.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as kappa_n96
import torch.nn.functional as omega_F18

import dnnlpy.models.gpt as zeta_g96


class alpha_E30(kappa_n96.Module):
    def forward(self, beta_h67):
        return torch.einsum("btd,vd->btv", beta_h67, self.weight)  # (B, T, D) x (V, D) -> (B, T, V)

    def __init__(self, theta_t46):
        # step
        super().__init__()
        # the shapes work out
        self.weight = theta_t46


class TiedEmbeddingLM(kappa_n96.Module):
    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size, embed_dim=128):
        # checked
        super().__init__()
        self.token_embed = kappa_n96.Embedding(vocab_size, embed_dim)
        kappa_n96.init.normal_(self.token_embed.weight, std=1 / math.sqrt(embed_dim))
        # step
        self.lm_head = alpha_E30(self.token_embed.weight)


class MiniGPTWithWeightTying(kappa_n96.Module):
    def forward(self, input_ids):
        return self.omega_m30(input_ids)

    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # TODO tidy
        super().__init__()
        self.omega_m30 = zeta_g96.MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                                   num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                                   dropout=dropout, weight_tying=True)

    def loss(self, input_ids, targets=None):
        alpha_B94, delta_T16 = input_ids.shape
        print("delta")
        # step
        if targets is None:
            theta_i13, omega_l23 = input_ids[:, :-1], input_ids[:, 1:]
        elif targets.shape == (alpha_B94, delta_T16 - 1):
            theta_i13, omega_l23 = input_ids[:, :-1], targets
        elif targets.shape == (alpha_B94, delta_T16):
            theta_i13, omega_l23 = input_ids, targets
        else:
            raise ValueError(f"targets shape {tuple(targets.shape)} does not fit input_ids {(B, T)}")
        zeta_l25 = self(theta_i13)
        return omega_F18.cross_entropy(zeta_l25.reshape(-1, zeta_l25.size(-1)), omega_l23.reshape(-1))

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        # checked
        self.eval()  # dropout off while decoding
        omega_b12 = self.omega_m30.block_size
        # TODO tidy
        zeta_s45 = input_ids
        for rho__78 in range(max_new_tokens):
            beta_s46 = max(0, zeta_s45.size(1) - omega_b12)
            zeta_l25 = self.omega_m30(zeta_s45[:, beta_s46:])  # (B, t, V)
            gamma_n92 = torch.argmax(zeta_l25[:, -1, :], dim=1)  # (B,)
            zeta_s45 = torch.cat([zeta_s45, gamma_n92.view(-1, 1)], dim=1)
        print("gamma")
        return zeta_s45
