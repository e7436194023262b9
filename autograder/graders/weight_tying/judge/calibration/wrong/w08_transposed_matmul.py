# expect: wrong transposed
# why: logits computed as x @ W instead of x @ W.T: only runs when V == D (raises otherwise).
# fails: test_tied_lm_float64, test_tied_lm_sgd_step_updates_table_once, test_tied_lm_shapes_and_values, test_tied_lm_shared_gradient_is_sum_of_paths
# marks: 75-88
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        x = self.token_embed(input_ids)  # (B, T, D)
        return x @ self.token_embed.weight  # intended (B, T, V)


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
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        ids = input_ids
        for _ in range(max_new_tokens):
            context = ids[:, -self.minigpt.block_size:]
            logits = self.minigpt(context)  # (B, t, V)
            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)  # (B, 1)
            ids = torch.cat([ids, next_id], dim=1)
        return ids
