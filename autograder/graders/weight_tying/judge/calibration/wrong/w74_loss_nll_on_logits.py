# expect: wrong loss_nll
# why: loss() hands the raw logits to F.nll_loss, which expects log-probabilities.
# fails: test_wrapper_loss_values
# marks: 92-96
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
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size: int, block_size: int, embed_dim: int = 128, num_layers: int = 4,
                 num_heads: int = 4, hidden_dim: int = 512, dropout: float = 0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout, weight_tying=True)

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.minigpt(input_ids)

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        if targets is None:
            inputs, targets = input_ids[:, :-1], input_ids[:, 1:]
        elif targets.shape[1] == input_ids.shape[1]:
            inputs = input_ids
        else:
            inputs = input_ids[:, :-1]
        logits = self.minigpt(inputs)  # (B, T', V)
        return F.nll_loss(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))

    @torch.no_grad()
    def generate(self, input_ids: Tensor, max_new_tokens: int) -> Tensor:
        self.eval()
        ids = input_ids
        for _ in range(max_new_tokens):
            logits = self.minigpt(ids[:, -self.minigpt.block_size:])
            nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=1)
        return ids
