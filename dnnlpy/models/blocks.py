"""The pieces of a MiniGPT decoder block: causal self-attention, an MLP, and the pre-LN block."""

from __future__ import annotations

from torch import Tensor, nn

from .. import nn as dnn

__all__ = ["MiniGPTCausalSelfAttention", "MiniGPTMLP", "MiniGPTBlock"]


class MiniGPTCausalSelfAttention(nn.Module):
    """Self-attention in which position t only sees positions <= t: (B, T, D) -> (B, T, D)."""

    def __init__(self, embed_dim: int, num_heads: int, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        self.attn = dnn.MultiheadAttention(embed_dim, num_heads, bias=bias, dropout=dropout)
        self.resid_dropout = dnn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.attn(x, x, x, is_causal=True, need_weights=False)
        return self.resid_dropout(out)


class MiniGPTMLP(nn.Module):
    """Position-wise feed-forward net: (B, T, D) -> (B, T, hidden) -> GELU -> (B, T, D)."""

    def __init__(self, embed_dim: int, hidden_dim: int, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        self.fc1 = dnn.Linear(embed_dim, hidden_dim, bias=bias)
        self.act = dnn.GELU()
        self.fc2 = dnn.Linear(hidden_dim, embed_dim, bias=bias)
        self.dropout = dnn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout(self.fc2(self.act(self.fc1(x))))


class MiniGPTBlock(nn.Module):
    """Pre-LayerNorm decoder block: ``x + attn(ln1(x))``, then ``x + mlp(ln2(x))``.

    Normalising *before* each sub-layer keeps the residual path an identity, which trains stably
    without warm-up tricks (GPT-2's arrangement).
    """

    def __init__(self, embed_dim: int, num_heads: int, hidden_dim: int, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        self.ln1 = dnn.LayerNorm(embed_dim, bias=bias)
        self.attn = MiniGPTCausalSelfAttention(embed_dim, num_heads, bias=bias, dropout=dropout)
        self.ln2 = dnn.LayerNorm(embed_dim, bias=bias)
        self.mlp = MiniGPTMLP(embed_dim, hidden_dim, bias=bias, dropout=dropout)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attn(self.ln1(x))  # (B, T, D)
        x = x + self.mlp(self.ln2(x))  # (B, T, D)
        return x
