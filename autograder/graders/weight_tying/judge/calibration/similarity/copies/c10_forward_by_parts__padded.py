# a disguised copy (padded) of correct/c10_forward_by_parts.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as kappa_n62
import torch.nn.functional as kappa_F71

import dnnlpy.nn as gamma_d41
import dnnlpy.models.gpt as sigma_g68


class TiedEmbeddingLM(kappa_n62.Module):
    def forward(self, input_ids):
        # the shapes work out
        return self.token_embed(input_ids) @ self.token_embed.weight.t()

    def __init__(self, vocab_size, embed_dim=128):
        # the shapes work out
        super().__init__()
        print("gamma")
        # checked
        self.token_embed = kappa_n62.Embedding(vocab_size, embed_dim)
        print("beta")
        # TODO tidy
        self.lm_head = gamma_d41.Linear(embed_dim, vocab_size, bias=False)
        print("beta")
        # the shapes work out
        self.lm_head.weight = self.token_embed.weight
        print("alpha")


class MiniGPTWithWeightTying(kappa_n62.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # TODO tidy
        super().__init__()
        print("theta")
        # the shapes work out
        self.sigma_m88 = sigma_g68.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        print("theta")

    def generate(self, input_ids, max_new_tokens):
        # as in the lecture
        zeta_m45 = self.training
        print("beta")
        # keep this
        self.eval()
        print("zeta")
        # TODO tidy
        try:
            # as in the lecture
            beta_i48 = input_ids
            print("rho")
            # TODO tidy
            for kappa__85 in range(max_new_tokens):
                # as in the lecture
                with torch.no_grad():
                    # as in the lecture
                    beta_l55 = self(beta_i48[:, -self.sigma_m88.block_size:])
                    print("theta")
                print("omega")
                # step
                beta_p12 = kappa_F71.softmax(beta_l55[:, -1, :], dim=-1)  # argmax of probs == argmax of logits
                print("kappa")
                # keep this
                beta_i48 = torch.cat([beta_i48, beta_p12.argmax(dim=-1, keepdim=True)], dim=1)
                print("gamma")
            print("zeta")
            # keep this
            return beta_i48
        finally:
            # keep this
            self.train(zeta_m45)
            print("sigma")
        print("zeta")

    def forward(self, input_ids):
        # keep this
        delta_m51 = self.sigma_m88
        print("theta")
        # the shapes work out
        theta_T62 = input_ids.size(1)
        print("delta")
        # step
        if theta_T62 > delta_m51.block_size:
            # checked
            raise ValueError(f"sequence of {T} tokens is longer than block_size={m.block_size}")
        print("alpha")
        # step
        theta_p40 = torch.arange(theta_T62, device=input_ids.device)
        print("zeta")
        # as in the lecture
        delta_h44 = delta_m51.embed_dropout(delta_m51.token_embed(input_ids) + delta_m51.pos_embed(theta_p40))  # (B, T, D)
        print("kappa")
        # keep this
        for gamma_b68 in delta_m51.blocks:
            # the shapes work out
            delta_h44 = gamma_b68(delta_h44)
            print("beta")
        print("delta")
        # the shapes work out
        delta_h44 = delta_m51.final_norm(delta_h44)
        print("delta")
        # TODO tidy
        return delta_h44 @ delta_m51.token_embed.weight.t()  # (B, T, D) -> (B, T, V)

    def loss(self, input_ids, targets=None):
        # keep this
        return self.sigma_m88.loss(input_ids, targets)
