"""Trusted: how far a final LayerNorm with another eps moves what the judge compares, for the plan (guarantee 10).

A LayerNorm divides by sqrt(var + eps): where a position's variance is small, eps decides the output. The plan's
tiny shape case is built for that (guarantee 5), and it alone names an eps slip. Every other wrapper case must
not name it by chance: a case whose values happen to leave one position with a small variance before the
final LayerNorm moves under eps = 1e-6 by about the tolerance, and would charge the slip a second time in a
test of something else (w51 in the counts' one-layer case, on one seed in 25). So the plan draws such a case's
values again until a final LayerNorm with eps 0 (the far end of the usual slips 1e-6 and 1e-12: the move grows
with how far eps is from MiniGPT's 1e-5) moves each value the judge compares by at most ``SHARE`` of its
tolerance, the rest left for the float noise of a differently written correct model.

The measures read the judge's own model (``judge_model``, memoised: the judge later compares against these very
models, so a plan's check builds nothing the judgement would not), with its final LayerNorm's eps changed for
the one call and put back, as ``reference.layer_norm_eps`` does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from autograder.graders.weight_tying.diagnosis import TOL, grad_tol
from autograder.graders.weight_tying.judge.draw import seed_of
from autograder.graders.weight_tying.judge.models import cfg_shapes, judge_model, with_params
from autograder.graders.weight_tying.judge.reference import next_token_loss
from dnnlpy.models.gpt import MiniGPT

__all__ = ["SHARE", "SLIP_EPS", "eps_share", "eps_proof", "logits_of", "tied_gradient", "losses"]

SHARE = 0.5
SLIP_EPS = 0.0
# Draws of a case's values before the plan gives up (~1 case in 100 is over SHARE: 40 draws are never all over).
_TRIES = 40

# (what the judge compares, the same with the slip, its tolerance) for each value a test compares
Measure = Callable[[MiniGPT], list[tuple[Tensor, Tensor, dict]]]


@contextlib.contextmanager
def _slipped(model: MiniGPT) -> Iterator[MiniGPT]:
    """`model` with its final LayerNorm's eps at ``SLIP_EPS`` for the block, put back after it."""
    norm = model.final_norm
    kept = norm.eps
    norm.eps = SLIP_EPS
    try:
        yield model
    finally:
        norm.eps = kept


def logits_of(*ids: Tensor) -> Measure:
    """The logits for each of `ids`, at the float32 tolerance (shape flow, counts, heads, dropout): one pass up to
    the final LayerNorm, then the LayerNorm with either eps and the head."""

    @torch.no_grad()
    def measure(model: MiniGPT) -> list[tuple[Tensor, Tensor, dict]]:
        norm, out = model.final_norm, []
        for i in ids:
            x = model.token_embed(i) + model.pos_embed(torch.arange(i.shape[1]))  # (B, T, D) + (T, D)
            for block in model.blocks:
                x = block(x)
            judged, slipped = (
                F.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, e) for e in (norm.eps, SLIP_EPS)
            )
            out.append((model.lm_head(judged), model.lm_head(slipped), TOL))  # (B, T, D) -> (B, T, V)
        return out

    return measure


def tied_gradient(ids: Tensor, upstream: Tensor) -> Measure:
    """The tied table's gradient of sum(logits * upstream), as the gradient tests judge it (and the step it makes)."""

    def grad(model: MiniGPT) -> Tensor:
        table = model.token_embed.weight.detach().clone().requires_grad_(True)
        logits = with_params(model, {"token_embed.weight": table, "lm_head.weight": table}, ids)  # one table
        (logits * upstream).sum().backward()
        return table.grad

    def measure(model: MiniGPT) -> list[tuple[Tensor, Tensor, dict]]:
        judged = grad(model)
        with _slipped(model):
            slipped = grad(model)
        return [(judged, slipped, grad_tol(judged)), *logits_of(ids)(model)]

    return measure


def losses(ids: Tensor, targets: list[Tensor | None]) -> Measure:
    """Each target form's loss and the positional table's gradient, as the loss tests judge them."""

    def loss(model: MiniGPT, form: Tensor | None) -> tuple[Tensor, Tensor]:
        pos = model.pos_embed.weight.detach().clone().requires_grad_(True)
        value = next_token_loss(lambda x: with_params(model, {"pos_embed.weight": pos}, x), ids, form)
        value.backward()
        return value.detach().reshape(1), pos.grad

    def measure(model: MiniGPT) -> list[tuple[Tensor, Tensor, dict]]:
        out = logits_of(ids)(model)
        for form in targets:
            (value, grad) = loss(model, form)
            with _slipped(model):
                (slipped_value, slipped_grad) = loss(model, form)
            out += [(value, slipped_value, TOL), (grad, slipped_grad, grad_tol(grad))]
        return out

    return measure


def eps_share(cfg: Mapping[str, Any], values: int, measure: Measure, *, gain: float = 1.0) -> float:
    """The largest move, as a share of its tolerance, that a final LayerNorm with eps ``SLIP_EPS`` makes in what
    `measure` reads of the judge's MiniGPT of `cfg` holding judge_values(values, gain)."""
    share = 0.0
    for judged, slipped, tol in measure(judge_model(cfg, cfg_shapes(cfg), values, gain=gain)):
        want, got = judged.double(), slipped.double()
        share = max(share, float(((got - want).abs() / (tol["atol"] + tol["rtol"] * want.abs())).max()))
    return share


def eps_proof(values: int, share: Callable[[int], float]) -> int:
    """`values`, or the first values seed drawn after it (from a generator of its own, so the plan's other draws
    stay as they were) whose `share` is at most ``SHARE``."""
    g = torch.Generator().manual_seed(int(values))
    for _ in range(_TRIES):
        if share(values) <= SHARE:
            return values
        values = seed_of(g)
    raise RuntimeError(f"no values seed keeps a LayerNorm eps slip under {SHARE} of the tolerance; change the seed")
