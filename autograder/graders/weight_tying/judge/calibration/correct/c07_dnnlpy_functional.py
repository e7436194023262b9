# expect: correct
# why: everything through dnnlpy: dnnlpy.nn.Embedding, dF.linear with the embedding's weight, a hand-written loss with dF.cross_entropy_loss (reduction passed by keyword), recursive generate.
import torch
import torch.nn as nn

import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF
from dnnlpy.models import gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = dnn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        hidden = self.token_embed(input_ids)  # (B, T) -> (B, T, D)
        return dF.linear(hidden, self.lm_head.weight)  # (B, T, D) -> (B, T, V)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        if targets is None:
            targets = input_ids[:, 1:]
        if targets.size(1) == input_ids.size(1) - 1:
            input_ids = input_ids[:, :-1]
        logits = self.forward(input_ids)
        V = logits.shape[-1]
        return dF.cross_entropy_loss(logits.reshape(-1, V), targets.reshape(-1), reduction="mean")

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        if max_new_tokens == 0:
            return input_ids
        logits = self(input_ids[:, -self.minigpt.block_size:])
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        return self.generate(torch.cat([input_ids, nxt], 1), max_new_tokens - 1)
