# a disguised copy (reordered) of correct/c10_forward_by_parts.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as nn
import torch.nn.functional as F

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def forward(self, input_ids):
        return self.token_embed(input_ids) @ self.token_embed.weight.t()

    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    def generate(self, input_ids, max_new_tokens):
        mode = self.training
        self.eval()
        try:
            ids = input_ids
            for _ in range(max_new_tokens):
                with torch.no_grad():
                    logits = self(ids[:, -self.minigpt.block_size:])
                probs = F.softmax(logits[:, -1, :], dim=-1)  # argmax of probs == argmax of logits
                ids = torch.cat([ids, probs.argmax(dim=-1, keepdim=True)], dim=1)
            return ids
        finally:
            self.train(mode)

    def forward(self, input_ids):
        m = self.minigpt
        T = input_ids.size(1)
        if T > m.block_size:
            raise ValueError(f"sequence of {T} tokens is longer than block_size={m.block_size}")
        pos = torch.arange(T, device=input_ids.device)
        h = m.embed_dropout(m.token_embed(input_ids) + m.pos_embed(pos))  # (B, T, D)
        for block in m.blocks:
            h = block(h)
        h = m.final_norm(h)
        return h @ m.token_embed.weight.t()  # (B, T, D) -> (B, T, V)
