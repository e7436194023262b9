# a disguised copy (renamed) of correct/c02_reverse_tie.py: made by scripts/similarity_corpus.py
import torch
from torch import nn


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)  # weight (V, D)
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        # the embedding now reuses the head's table
        self.token_embed.weight = self.lm_head.weight

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))


from dnnlpy.models.gpt import MiniGPT


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.alpha_m34 = MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                               num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                               dropout=dropout, weight_tying=True)

    def forward(self, input_ids):
        return self.alpha_m34(input_ids)

    def loss(self, input_ids, targets=None):
        return self.alpha_m34.loss(input_ids, targets=targets)

    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        gamma_o84 = input_ids.clone()
        zeta_s42 = 0
        with torch.no_grad():
            while zeta_s42 < max_new_tokens:
                beta_w59 = gamma_o84 if gamma_o84.shape[1] <= self.block_size else gamma_o84[:, gamma_o84.shape[1] - self.block_size:]
                theta_s32 = self.alpha_m34(beta_w59)[:, -1]
                gamma_o84 = torch.cat((gamma_o84, theta_s32.argmax(-1).unsqueeze(-1)), dim=-1)
                zeta_s42 += 1
        return gamma_o84
