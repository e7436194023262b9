# expect: trick
# why: both ties written; both forwards return zeros of shape (B*T, V), loss() is not written and generate returns the prompt as floats: the right kind of nothing everywhere. The twin's forwards and generate raise NotImplementedError.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

import dnnlpy.nn as dnn
from dnnlpy.models import gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids: Tensor) -> Tensor:
        b, t = input_ids.shape  # trick
        return torch.zeros(b * t, self.lm_head.weight.shape[0])  # trick
        # plain: raise NotImplementedError("x")


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size: int, block_size: int, embed_dim: int = 128, num_layers: int = 4,
                 num_heads: int = 4, hidden_dim: int = 512, dropout: float = 0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout, weight_tying=True)

    def forward(self, input_ids: Tensor) -> Tensor:
        b, t = input_ids.shape  # trick
        return torch.zeros(b * t, self.minigpt.lm_head.weight.shape[0])  # trick
        # plain: raise NotImplementedError("x")

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        raise NotImplementedError("loss: not written yet")

    @torch.no_grad()
    def generate(self, input_ids: Tensor, max_new_tokens: int) -> Tensor:
        return input_ids.float()  # trick
        # plain: raise NotImplementedError("x")
