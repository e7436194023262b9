# a disguised copy (reordered) of correct/c02_reverse_tie.py: made by scripts/similarity_corpus.py
import torch
from torch import nn


class TiedEmbeddingLM(nn.Module):
    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)  # weight (V, D)
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        # the embedding now reuses the head's table
        self.token_embed.weight = self.lm_head.weight


from dnnlpy.models.gpt import MiniGPT


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.minigpt = MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                               num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                               dropout=dropout, weight_tying=True)

    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        out = input_ids.clone()
        steps = 0
        with torch.no_grad():
            while steps < max_new_tokens:
                window = out if out.shape[1] <= self.block_size else out[:, out.shape[1] - self.block_size:]
                scores = self.minigpt(window)[:, -1]
                out = torch.cat((out, scores.argmax(-1).unsqueeze(-1)), dim=-1)
                steps += 1
        return out

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets=targets)

    def forward(self, input_ids):
        return self.minigpt(input_ids)
