"""Activation functions as modules.

For speed ``GELU`` runs torch's fused kernel (``torch.nn.functional.gelu``); the maths written out is
``dF.gelu``, and ``tests/dnnlpy/nn/test_nn_fused.py`` holds the two equal (values and gradients, float32 and
float64, +-inf and the float maximum included). At the float limits it returns what ``dnnlpy.nn``'s docstring
states, whatever torch's kernel does there.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from . import functional as dF

__all__ = ["GELU"]


class GELU(nn.Module):
    """Gaussian Error Linear Unit, ``x * Phi(x)`` (``approximate='tanh'`` for GPT-2's variant)."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        if isinstance(x, Tensor) and x.is_floating_point():
            # torch's kernel gives nan at +-inf and inf near the float maximum, by the tensor's length and the
            # CPU: it runs where GELU is not yet x or 0 (as dF's formula does), x itself is taken above.
            limit = dF.GELU_SATURATES
            return torch.where(x > limit, x, F.gelu(x.clamp(-limit, limit), approximate=self.approximate))
        return dF.gelu(x, self.approximate)  # raises dF's clear error

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"
