# expect: correct
# why: a second attribute names the shared table (`self.table = self.token_embed.weight`) and forward multiplies by `self.table.T`; state_dict therefore holds three keys for one Parameter.
import torch
import torch.nn as nn

import dnnlpy.nn as dnn
from dnnlpy.models.gpt import MiniGPT


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.vocab_size = vocab_size
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.table = self.token_embed.weight  # one name for the shared (V, D) table
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.table

    def forward(self, input_ids):
        x = self.token_embed(input_ids)  # (B, T, D)
        return x @ self.table.T  # (B, T, V)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                               num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                               weight_tying=True)
        self.shared_table = self.minigpt.token_embed.weight

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    def generate(self, input_ids, max_new_tokens):
        was_training = self.training
        self.eval()
        ids = input_ids
        with torch.no_grad():
            for step in range(max_new_tokens):
                ctx = ids[:, -self.minigpt.block_size:]
                next_ids = self(ctx)[:, -1, :].max(dim=-1).indices
                ids = torch.cat([ids, next_ids[:, None]], dim=-1)
        self.train(was_training)
        return ids
