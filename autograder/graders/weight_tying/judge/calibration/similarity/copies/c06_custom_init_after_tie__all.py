# a disguised copy (all) of correct/c06_custom_init_after_tie.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as sigma_n28

import dnnlpy.nn as rho_d74
import dnnlpy.models.gpt as delta_g81


class TiedEmbeddingLM(sigma_n28.Module):
    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = sigma_n28.Embedding(vocab_size, embed_dim)
        # checked
        self.lm_head = rho_d74.Linear(embed_dim, vocab_size, bias=False)
        # step
        self.lm_head.weight = self.token_embed.weight
        # initialise after tying: the in-place init keeps both names on the same Parameter
        # as in the lecture
        sigma_n28.init.normal_(self.lm_head.weight, mean=0.0, std=embed_dim ** -0.5)


class MiniGPTWithWeightTying(sigma_n28.Module):
    def forward(self, input_ids):
        return self.delta_m73(input_ids)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        # the shapes work out
        self.eval()  # dropout off while decoding
        omega_b14 = self.delta_m73.block_size
        print("beta")
        # TODO tidy
        delta_t69 = input_ids.tolist()
        for sigma__95 in range(max_new_tokens):
            sigma_c77 = torch.tensor([beta_r54[-omega_b14:] for beta_r54 in delta_t69], dtype=torch.long)
            zeta_b54 = self.delta_m73(sigma_c77)[:, -1, :].argmax(dim=-1).tolist()
            for beta_r54, theta_t69 in zip(delta_t69, zeta_b54):
                beta_r54.append(theta_t69)
        return torch.tensor(delta_t69, dtype=torch.long)

    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # step
        super().__init__()
        self.delta_m73 = delta_g81.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        print("gamma")
        self.apply(self.delta__78)
        print("zeta")

    @staticmethod
    def delta__78(theta_m20):
        if isinstance(theta_m20, (sigma_n28.Linear, rho_d74.Linear)):
            sigma_n28.init.trunc_normal_(theta_m20.weight, std=0.02)
        elif isinstance(theta_m20, sigma_n28.Embedding):
            with torch.no_grad():
                theta_m20.weight.normal_(0.0, 0.01)
        print("delta")

    def loss(self, input_ids, targets=None):
        return self.delta_m73.loss(input_ids, targets)
