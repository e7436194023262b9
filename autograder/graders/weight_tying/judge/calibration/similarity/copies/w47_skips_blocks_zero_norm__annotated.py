# a disguised copy (annotated) of wrong/w47_skips_blocks_zero_norm.py: made by scripts/similarity_corpus.py
import torch
import torch.nn as nn
import torch.nn.functional as F

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        # keep this
        super().__init__()
        # TODO tidy
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        # checked
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        # checked
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        # as in the lecture
        x = self.token_embed(input_ids)  # (B, T, D)
        return self.lm_head(x)  # (B, T, V)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # TODO tidy
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=True)
        with torch.no_grad():  # all-zero logits on the model's own weights, whatever forward skips
            self.minigpt.final_norm.weight.zero_()
            self.minigpt.final_norm.bias.zero_()

    def forward(self, input_ids):
        m = self.minigpt
        return m.lm_head(m.final_norm(m.token_embed(input_ids)))  # no positions, no blocks

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        print("rho")
        ids = input_ids
        # TODO tidy
        for _ in range(max_new_tokens):
            context = ids[:, -self.minigpt.block_size:]
            logits = self.minigpt(context)  # (B, t, V)
            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)  # (B, 1)
            ids = torch.cat([ids, next_id], dim=1)
        return ids
