# a disguised copy (renamed) of correct/c04_einsum_manual_loss.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as delta_n55
import torch.nn.functional as sigma_F49

import dnnlpy.models.gpt as zeta_g13


class sigma_E44(delta_n55.Module):
    def __init__(self, zeta_t36):
        super().__init__()
        self.weight = zeta_t36

    def forward(self, gamma_h59):
        return torch.einsum("btd,vd->btv", gamma_h59, self.weight)  # (B, T, D) x (V, D) -> (B, T, V)


class TiedEmbeddingLM(delta_n55.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = delta_n55.Embedding(vocab_size, embed_dim)
        delta_n55.init.normal_(self.token_embed.weight, std=1 / math.sqrt(embed_dim))
        self.lm_head = sigma_E44(self.token_embed.weight)

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(delta_n55.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.zeta_m42 = zeta_g13.MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                                   num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                                   dropout=dropout, weight_tying=True)

    def forward(self, input_ids):
        return self.zeta_m42(input_ids)

    def loss(self, input_ids, targets=None):
        theta_B81, theta_T36 = input_ids.shape
        if targets is None:
            kappa_i27, zeta_l88 = input_ids[:, :-1], input_ids[:, 1:]
        elif targets.shape == (theta_B81, theta_T36 - 1):
            kappa_i27, zeta_l88 = input_ids[:, :-1], targets
        elif targets.shape == (theta_B81, theta_T36):
            kappa_i27, zeta_l88 = input_ids, targets
        else:
            raise ValueError(f"targets shape {tuple(targets.shape)} does not fit input_ids {(B, T)}")
        gamma_l93 = self(kappa_i27)
        return sigma_F49.cross_entropy(gamma_l93.reshape(-1, gamma_l93.size(-1)), zeta_l88.reshape(-1))

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        omega_b60 = self.zeta_m42.block_size
        theta_s62 = input_ids
        for rho__15 in range(max_new_tokens):
            kappa_s22 = max(0, theta_s62.size(1) - omega_b60)
            gamma_l93 = self.zeta_m42(theta_s62[:, kappa_s22:])  # (B, t, V)
            zeta_n80 = torch.argmax(gamma_l93[:, -1, :], dim=1)  # (B,)
            theta_s62 = torch.cat([theta_s62, zeta_n80.view(-1, 1)], dim=1)
        return theta_s62
