"""Stateless building blocks, written out so the maths is visible.

Each function mirrors a torch operator (``torch.nn.functional``) and is tested against it for values and
gradients, edges included: a -inf logit, a query that may attend to no key, a batch whose every target is
ignored. The chapter imports this module as ``dF``.

At +-inf, nan and near the float maximum each function returns what the package's docstring states
(``help(dnnlpy.nn)``, "At the float limits"), the same on every machine.
"""

from __future__ import annotations

import math
from itertools import zip_longest

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


GELU_SATURATES = 10.0  # GELU(x) = x from here up, to every float dtype's rounding (1 - Phi(10) ~ 7.6e-24)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU: ``x * Phi(x)`` with the exact normal CDF, or its tanh approximation (``approximate='tanh'``)."""
    floating_tensor("x", x)
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    # Past +-GELU_SATURATES GELU is x, or 0 within 1e-22. The formula runs on x clipped to that range, so that
    # nothing overflows (0.5 * x * 2 near the float maximum) or reads inf * 0 (at +-inf, in the value or in its
    # gradient), and x itself is taken above it.
    z = x.clamp(-GELU_SATURATES, GELU_SATURATES)
    if approximate == "none":
        out = 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))
    else:
        inner = math.sqrt(2.0 / math.pi) * (z + 0.044715 * z.pow(3))
        out = 0.5 * z * (1.0 + torch.tanh(inner))
    return torch.where(x > GELU_SATURATES, x, out)


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


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape two shapes broadcast to, or None. (torch.broadcast_shapes would do, but its first call
    imports sympy: a second of start-up and a change to the warning filters.)"""
    out = []
    for x, y in zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


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
    batch = _broadcast(query.shape[:-2], key.shape[:-2])
    if batch is None:
        raise ValueError(
            f"the leading (batch, head) dims of query {tuple(query.shape)} and key {tuple(key.shape)} "
            f"do not broadcast: give both the same batch size"
        )
    if attn_mask is None:
        return
    if not isinstance(attn_mask, Tensor) or not (attn_mask.dtype == torch.bool or attn_mask.dtype == query.dtype):
        got = attn_mask.dtype if isinstance(attn_mask, Tensor) else type(attn_mask).__name__
        raise TypeError(
            f"attn_mask must be a bool tensor (True = may attend) or a float tensor of the query's dtype "
            f"{query.dtype} (added to the scores), got {got}: use mask.bool() or mask.to(query.dtype)"
        )
    scores_shape = (*batch, query.shape[-2], key.shape[-2])
    if _broadcast(attn_mask.shape, scores_shape) != scores_shape:
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
    if value.dim() < 2 or value.shape[-2] != key.shape[-2] or _broadcast(value.shape[:-2], probs.shape[:-2]) is None:
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
    """Cross-entropy between logits ``input`` and ``target``, as ``torch.nn.functional.cross_entropy``.

    ``input`` is (N, C) logits, or (N, C, d1, ...) with the classes in dim 1, or one unbatched sample (C,).
    ``target`` holds either class ids, int64, of the input's shape without the class dim ((N,), (N, d1, ...)
    or 0-d), or class probabilities of the input's own shape. Note: ``reduction`` is the third positional
    parameter here, unlike torch's.

    >>> cross_entropy_loss(torch.zeros(2, 4), torch.tensor([0, 3]))  # uniform logits -> ln(4)
    tensor(1.3863)
    """
    floating_tensor("input", input)
    if not isinstance(target, Tensor):
        raise TypeError(f"target must be a tensor, got {type(target).__name__}: wrap it with torch.tensor(...)")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    probability("label_smoothing", label_smoothing)
    if input.dim() == 0:
        raise ValueError("input is 0-d: pass logits of shape (C,), (N, C) or (N, C, d1, ...)")
    class_dim = 0 if input.dim() == 1 else 1  # an unbatched (C,) input has its classes in dim 0
    c = input.shape[class_dim]
    if c == 0:
        raise ValueError(f"input of shape {tuple(input.shape)} has no classes in dim {class_dim}: C must be >= 1")
    if weight is not None and (not isinstance(weight, Tensor) or tuple(weight.shape) != (c,)):
        got = tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__
        raise ValueError(f"weight must be a tensor of shape ({c},), one entry per class, got {got}")

    logp = log_softmax(input, dim=class_dim)
    if target.shape == input.shape:
        return _cross_entropy_probs(logp, target, class_dim, reduction, weight, ignore_index, label_smoothing)
    class_shape = input.shape[:class_dim] + input.shape[class_dim + 1 :]
    if target.shape == class_shape:
        return _cross_entropy_classes(logp, target, class_dim, reduction, weight, ignore_index, label_smoothing)
    hint = ""
    if input.dim() >= 3 and target.shape == input.shape[:-1]:
        hint = (
            " (the classes go in dim 1, as in torch: for (B, T, V) logits use logits.reshape(-1, V) with "
            "targets.reshape(-1), or logits.transpose(1, 2))"
        )
    raise ValueError(
        f"target shape {tuple(target.shape)} does not match input shape {tuple(input.shape)}: pass class ids "
        f"of shape {tuple(class_shape)} or probabilities of shape {tuple(input.shape)}{hint}"
    )


def _per_class(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """``weight`` (C,) shaped to broadcast along the class dim of an ``ndim``-D tensor."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _reduce(loss: Tensor, reduction: str, denominator: Tensor | int) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / denominator  # 0 / 0 = nan when nothing counts, as in torch


def _cross_entropy_classes(
    logp: Tensor,
    target: Tensor,
    class_dim: int,
    reduction: str,
    weight: Tensor | None,
    ignore_index: int,
    smoothing: float,
) -> Tensor:
    """Class-id targets: loss = -w[t] * logp[t], with optional label smoothing; ignored positions give 0."""
    if target.dtype not in (torch.int64, torch.uint8):  # what torch accepts
        also = f", or pass probabilities of shape {tuple(logp.shape)}" if target.is_floating_point() else ""
        raise TypeError(
            f"class-index target must be int64 (torch.long), got dtype {target.dtype}: use target.long(){also}"
        )
    if weight is not None and weight.dtype != logp.dtype:
        raise TypeError(f"weight has dtype {weight.dtype} but input has {logp.dtype}: use weight.to(input.dtype)")
    c = logp.shape[class_dim]
    target = target.long()  # so that a uint8 target compares with ignore_index=-100 as a number
    keep = target != ignore_index  # positions that count
    bad = keep & ((target < 0) | (target >= c))
    if bad.any():
        raise ValueError(
            f"target contains class id {target[bad][0].item()}, outside [0, {c}): every id must index one of "
            f"the {c} classes (or equal ignore_index={ignore_index})"
        )
    safe = target.masked_fill(~keep, 0)  # any valid class where ignored; those positions are zeroed below
    logp_t = logp.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)  # log-prob of each target
    w_t = torch.ones_like(logp_t) if weight is None else weight[safe]  # weight of each target's class
    # torch.where rather than a product with a 0/1 mask: an ignored position may have logp = -inf, and
    # 0 * inf = nan. where() also sends no gradient to the positions it drops.
    nll = torch.where(keep, -w_t * logp_t, 0.0)
    total_weight = torch.where(keep, w_t, 0.0).sum()  # torch's mean divides by this, not by the count
    loss = _reduce(nll, reduction, total_weight)
    if smoothing == 0.0:
        return loss  # torch adds the smoothing term only when label_smoothing > 0 (it may be inf)
    # Label smoothing moves `smoothing` of the target's mass to a uniform spread over the C classes.
    terms = logp if weight is None else logp * _per_class(weight, logp.dim(), class_dim)
    smooth = torch.where(keep, -terms.sum(class_dim), 0.0)
    return (1.0 - smoothing) * loss + (smoothing / c) * _reduce(smooth, reduction, total_weight)


def _cross_entropy_probs(
    logp: Tensor,
    target: Tensor,
    class_dim: int,
    reduction: str,
    weight: Tensor | None,
    ignore_index: int,
    smoothing: float,
) -> Tensor:
    """Probability targets: loss = -sum_c w[c] * p[c] * logp[c] over the class dim."""
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
    c = logp.shape[class_dim]
    if smoothing > 0.0:
        target = target * (1.0 - smoothing) + smoothing / c
    terms = logp * target if weight is None else logp * target * _per_class(weight, logp.dim(), class_dim)
    loss = -terms.sum(class_dim)  # one loss per sample (and per position d1, ...)
    return _reduce(loss, reduction, loss.numel())
