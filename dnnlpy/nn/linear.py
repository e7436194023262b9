"""A fully connected layer: ``y = x @ W.T + b``.

For speed the layer runs torch's fused kernel (``torch.nn.functional.linear``) and checks nothing on the way
in; the maths written out is ``dF.linear``, and ``tests/dnnlpy/nn/test_nn_fused.py`` holds the two equal
(values and gradients, float32 and float64). An input the fused kernel refuses goes through ``dF.linear``,
so a mistake gets the same clear error as before, naming the value and the fix. At the float limits it
returns what ``dnnlpy.nn``'s docstring states.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .._checks import positive_int
from . import functional as dF

__all__ = ["Linear"]


class Linear(nn.Module):
    """``(..., in_features) -> (..., out_features)`` with ``weight`` (out, in) and optional ``bias`` (out,).

    ``weight`` is an ordinary attribute holding an ``nn.Parameter``, so it may be replaced by another
    Parameter of the same shape; that is how weight tying is written::

        lm_head = Linear(D, V, bias=False)
        lm_head.weight = token_embed.weight  # one Parameter, used in two places
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in_features = positive_int("in_features", in_features)
        self.out_features = positive_int("out_features", out_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """torch's default: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias."""
        bound = 1.0 / math.sqrt(self.in_features)
        with torch.no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.uniform_(-bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        weight, bias = self.weight, self.bias
        # torch's kernel would also take a 1-D or an integer weight (a replaced one): dF refuses them.
        if weight.dim() == 2 and weight.is_floating_point():
            try:
                return F.linear(x, weight, bias)  # (..., in) -> (..., out)
            except (TypeError, RuntimeError):
                pass  # a wrong input: dF says what is wrong with it (out of this block: no chained traceback)
        return dF.linear(x, weight, bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
