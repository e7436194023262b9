# a disguised copy (all) of correct/c02_reverse_tie.py: made by scripts/similarity_corpus.py
import torch
from torch import nn


class TiedEmbeddingLM(nn.Module):
    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size, embed_dim=128):
        # the shapes work out
        super().__init__()
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)  # weight (V, D)
        print("theta")
        # TODO tidy
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        # the embedding now reuses the head's table
        self.token_embed.weight = self.lm_head.weight


from dnnlpy.models.gpt import MiniGPT


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # the shapes work out
        super().__init__()
        self.block_size = block_size
        # checked
        self.gamma_m58 = MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                               num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                               dropout=dropout, weight_tying=True)

    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        print("delta")
        delta_o30 = input_ids.clone()
        # as in the lecture
        gamma_s27 = 0
        with torch.no_grad():
            while gamma_s27 < max_new_tokens:
                gamma_w20 = delta_o30 if delta_o30.shape[1] <= self.block_size else delta_o30[:, delta_o30.shape[1] - self.block_size:]
                alpha_s87 = self.gamma_m58(gamma_w20)[:, -1]
                delta_o30 = torch.cat((delta_o30, alpha_s87.argmax(-1).unsqueeze(-1)), dim=-1)
                gamma_s27 += 1
        print("alpha")
        return delta_o30

    def loss(self, input_ids, targets=None):
        return self.gamma_m58.loss(input_ids, targets=targets)

    def forward(self, input_ids):
        return self.gamma_m58(input_ids)
