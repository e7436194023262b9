"""Multi-head attention: several scaled dot-product attentions side by side.

For speed the module runs torch's fused kernels: ``torch.nn.functional.scaled_dot_product_attention`` when
nobody needs the probabilities (no ``attn_mask``, ``need_weights=False``, attention dropout off: MiniGPT's
case), else ``torch.softmax`` on the scores with a causal mask built once per size and device. The maths
written out is ``dF.attention_weights``, and ``tests/dnnlpy/nn/test_nn_fused.py`` holds the module equal to
it (values and gradients, float32 and float64, a query with no key left, -inf and float masks,
``need_weights``). A train-mode forward draws the attention dropout's random numbers as before. At the float
limits it returns what ``dnnlpy.nn``'s docstring states.
"""

from __future__ import annotations

import math
from functools import lru_cache

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .._checks import floating_tensor, positive_int, probability
from . import functional as dF
from .dropout import Dropout
from .linear import Linear

__all__ = ["MultiheadAttention"]


@lru_cache(maxsize=16)
def _not_causal(t: int, s: int, device: torch.device) -> Tensor:
    """(t, s) bool, True where query i may not look at key j (j > i): ``~dF.causal_mask``, built once per size
    and device (never written to: every use reads it)."""
    return ~dF.causal_mask(t, s, device=device)


class MultiheadAttention(nn.Module):
    """Batch-first multi-head attention.

    ``attn(q, k, v, is_causal=True)`` with q (B, T, E), k and v (B, S, E) returns ``(out, weights)``: out
    (B, T, E) and, if ``need_weights``, the attention probabilities (B, T, S) averaged over heads
    (or (B, H, T, S) with ``average_attn_weights=False``), else None.

    ``attn_mask`` follows ``torch.nn.MultiheadAttention``: a boolean mask is True where attention is
    *not* allowed, a float mask is added to the scores; either is (T, S), shared by every sample and head,
    or (B * num_heads, T, S). Unlike torch's module, ``is_causal=True`` needs no mask (it builds the
    causal one; given a mask too, both apply), and a query that may attend to no key returns the
    out_proj bias (zero attention) whether or not ``need_weights`` is set.
    """

    def __init__(self, embed_dim: int, num_heads: int, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        positive_int("embed_dim", embed_dim)
        positive_int("num_heads", num_heads)
        if embed_dim % num_heads != 0:
            raise ValueError(
                f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}: each head gets "
                f"embed_dim // num_heads features, so pick num_heads that divides {embed_dim}"
            )
        probability("dropout", dropout)  # checked here so that the error names the argument as passed
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.attn_dropout = Dropout(dropout)  # on the attention probabilities, in training mode only

    @property
    def dropout(self) -> float:
        """The attention-dropout probability, a float as in ``torch.nn.MultiheadAttention.dropout``."""
        return self.attn_dropout.p

    def _split_heads(self, x: Tensor) -> Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)  # (B, T, E) -> (B, H, T, d)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        *,
        attn_mask: Tensor | None = None,
        is_causal: bool = False,
        need_weights: bool = False,
        average_attn_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        self._check_inputs(query, key, value)
        b, t, _ = query.shape
        s = key.shape[1]

        q = self._split_heads(self.q_proj(query))  # (B, H, T, d)
        k = self._split_heads(self.k_proj(key))  # (B, H, S, d)
        v = self._split_heads(self.v_proj(value))  # (B, H, S, d)

        allowed = None if attn_mask is None else self._allowed(attn_mask, query.dtype, b, t, s)
        drop = self.attn_dropout
        if allowed is None and not need_weights and type(drop) is Dropout and (not drop.training or drop.p == 0.0):
            # Nothing needs the probabilities: softmax(Q K^T / sqrt(d), causal) V in one fused op. With the
            # causal mask alone every query keeps at least its own key, so no row is left empty.
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=bool(is_causal))  # (B, H, T, d)
            probs = None
        else:
            probs = self._weights(q, k, allowed, is_causal)  # (B, H, T, S)
            probs = drop(probs)  # draws torch.rand_like(probs) in training, as before
            heads = probs @ v  # (B, H, T, S) @ (B, H, S, d) -> (B, H, T, d)
        merged = heads.transpose(1, 2).reshape(b, t, self.embed_dim)  # (B, H, T, d) -> (B, T, E)
        out = self.out_proj(merged)

        if not need_weights:
            return out, None
        return out, probs.mean(dim=1) if average_attn_weights else probs

    def _weights(self, q: Tensor, k: Tensor, allowed: Tensor | None, is_causal: bool) -> Tensor:
        """``dF.attention_weights(q, k, allowed, is_causal)`` with torch's softmax and a cached causal mask."""
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))  # (B, H, T, S)
        if is_causal:
            scores = scores.masked_fill(_not_causal(*scores.shape[-2:], scores.device), float("-inf"))
        if allowed is not None:
            if allowed.dtype == torch.bool:
                scores = scores.masked_fill(~allowed, float("-inf"))
            else:
                scores = scores + allowed  # additive mask: 0 keeps, -inf removes
        # A query with no key left reads nothing and passes no gradient back (see dF.attention_weights).
        no_key = (scores == float("-inf")).all(dim=-1, keepdim=True)  # (B, H, T, 1)
        return torch.softmax(scores.masked_fill(no_key, 0.0), dim=-1).masked_fill(no_key, 0.0)

    def _check_inputs(self, query: Tensor, key: Tensor, value: Tensor) -> None:
        for name, x in (("query", query), ("key", key), ("value", value)):
            floating_tensor(name, x)
            if x.dim() != 3 or x.shape[-1] != self.embed_dim:
                raise ValueError(
                    f"{name} must have shape (batch, seq_len, {self.embed_dim}) (batch first), got {tuple(x.shape)}"
                )
        if not query.dtype == key.dtype == value.dtype:
            raise TypeError(
                f"query, key and value must share one dtype, got {query.dtype}, {key.dtype} and {value.dtype}: "
                f"convert them with .to(query.dtype)"
            )
        if not query.shape[0] == key.shape[0] == value.shape[0]:
            raise ValueError(
                f"query {tuple(query.shape)}, key {tuple(key.shape)} and value {tuple(value.shape)} must have "
                f"the same batch size (dim 0)"
            )
        if key.shape[1] != value.shape[1]:
            raise ValueError(f"key {tuple(key.shape)} and value {tuple(value.shape)} must have one value per key")

    def _allowed(self, attn_mask: Tensor, dtype: torch.dtype, b: int, t: int, s: int) -> Tensor:
        """torch's ``attn_mask`` as dF's: True = allowed (not blocked), shape (T, S) or (B, H, T, S)."""
        if not isinstance(attn_mask, Tensor) or not (attn_mask.dtype == torch.bool or attn_mask.dtype == dtype):
            got = attn_mask.dtype if isinstance(attn_mask, Tensor) else type(attn_mask).__name__
            raise TypeError(
                f"attn_mask must be a bool tensor (True = may NOT attend) or a float tensor of the inputs' dtype "
                f"{dtype} (added to the scores), got {got}: use mask.bool() or mask.to({dtype})"
            )
        heads = b * self.num_heads
        if attn_mask.shape == (heads, t, s):
            # torch stacks per-head masks batch-major: entry i * num_heads + h is head h of sample i.
            attn_mask = attn_mask.view(b, self.num_heads, t, s)
        elif attn_mask.shape != (t, s):
            raise ValueError(
                f"attn_mask must have shape (T, S) = {(t, s)} or (batch * num_heads, T, S) = {(heads, t, s)}, "
                f"got {tuple(attn_mask.shape)}"
            )
        return ~attn_mask if attn_mask.dtype == torch.bool else attn_mask

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"
