"""Layer normalisation over the feature dimension.

For speed the layer runs torch's fused kernel (``torch.nn.functional.layer_norm``); the maths written out is
``dF.layer_norm``, and ``tests/dnnlpy/nn/test_nn_fused.py`` holds the two equal (values and gradients, float32
and float64). An input whose dtype differs from the parameters', or that the fused kernel refuses, goes through
``dF.layer_norm``: it promotes a mix of dtypes as before, or raises its clear error. At the float limits it
returns what ``dnnlpy.nn``'s docstring states.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .._checks import sizes
from . import functional as dF

__all__ = ["LayerNorm"]


class LayerNorm(nn.Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the trailing ``normalized_shape`` dims."""

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        shape = sizes("normalized_shape", normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if elementwise_affine and bias:
            self.bias = nn.Parameter(torch.zeros(shape, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        with torch.no_grad():
            if self.weight is not None:
                self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def forward(self, x: Tensor) -> Tensor:
        # eps is read on every call: it is a plain attribute that may be changed after construction.
        weight, bias = self.weight, self.bias
        # torch's kernel keeps a float16 input float16 under float32 parameters; dF promotes, as before
        if (weight is None or weight.dtype == x.dtype) and (bias is None or bias.dtype == x.dtype):
            try:
                return F.layer_norm(x, self.normalized_shape, weight, bias, self.eps)
            except (TypeError, RuntimeError):
                pass  # dF raises the clear error (out of this block: no chained traceback)
        return dF.layer_norm(x, self.normalized_shape, weight, bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
