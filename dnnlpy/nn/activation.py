"""Activation functions as modules."""

from __future__ import annotations

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
        return dF.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"
