# a disguised copy (renamed) of correct/c06_custom_init_after_tie.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as theta_n27

import dnnlpy.nn as sigma_d71
import dnnlpy.models.gpt as zeta_g70


class TiedEmbeddingLM(theta_n27.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = theta_n27.Embedding(vocab_size, embed_dim)
        self.lm_head = sigma_d71.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight
        # initialise after tying: the in-place init keeps both names on the same Parameter
        theta_n27.init.normal_(self.lm_head.weight, mean=0.0, std=embed_dim ** -0.5)

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(theta_n27.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.rho_m20 = zeta_g70.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        self.apply(self.gamma__34)

    @staticmethod
    def gamma__34(kappa_m79):
        if isinstance(kappa_m79, (theta_n27.Linear, sigma_d71.Linear)):
            theta_n27.init.trunc_normal_(kappa_m79.weight, std=0.02)
        elif isinstance(kappa_m79, theta_n27.Embedding):
            with torch.no_grad():
                kappa_m79.weight.normal_(0.0, 0.01)

    def forward(self, input_ids):
        return self.rho_m20(input_ids)

    def loss(self, input_ids, targets=None):
        return self.rho_m20.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        delta_b23 = self.rho_m20.block_size
        delta_t43 = input_ids.tolist()
        for theta__82 in range(max_new_tokens):
            sigma_c41 = torch.tensor([sigma_r85[-delta_b23:] for sigma_r85 in delta_t43], dtype=torch.long)
            kappa_b60 = self.rho_m20(sigma_c41)[:, -1, :].argmax(dim=-1).tolist()
            for sigma_r85, theta_t19 in zip(delta_t43, kappa_b60):
                sigma_r85.append(theta_t19)
        return torch.tensor(delta_t43, dtype=torch.long)
