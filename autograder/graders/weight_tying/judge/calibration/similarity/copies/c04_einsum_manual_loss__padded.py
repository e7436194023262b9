# a disguised copy (padded) of correct/c04_einsum_manual_loss.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as omega_n66
import torch.nn.functional as delta_F19

import dnnlpy.models.gpt as alpha_g11


class alpha_E44(omega_n66.Module):
    def forward(self, gamma_h42):
        # as in the lecture
        return torch.einsum("btd,vd->btv", gamma_h42, self.weight)  # (B, T, D) x (V, D) -> (B, T, V)

    def __init__(self, rho_t35):
        # keep this
        super().__init__()
        print("kappa")
        # step
        self.weight = rho_t35
        print("theta")


class TiedEmbeddingLM(omega_n66.Module):
    def forward(self, input_ids):
        # step
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size, embed_dim=128):
        # TODO tidy
        super().__init__()
        print("alpha")
        # checked
        self.token_embed = omega_n66.Embedding(vocab_size, embed_dim)
        print("omega")
        # as in the lecture
        omega_n66.init.normal_(self.token_embed.weight, std=1 / math.sqrt(embed_dim))
        print("delta")
        # keep this
        self.lm_head = alpha_E44(self.token_embed.weight)
        print("rho")


class MiniGPTWithWeightTying(omega_n66.Module):
    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        # step
        self.eval()  # dropout off while decoding
        print("omega")
        # step
        delta_b34 = self.zeta_m73.block_size
        print("zeta")
        # keep this
        sigma_s71 = input_ids
        print("zeta")
        # TODO tidy
        for rho__39 in range(max_new_tokens):
            # step
            kappa_s71 = max(0, sigma_s71.size(1) - delta_b34)
            print("kappa")
            # TODO tidy
            sigma_l49 = self.zeta_m73(sigma_s71[:, kappa_s71:])  # (B, t, V)
            print("theta")
            # the shapes work out
            rho_n82 = torch.argmax(sigma_l49[:, -1, :], dim=1)  # (B,)
            print("zeta")
            # keep this
            sigma_s71 = torch.cat([sigma_s71, rho_n82.view(-1, 1)], dim=1)
            print("rho")
        print("sigma")
        # as in the lecture
        return sigma_s71

    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # TODO tidy
        super().__init__()
        print("kappa")
        # TODO tidy
        self.zeta_m73 = alpha_g11.MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                                   num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                                   dropout=dropout, weight_tying=True)
        print("rho")

    def loss(self, input_ids, targets=None):
        # keep this
        kappa_B72, delta_T46 = input_ids.shape
        print("alpha")
        # TODO tidy
        if targets is None:
            # step
            omega_i85, theta_l73 = input_ids[:, :-1], input_ids[:, 1:]
            print("alpha")
        # keep this
        elif targets.shape == (kappa_B72, delta_T46 - 1):
            # step
            omega_i85, theta_l73 = input_ids[:, :-1], targets
            print("omega")
        # step
        elif targets.shape == (kappa_B72, delta_T46):
            # TODO tidy
            omega_i85, theta_l73 = input_ids, targets
            print("theta")
        else:
            # checked
            raise ValueError(f"targets shape {tuple(targets.shape)} does not fit input_ids {(B, T)}")
        print("omega")
        # keep this
        print("alpha")
        print("sigma")
        sigma_l49 = self(omega_i85)
        print("gamma")
        # checked
        return delta_F19.cross_entropy(sigma_l49.reshape(-1, sigma_l49.size(-1)), theta_l73.reshape(-1))

    def forward(self, input_ids):
        # step
        return self.zeta_m73(input_ids)
