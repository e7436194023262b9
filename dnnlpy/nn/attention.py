"""Multi-head attention: several scaled dot-product attentions side by side."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from .._checks import positive_int, probability
from . import functional as dF
from .dropout import Dropout
from .linear import Linear

__all__ = ["MultiheadAttention"]


class MultiheadAttention(nn.Module):
    """Batch-first multi-head attention.

    ``attn(q, k, v, is_causal=True)`` with q (B, T, E), k and v (B, S, E) returns ``(out, weights)``: out
    (B, T, E) and, if ``need_weights``, the attention probabilities (B, T, S) averaged over heads
    (or (B, H, T, S) with ``average_attn_weights=False``), else None.

    ``attn_mask`` follows ``torch.nn.MultiheadAttention``: a boolean mask is True where attention is
    *not* allowed; a float mask is added to the scores.
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
        for name, x in (("query", query), ("key", key), ("value", value)):
            if x.dim() != 3 or x.shape[-1] != self.embed_dim:
                raise ValueError(
                    f"{name} must have shape (batch, seq_len, {self.embed_dim}) (batch first), got {tuple(x.shape)}"
                )
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(f"key {tuple(key.shape)} and value {tuple(value.shape)} must share (batch, seq_len)")
        b, t, _ = query.shape

        q = self._split_heads(self.q_proj(query))  # (B, H, T, d)
        k = self._split_heads(self.k_proj(key))  # (B, H, S, d)
        v = self._split_heads(self.v_proj(value))  # (B, H, S, d)

        # Convert torch.nn.MultiheadAttention's "True = blocked" convention to dF's "True = allowed".
        mask = None
        if attn_mask is not None:
            mask = ~attn_mask if attn_mask.dtype == torch.bool else attn_mask
        probs = dF._attention_probs(q, k, mask, is_causal, scale=None)  # (B, H, T, S)
        probs = self.attn_dropout(probs)
        heads = probs @ v  # (B, H, T, S) @ (B, H, S, d) -> (B, H, T, d)
        merged = heads.transpose(1, 2).reshape(b, t, self.embed_dim)  # (B, H, T, d) -> (B, T, E)
        out = self.out_proj(merged)

        if not need_weights:
            return out, None
        return out, probs.mean(dim=1) if average_attn_weights else probs

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"
