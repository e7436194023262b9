"""Choosing the next token from the last position's logits (B, V) -> (B,)."""

from __future__ import annotations

import math

import torch
from torch import Tensor

from .._checks import positive_int
from ..nn import functional as dF

__all__ = ["greedy", "sample_top_k", "sample_top_p", "sample_next_token"]


def _check_logits(logits: Tensor) -> None:
    if not isinstance(logits, Tensor) or logits.dim() != 2 or not logits.is_floating_point():
        shape = tuple(logits.shape) if isinstance(logits, Tensor) else type(logits).__name__
        raise ValueError(
            f"expected float logits of shape (batch, vocab_size), got {shape}: "
            f"take the last position with logits[:, -1, :]"
        )


def _check_temperature(temperature: float) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 < temperature < math.inf:
        raise ValueError(
            f"temperature must be a finite number > 0, got {temperature!r}: use greedy() for argmax decoding"
        )


def _tempered(logits: Tensor, temperature: float) -> Tensor:
    """``logits / temperature``, each row shifted so that its best logit is 0.

    The shift leaves the softmax unchanged. Without it a tiny temperature (1e-40) turns logits into
    +-inf and the softmax into inf / inf = nan; with it the best token stays at 0 and the others go to
    -inf, which is the limit of sampling as the temperature falls: greedy decoding.
    """
    return (logits - logits.amax(dim=-1, keepdim=True)) / temperature  # (B, V)


def _draw(probs: Tensor, generator: torch.Generator | None) -> Tensor:
    """One token per row of ``probs`` (B, V) -> (B,); the rows need not sum to one."""
    if probs.isnan().any():
        row = int(probs.isnan().any(dim=-1).nonzero()[0])
        raise ValueError(
            f"row {row} of the logits holds nan or +inf, or only -inf: there is no distribution to sample "
            f"from; check the model's output (greedy() still takes its argmax)"
        )
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


def greedy(logits: Tensor) -> Tensor:
    """The most likely token of each row: (B, V) -> (B,) int64."""
    _check_logits(logits)
    return logits.argmax(dim=-1)


def sample_top_k(logits: Tensor, k: int, temperature: float = 1.0, generator: torch.Generator | None = None) -> Tensor:
    """Sample from the ``k`` most likely tokens, renormalised: (B, V) -> (B,) int64."""
    _check_logits(logits)
    _check_temperature(temperature)
    positive_int("top_k", k)
    k = min(k, logits.shape[-1])
    scaled = _tempered(logits, temperature)
    kth = torch.topk(scaled, k, dim=-1).values[:, -1:]  # (B, 1) smallest kept logit
    scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    return _draw(dF.softmax(scaled, dim=-1), generator)


def sample_top_p(
    logits: Tensor, p: float, temperature: float = 1.0, generator: torch.Generator | None = None
) -> Tensor:
    """Nucleus sampling: sample from the smallest set of tokens whose probability reaches ``p``."""
    _check_logits(logits)
    _check_temperature(temperature)
    if not 0.0 < p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1], got {p}")
    probs = dF.softmax(_tempered(logits, temperature), dim=-1)
    sorted_probs, order = probs.sort(dim=-1, descending=True)  # (B, V)
    # Drop a token when the tokens ranked above it already reach p; the top token is always kept.
    before = sorted_probs.cumsum(dim=-1) - sorted_probs
    sorted_probs = sorted_probs.masked_fill(before >= p, 0.0)
    choice = _draw(sorted_probs, generator)  # (B,), multinomial renormalises what is left
    return order.gather(-1, choice.unsqueeze(-1)).squeeze(-1)


def sample_next_token(
    logits: Tensor,
    *,
    do_sample: bool = False,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> Tensor:
    """One decoding step: greedy unless ``do_sample``; then temperature, top-k and/or top-p sampling."""
    if not do_sample:
        return greedy(logits)
    _check_logits(logits)
    _check_temperature(temperature)
    if top_k is not None and top_p is not None:
        raise ValueError("pass top_k or top_p, not both")
    if top_k is not None:
        return sample_top_k(logits, top_k, temperature, generator)
    if top_p is not None:
        return sample_top_p(logits, top_p, temperature, generator)
    return _draw(dF.softmax(_tempered(logits, temperature), dim=-1), generator)
