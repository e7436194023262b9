"""Stateless building blocks, written out so the maths is visible.

Each function mirrors a torch operator (`torch.nn.functional`) and is tested against it for values and
gradients. The chapter imports this module as ``dF``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from .._checks import floating_tensor, probability, sizes

__all__ = [
    "linear",
    "softmax",
    "log_softmax",
    "gelu",
    "layer_norm",
    "causal_mask",
    "attention_weights",
    "scaled_dot_product_attention",
    "cross_entropy_loss",
]

_REDUCTIONS = ("none", "mean", "sum")


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias``: (..., in) -> (..., out); ``weight`` is (out, in)."""
    floating_tensor("x", x)
    floating_tensor("weight", weight)
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (out_features, in_features), got shape {tuple(weight.shape)}")
    if x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"input has shape {tuple(x.shape)} but weight {tuple(weight.shape)} expects {weight.shape[1]} "
            f"features: the input's last dimension must equal in_features"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.dtype != x.dtype:
            raise TypeError(
                f"input has dtype {x.dtype} but {name} has {t.dtype}: convert one to the other, "
                f"e.g. x.to({name}.dtype), or the layer with .to(x.dtype)"
            )
    out = x @ weight.T  # (..., in) @ (in, out) -> (..., out)
    if bias is not None:
        out = out + bias
    return out


def _stable_max(x: Tensor, dim: int) -> Tensor:
    # softmax(x) = softmax(x - c) for any c; shifting by the row max keeps exp() from overflowing. The shift
    # needs no gradient. A row of only -inf (every entry masked) would give -inf - -inf = nan, so it is
    # shifted by 0 instead; its softmax is then 0 / 0 = nan, as torch's is (attention_weights handles such
    # rows itself). A +inf or nan entry still makes its row nan, as in torch.
    if x.numel() == 0:
        return x.new_zeros(())  # amax refuses an empty dimension; an empty tensor needs no shift
    m = x.detach().amax(dim=dim, keepdim=True)
    return m.masked_fill(m == float("-inf"), 0.0)


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, shifted by the max so large logits don't overflow."""
    floating_tensor("x", x)
    z = torch.exp(x - _stable_max(x, dim))
    return z / z.sum(dim=dim, keepdim=True)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``; stays finite for logits like +-1e4."""
    floating_tensor("x", x)
    shifted = x - _stable_max(x, dim)
    return shifted - torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU: ``x * Phi(x)`` with the exact normal CDF, or its tanh approximation (``approximate='tanh'``)."""
    floating_tensor("x", x)
    if approximate == "none":
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))
        return 0.5 * x * (1.0 + torch.tanh(inner))
    raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")


def layer_norm(
    x: Tensor,
    normalized_shape: int | tuple[int, ...] | list[int] | torch.Size,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims: ``(x - mean) / sqrt(var + eps) * weight + bias``."""
    floating_tensor("x", x)
    shape = sizes("normalized_shape", normalized_shape)
    if tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(
            f"layer_norm over normalized_shape {shape} needs an input ending in those dims, got shape {tuple(x.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise ValueError(f"{name} must have shape {shape} (normalized_shape), got {tuple(t.shape)}")
    dims = tuple(range(-len(shape), 0))
    mean = x.mean(dim=dims, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=dims, keepdim=True)  # biased variance, as in the LayerNorm paper
    out = (x - mean) / torch.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def causal_mask(t_query: int, t_key: int | None = None, device: torch.device | str | None = None) -> Tensor:
    """Boolean (t_query, t_key) mask, True where query i may look at key j (j <= i)."""
    t_key = t_query if t_key is None else t_key
    return torch.ones(t_query, t_key, dtype=torch.bool, device=device).tril()


def _check_query_key(query: Tensor, key: Tensor, attn_mask: Tensor | None) -> None:
    floating_tensor("query", query)
    floating_tensor("key", key)
    if query.dim() < 2 or key.dim() < 2:
        raise ValueError(
            f"query and key must be at least 2-D (..., seq_len, head_dim), got shapes {tuple(query.shape)} and "
            f"{tuple(key.shape)}: add a sequence dimension with unsqueeze(-2)"
        )
    if key.dtype != query.dtype:
        raise TypeError(f"query has dtype {query.dtype} but key has {key.dtype}: convert with key.to(query.dtype)")
    if query.shape[-1] != key.shape[-1] or query.shape[-1] == 0:
        raise ValueError(
            f"query {tuple(query.shape)} and key {tuple(key.shape)} must share a non-zero last dimension "
            f"(head_dim): each score is a dot product of one query with one key"
        )
    try:
        batch = torch.broadcast_shapes(query.shape[:-2], key.shape[:-2])
    except RuntimeError:
        raise ValueError(
            f"the leading (batch, head) dims of query {tuple(query.shape)} and key {tuple(key.shape)} "
            f"do not broadcast: give both the same batch size"
        ) from None
    if attn_mask is None:
        return
    if not isinstance(attn_mask, Tensor) or not (attn_mask.dtype == torch.bool or attn_mask.dtype == query.dtype):
        got = attn_mask.dtype if isinstance(attn_mask, Tensor) else type(attn_mask).__name__
        raise TypeError(
            f"attn_mask must be a bool tensor (True = may attend) or a float tensor of the query's dtype "
            f"{query.dtype} (added to the scores), got {got}: use mask.bool() or mask.to(query.dtype)"
        )
    scores_shape = (*batch, query.shape[-2], key.shape[-2])
    try:
        fits = torch.broadcast_shapes(attn_mask.shape, scores_shape) == scores_shape
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"attn_mask of shape {tuple(attn_mask.shape)} does not broadcast to the scores "
            f"(..., T, S) = {scores_shape}: pass a (T, S) mask, or one with those trailing dims"
        )


def attention_weights(
    query: Tensor,
    key: Tensor,
    attn_mask: Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> Tensor:
    """The attention probabilities ``softmax(Q K^T * scale + mask)``: (..., T, d), (..., S, d) -> (..., T, S).

    A boolean ``attn_mask`` is True where attention is allowed; a float mask is added to the scores.
    ``is_causal`` and ``attn_mask`` may be given together (both apply). A query that may attend to no key
    gets all-zero weights, as in ``torch.nn.functional.scaled_dot_product_attention``.
    """
    _check_query_key(query, key, attn_mask)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale  # (..., T, d) @ (..., d, S) -> (..., T, S)
    if is_causal:
        scores = scores.masked_fill(~causal_mask(*scores.shape[-2:], device=scores.device), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask  # additive mask: 0 keeps, -inf removes
    # A query with no key left has a row of only -inf: its softmax is 0 / 0 = nan, and in the backward pass
    # that nan would reach every parameter. Give such rows finite scores for the softmax, then zero
    # weights: the query reads nothing (its output is 0) and passes no gradient back.
    no_key = (scores == float("-inf")).all(dim=-1, keepdim=True)  # (..., T, 1)
    probs = softmax(scores.masked_fill(no_key, 0.0), dim=-1)
    return probs.masked_fill(no_key, 0.0)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
) -> Tensor:
    """``softmax(Q K^T / sqrt(d)) V`` with an optional causal or explicit mask.

    Shapes: query (..., T, d), key (..., S, d), value (..., S, d_v) -> (..., T, d_v). As in
    ``torch.nn.functional.scaled_dot_product_attention``, a boolean ``attn_mask`` is True where attention
    is *allowed*, a float mask is added to the scores, and a query that may attend to no key gives 0.
    """
    probability("dropout_p", dropout_p)
    if attn_mask is not None and is_causal:
        raise ValueError(
            "pass attn_mask or is_causal=True, not both (torch refuses the pair too): to apply both, pass "
            "attn_mask=attn_mask & causal_mask(T, S)"
        )
    probs = attention_weights(query, key, attn_mask, is_causal, scale)  # (..., T, S)
    floating_tensor("value", value)
    if value.dtype != query.dtype:
        raise TypeError(f"query has dtype {query.dtype} but value has {value.dtype}: use value.to(query.dtype)")
    try:
        torch.broadcast_shapes(value.shape[:-2], probs.shape[:-2])
        fits = value.dim() >= 2 and value.shape[-2] == key.shape[-2]
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"value must be (..., S, d_v) with the S = {key.shape[-2]} keys and the batch dims of key "
            f"{tuple(key.shape)}, got {tuple(value.shape)}: one value vector per key"
        )
    if dropout_p > 0.0:
        probs = torch.nn.functional.dropout(probs, p=dropout_p)
    return probs @ value  # (..., T, S) @ (..., S, d_v) -> (..., T, d_v)


def cross_entropy_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    weight: Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy between logits ``input`` (N, C) and ``target``.

    ``target`` is either (N,) integer class ids or (N, C) class probabilities. Matches
    ``torch.nn.functional.cross_entropy`` (note: ``reduction`` is the third positional parameter here).

    >>> cross_entropy_loss(torch.zeros(2, 4), torch.tensor([0, 3]))  # uniform logits -> ln(4)
    tensor(1.3863)
    """
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError(f"input and target must be tensors, got {type(input).__name__} and {type(target).__name__}")
    if input.dim() != 2:
        raise ValueError(
            f"input must be 2-D logits (N, C), got shape {tuple(input.shape)}: "
            f"flatten it first, e.g. logits.reshape(-1, logits.size(-1))"
        )
    if not input.is_floating_point():
        raise TypeError(f"input must hold floating-point logits, got dtype {input.dtype}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    probability("label_smoothing", label_smoothing)
    n, c = input.shape
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError(f"weight must have shape ({c},), one entry per class, got {tuple(weight.shape)}")

    logp = log_softmax(input, dim=1)  # (N, C)
    if target.shape == input.shape:
        return _cross_entropy_probs(logp, target, reduction, weight, ignore_index, label_smoothing)
    if target.dim() == 1 and target.shape[0] == n:
        return _cross_entropy_classes(logp, target, reduction, weight, ignore_index, label_smoothing)
    raise ValueError(
        f"target shape {tuple(target.shape)} does not match input shape {tuple(input.shape)}: "
        f"pass class ids of shape ({n},) or probabilities of shape ({n}, {c}) "
        f"(for (B, T, V) logits, use logits.reshape(-1, V) and targets.reshape(-1))"
    )


def _cross_entropy_classes(
    logp: Tensor, target: Tensor, reduction: str, weight: Tensor | None, ignore_index: int, smoothing: float
) -> Tensor:
    """Class-id targets: loss_i = -w[t_i] * logp[i, t_i], with optional label smoothing."""
    if target.is_floating_point() or target.dtype == torch.bool:
        raise TypeError(
            f"class-index target must be an integer tensor, got dtype {target.dtype}: "
            f"use target.long(), or pass probabilities of shape {tuple(logp.shape)}"
        )
    n, c = logp.shape
    keep = target != ignore_index  # (N,)
    bad = keep & ((target < 0) | (target >= c))
    if bad.any():
        value = target[bad][0].item()
        raise ValueError(
            f"target contains class id {value}, outside [0, {c}): every id must index one of the {c} "
            f"classes (or equal ignore_index={ignore_index})"
        )
    safe = torch.where(keep, target, torch.zeros_like(target)).long()
    w = torch.ones(c, dtype=logp.dtype, device=logp.device) if weight is None else weight.to(logp.dtype)
    w_t = w[safe] * keep.to(logp.dtype)  # (N,) weight of each row's class, 0 where ignored

    nll = -logp.gather(1, safe.unsqueeze(1)).squeeze(1) * w_t  # (N,)
    # Smoothing spreads `smoothing` of the target mass uniformly over the C classes.
    smooth = -(logp * w).sum(dim=1) * keep.to(logp.dtype)  # (N,)
    if reduction == "none":
        return (1.0 - smoothing) * nll + (smoothing / c) * smooth
    if reduction == "sum":
        return (1.0 - smoothing) * nll.sum() + (smoothing / c) * smooth.sum()
    denom = w_t.sum()  # weighted count of kept rows, as torch normalises the mean
    return ((1.0 - smoothing) * nll.sum() + (smoothing / c) * smooth.sum()) / denom


def _cross_entropy_probs(
    logp: Tensor, target: Tensor, reduction: str, weight: Tensor | None, ignore_index: int, smoothing: float
) -> Tensor:
    """Probability targets: loss_i = -sum_c w[c] * p[i, c] * logp[i, c]."""
    if not target.is_floating_point():
        raise TypeError(
            f"a target of shape {tuple(target.shape)} is read as class probabilities and must be floating "
            f"point, got dtype {target.dtype}"
        )
    if ignore_index >= 0:
        raise ValueError(
            f"ignore_index={ignore_index} only applies to class-index targets; leave it at -100 "
            f"when passing probabilities"
        )
    n, c = logp.shape
    probs = target.to(logp.dtype)
    if smoothing > 0.0:
        probs = probs * (1.0 - smoothing) + smoothing / c
    terms = logp * probs if weight is None else logp * probs * weight.to(logp.dtype)
    loss = -terms.sum(dim=1)  # (N,)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / n
