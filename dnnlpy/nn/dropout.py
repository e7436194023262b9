"""Inverted dropout."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from .._checks import probability

__all__ = ["Dropout"]


class Dropout(nn.Module):
    """In training, zero each element with probability ``p`` and scale survivors by ``1 / (1 - p)`` so the
    expected value is unchanged; in eval mode, the identity."""

    def __init__(self, p: float = 0.5):
        super().__init__()
        self.p = probability("dropout probability p", p)

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return torch.zeros_like(x)
        keep = (torch.rand_like(x) >= self.p).to(x.dtype)
        return x * keep / (1.0 - self.p)

    def extra_repr(self) -> str:
        return f"p={self.p}"
