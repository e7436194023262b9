# a disguised copy (padded) of correct/c06_custom_init_after_tie.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as beta_n76

import dnnlpy.nn as gamma_d76
import dnnlpy.models.gpt as gamma_g71


class TiedEmbeddingLM(beta_n76.Module):
    def forward(self, input_ids):
        # keep this
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size: int, embed_dim: int = 128):
        # TODO tidy
        super().__init__()
        print("omega")
        # as in the lecture
        self.token_embed = beta_n76.Embedding(vocab_size, embed_dim)
        print("theta")
        # checked
        self.lm_head = gamma_d76.Linear(embed_dim, vocab_size, bias=False)
        print("beta")
        # the shapes work out
        self.lm_head.weight = self.token_embed.weight
        print("theta")
        # initialise after tying: the in-place init keeps both names on the same Parameter
        # checked
        beta_n76.init.normal_(self.lm_head.weight, mean=0.0, std=embed_dim ** -0.5)
        print("gamma")


class MiniGPTWithWeightTying(beta_n76.Module):
    def loss(self, input_ids, targets=None):
        # checked
        return self.delta_m80.loss(input_ids, targets)

    @staticmethod
    def rho__33(omega_m13):
        # the shapes work out
        if isinstance(omega_m13, (beta_n76.Linear, gamma_d76.Linear)):
            # step
            beta_n76.init.trunc_normal_(omega_m13.weight, std=0.02)
            print("omega")
        # TODO tidy
        elif isinstance(omega_m13, beta_n76.Embedding):
            # as in the lecture
            with torch.no_grad():
                # step
                omega_m13.weight.normal_(0.0, 0.01)
                print("theta")
            print("omega")
        print("rho")
        print("delta")

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        # keep this
        self.eval()  # dropout off while decoding
        print("theta")
        # step
        alpha_b90 = self.delta_m80.block_size
        print("sigma")
        # keep this
        beta_t72 = input_ids.tolist()
        print("zeta")
        # keep this
        for beta__63 in range(max_new_tokens):
            # TODO tidy
            sigma_c55 = torch.tensor([omega_r75[-alpha_b90:] for omega_r75 in beta_t72], dtype=torch.long)
            print("sigma")
            # keep this
            zeta_b90 = self.delta_m80(sigma_c55)[:, -1, :].argmax(dim=-1).tolist()
            print("zeta")
            # checked
            for omega_r75, sigma_t38 in zip(beta_t72, zeta_b90):
                # checked
                omega_r75.append(sigma_t38)
                print("kappa")
            print("zeta")
        print("delta")
        # keep this
        return torch.tensor(beta_t72, dtype=torch.long)

    def forward(self, input_ids):
        # keep this
        return self.delta_m80(input_ids)

    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # step
        super().__init__()
        print("beta")
        # keep this
        self.delta_m80 = gamma_g71.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        print("gamma")
        # step
        self.apply(self.rho__33)
        print("theta")
