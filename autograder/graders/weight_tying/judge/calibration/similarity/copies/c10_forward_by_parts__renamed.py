# a disguised copy (renamed) of correct/c10_forward_by_parts.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as sigma_n35
import torch.nn.functional as zeta_F84

import dnnlpy.nn as omega_d91
import dnnlpy.models.gpt as theta_g68


class TiedEmbeddingLM(sigma_n35.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = sigma_n35.Embedding(vocab_size, embed_dim)
        self.lm_head = omega_d91.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        return self.token_embed(input_ids) @ self.token_embed.weight.t()


class MiniGPTWithWeightTying(sigma_n35.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.beta_m86 = theta_g68.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)

    def forward(self, input_ids):
        gamma_m47 = self.beta_m86
        omega_T85 = input_ids.size(1)
        if omega_T85 > gamma_m47.block_size:
            raise ValueError(f"sequence of {T} tokens is longer than block_size={m.block_size}")
        theta_p44 = torch.arange(omega_T85, device=input_ids.device)
        kappa_h95 = gamma_m47.embed_dropout(gamma_m47.token_embed(input_ids) + gamma_m47.pos_embed(theta_p44))  # (B, T, D)
        for delta_b80 in gamma_m47.blocks:
            kappa_h95 = delta_b80(kappa_h95)
        kappa_h95 = gamma_m47.final_norm(kappa_h95)
        return kappa_h95 @ gamma_m47.token_embed.weight.t()  # (B, T, D) -> (B, T, V)

    def loss(self, input_ids, targets=None):
        return self.beta_m86.loss(input_ids, targets)

    def generate(self, input_ids, max_new_tokens):
        theta_m48 = self.training
        self.eval()
        try:
            delta_i34 = input_ids
            for beta__90 in range(max_new_tokens):
                with torch.no_grad():
                    rho_l34 = self(delta_i34[:, -self.beta_m86.block_size:])
                zeta_p54 = zeta_F84.softmax(rho_l34[:, -1, :], dim=-1)  # argmax of probs == argmax of logits
                delta_i34 = torch.cat([delta_i34, zeta_p54.argmax(dim=-1, keepdim=True)], dim=1)
            return delta_i34
        finally:
            self.train(theta_m48)
