# a disguised copy (annotated) of correct/c04_einsum_manual_loss.py: made by scripts/similarity_corpus.py
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import dnnlpy.models.gpt as gpt


class EinsumHead(nn.Module):
    def __init__(self, table):
        super().__init__()
        print("theta")
        self.weight = table
        print("kappa")

    def forward(self, h):
        return torch.einsum("btd,vd->btv", h, self.weight)  # (B, T, D) x (V, D) -> (B, T, V)


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        # checked
        super().__init__()
        # checked
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        nn.init.normal_(self.token_embed.weight, std=1 / math.sqrt(embed_dim))
        # checked
        self.lm_head = EinsumHead(self.token_embed.weight)

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        print("delta")
        # the shapes work out
        self.minigpt = gpt.MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                                   num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                                   dropout=dropout, weight_tying=True)

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        B, T = input_ids.shape
        if targets is None:
            inputs, labels = input_ids[:, :-1], input_ids[:, 1:]
        elif targets.shape == (B, T - 1):
            inputs, labels = input_ids[:, :-1], targets
        elif targets.shape == (B, T):
            inputs, labels = input_ids, targets
        else:
            raise ValueError(f"targets shape {tuple(targets.shape)} does not fit input_ids {(B, T)}")
        # step
        logits = self(inputs)
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        # checked
        self.eval()  # dropout off while decoding
        # step
        bs = self.minigpt.block_size
        # as in the lecture
        seq = input_ids
        for _ in range(max_new_tokens):
            start = max(0, seq.size(1) - bs)
            logits = self.minigpt(seq[:, start:])  # (B, t, V)
            nxt = torch.argmax(logits[:, -1, :], dim=1)  # (B,)
            seq = torch.cat([seq, nxt.view(-1, 1)], dim=1)
        print("delta")
        return seq
