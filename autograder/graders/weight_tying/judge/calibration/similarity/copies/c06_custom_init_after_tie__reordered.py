# a disguised copy (reordered) of correct/c06_custom_init_after_tie.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as nn

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight
        # initialise after tying: the in-place init keeps both names on the same Parameter
        nn.init.normal_(self.lm_head.weight, mean=0.0, std=embed_dim ** -0.5)


class MiniGPTWithWeightTying(nn.Module):
    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @staticmethod
    def _init(module):
        if isinstance(module, (nn.Linear, dnn.Linear)):
            nn.init.trunc_normal_(module.weight, std=0.02)
        elif isinstance(module, nn.Embedding):
            with torch.no_grad():
                module.weight.normal_(0.0, 0.01)

    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        self.apply(self._init)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        block = self.minigpt.block_size
        tokens = input_ids.tolist()
        for _ in range(max_new_tokens):
            ctx = torch.tensor([row[-block:] for row in tokens], dtype=torch.long)
            best = self.minigpt(ctx)[:, -1, :].argmax(dim=-1).tolist()
            for row, tok in zip(tokens, best):
                row.append(tok)
        return torch.tensor(tokens, dtype=torch.long)
