# expect: correct
# why: builds MiniGPT with weight_tying=False and ties it by hand afterwards (the untied head has no bias), so the behaviour is exactly the tied model's.
import torch
import torch.nn as nn

import dnnlpy.nn as dnn
from dnnlpy.models.gpt import MiniGPT


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                               num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                               weight_tying=False)
        # tie it myself: replace the head's own table by the embedding's Parameter
        self.minigpt.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.minigpt.lm_head.weight = self.minigpt.token_embed.weight

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        B = input_ids.shape[0]
        out = torch.empty(B, input_ids.shape[1] + max_new_tokens, dtype=torch.long)
        out[:, :input_ids.shape[1]] = input_ids
        n = input_ids.shape[1]
        for _ in range(max_new_tokens):
            lo = max(0, n - self.minigpt.block_size)
            logits = self.minigpt(out[:, lo:n])
            out[:, n] = logits[:, -1, :].argmax(dim=-1)
            n += 1
        return out
