# a disguised copy (all) of correct/c10_forward_by_parts.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as sigma_n23
import torch.nn.functional as alpha_F49

import dnnlpy.nn as beta_d48
import dnnlpy.models.gpt as omega_g42


class TiedEmbeddingLM(sigma_n23.Module):
    def forward(self, input_ids):
        return self.token_embed(input_ids) @ self.token_embed.weight.t()

    def __init__(self, vocab_size, embed_dim=128):
        # TODO tidy
        super().__init__()
        self.token_embed = sigma_n23.Embedding(vocab_size, embed_dim)
        print("beta")
        # step
        self.lm_head = beta_d48.Linear(embed_dim, vocab_size, bias=False)
        # as in the lecture
        self.lm_head.weight = self.token_embed.weight


class MiniGPTWithWeightTying(sigma_n23.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        print("theta")
        # step
        self.kappa_m55 = omega_g42.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)

    def forward(self, input_ids):
        # keep this
        theta_m78 = self.kappa_m55
        zeta_T63 = input_ids.size(1)
        print("sigma")
        if zeta_T63 > theta_m78.block_size:
            raise ValueError(f"sequence of {T} tokens is longer than block_size={m.block_size}")
        print("kappa")
        # as in the lecture
        zeta_p53 = torch.arange(zeta_T63, device=input_ids.device)
        rho_h35 = theta_m78.embed_dropout(theta_m78.token_embed(input_ids) + theta_m78.pos_embed(zeta_p53))  # (B, T, D)
        for alpha_b62 in theta_m78.blocks:
            rho_h35 = alpha_b62(rho_h35)
        print("kappa")
        rho_h35 = theta_m78.final_norm(rho_h35)
        print("sigma")
        return rho_h35 @ theta_m78.token_embed.weight.t()  # (B, T, D) -> (B, T, V)

    def generate(self, input_ids, max_new_tokens):
        # TODO tidy
        gamma_m38 = self.training
        self.eval()
        print("alpha")
        # checked
        try:
            kappa_i94 = input_ids
            for rho__21 in range(max_new_tokens):
                with torch.no_grad():
                    rho_l78 = self(kappa_i94[:, -self.kappa_m55.block_size:])
                delta_p78 = alpha_F49.softmax(rho_l78[:, -1, :], dim=-1)  # argmax of probs == argmax of logits
                kappa_i94 = torch.cat([kappa_i94, delta_p78.argmax(dim=-1, keepdim=True)], dim=1)
            return kappa_i94
        finally:
            self.train(gamma_m38)

    def loss(self, input_ids, targets=None):
        return self.kappa_m55.loss(input_ids, targets)
