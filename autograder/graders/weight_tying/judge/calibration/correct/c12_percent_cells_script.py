# expect: correct
# why: a jupytext "percent" script exported from a notebook: `# %%` cells, a `%pip` magic line, a scratch cell that raises, and the classes split over several cells.
# %%
import torch
import torch.nn as nn
import torch.nn.functional as F

import dnnlpy.nn as dnn
from dnnlpy.models.gpt import MiniGPT

# %%
%pip install -q tokenizers

# %% [markdown]
# Tied embedding: the head borrows the embedding's table.

# %%
class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = dnn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))

# %%
# scratch: what does a shape mismatch look like?
TiedEmbeddingLM(10, 4)(torch.tensor([[1, 2, 30]]))

# %%
class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = MiniGPT(vocab_size, block_size, embed_dim, num_layers, num_heads, hidden_dim,
                               True, dropout, True)  # positional: bias=True, dropout, weight_tying=True

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        out = input_ids
        while out.size(1) < input_ids.size(1) + max_new_tokens:
            logits = self.minigpt(out[:, -self.minigpt.block_size:])
            out = torch.cat([out, logits[:, -1].argmax(-1, keepdim=True)], dim=-1)
        return out
