# expect: wrong logits_shape
# why: the wrapper's forward returns only the last position's logits (B, V), the step generate takes, instead of every position's (B, T, V).
# fails: test_wrapper_float64, test_wrapper_sgd_step_updates_table_once, test_wrapper_shapes_and_values, test_wrapper_shared_gradient_is_sum_of_paths
# marks: 80-88
from __future__ import annotations

import torch
import torch.nn as nn
from torch import Tensor
import torch.nn.functional as F
import math

import dnnlpy.nn as dnn
from dnnlpy.models import gpt

__all__ = ["TiedEmbeddingLM", "MiniGPTWithWeightTying"]


class TiedEmbeddingLM(nn.Module):
    """Token embedding and LM head sharing one (V, D) table: logits = E[input_ids] @ E.T."""

    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)  # weight: (V, D)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)  # weight: (V, D)
        # Tie by sharing the Parameter object itself, so gradients from both uses add up in one .grad.
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids: Tensor) -> Tensor:
        x = self.token_embed(input_ids)  # (B, T) -> (B, T, D)
        return self.lm_head(x)  # (B, T, D) -> (B, T, V): logits, no softmax


class MiniGPTWithWeightTying(nn.Module):
    """A dnnlpy MiniGPT with its token embedding and LM head tied, plus greedy generation."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        embed_dim: int = 128,
        num_layers: int = 4,
        num_heads: int = 4,
        hidden_dim: int = 512,
        dropout: float = 0.0,
    ):
        super().__init__()
        self.minigpt = gpt.MiniGPT(
            vocab_size,
            block_size,
            embed_dim=embed_dim,
            num_layers=num_layers,
            num_heads=num_heads,
            hidden_dim=hidden_dim,
            dropout=dropout,
            weight_tying=True,
        )

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.minigpt(input_ids)[:, -1, :]  # next-token logits

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids: Tensor, max_new_tokens: int) -> Tensor:
        block_size = self.minigpt.block_size
        was_training = self.training
        self.eval()  # no dropout while decoding, so greedy output is deterministic
        ids = input_ids
        for _ in range(max_new_tokens):
            context = ids[:, -block_size:]  # the position table only has block_size rows
            logits = self.minigpt(context)  # (B, t) -> (B, t, V)
            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)  # last position: (B, V) -> (B, 1)
            ids = torch.cat([ids, next_id], dim=1)  # (B, t) -> (B, t + 1)
        self.train(was_training)
        return ids
