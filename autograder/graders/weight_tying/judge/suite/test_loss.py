"""Trusted: hidden suite, shape flow into the loss: which logits `loss()` pairs with which targets.

All three target forms of the contract are graded (as `MiniGPT.loss` defines them): None (predict
input_ids[:, 1:] from input_ids[:, :-1]), (B, T-1) as in the chapter, and (B, T), already shifted, as
nanoGPT writes it. Each wrong form is named: no shift, shifted the wrong way, targets ignored, a sum
instead of a mean, a scaled loss. The expected loss comes from the judge's MiniGPT holding the judge's
(sharp) weights; `loss()` may delegate to `MiniGPT.loss` or compute it by hand.
"""

from __future__ import annotations

import copy
from functools import partial

import torch
import torch.nn.functional as F

from autograder.graders.weight_tying.diagnosis import TOL, close, grad_tol, reread, shape_mismatch
from autograder.graders.weight_tying.judge.models import for_model, tensor_key
from autograder.graders.weight_tying.judge.reference import judge_model, next_token_loss
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.runner.evidence import GptLoss, LossCase
from autograder.grading.judge.suite_api import entry, plain_tensor, shape_dict
from autograder.grading.marking import graded

AREA = "shape flow"

_CALLS = {
    "none": "loss(ids)",
    "short": "loss(ids, targets of shape (B, T-1))",
    "full": "loss(ids, targets of shape (B, T))",
}
LOSS_NOT_COMPUTED = (
    "loss not implemented yet: loss() still raises NotImplementedError, so the model has no training objective"
)
_HINTS = {
    "short": "targets of shape (B, T-1) go with the logits of input_ids[:, :-1]",
    "full": "targets of shape (B, T) are already shifted: they go with the logits of all of input_ids",
    "none": "with no targets, input_ids[:, :-1] predicts input_ids[:, 1:]",
}


def _alternatives(model, ids, targets):
    """Losses of the usual mistakes for this target form, for naming the misconception."""
    out = {}
    t = ids.shape[1]
    with torch.no_grad():
        if targets is None:
            out["no shift (logits of ids vs ids)"] = next_token_loss(model, ids, ids)
            out["shifted the wrong way (logits of ids[:, 1:] vs ids[:, :-1])"] = next_token_loss(
                model, ids[:, 1:], ids[:, :-1]
            )
            logits = model(ids)  # (B, T, V)
            out["shifted the wrong way (logits at positions 1.. vs tokens 0..)"] = F.cross_entropy(
                logits[:, 1:].reshape(-1, logits.size(-1)), ids[:, :-1].reshape(-1)
            )
        else:
            out["targets ignored (ids shifted instead)"] = next_token_loss(model, ids, None)
            if targets.shape[1] == t:
                out["shifted again (ids[:, :-1] vs targets[:, 1:])"] = next_token_loss(model, ids, targets[:, 1:])
                out["shifted the wrong way (ids[:, 1:] vs targets[:, :-1])"] = next_token_loss(
                    model, ids[:, 1:], targets[:, :-1]
                )
            else:
                out["shifted the wrong way (ids[:, 1:] vs targets)"] = next_token_loss(model, ids[:, 1:], targets)
    return out


def _check_loss(plan, evidence, run, form: str):
    p = plan["gpt"]
    what = "MiniGPTWithWeightTying.loss"
    call = _CALLS[form]
    rec = need(evidence, GptLoss, run, what=f"{what} (three target forms)")
    shapes = shape_dict(rec, GptLoss.state_shapes, what=f"{what}: model.minigpt.state_dict() shapes")
    targets = {"none": None, "short": p["targets_short"], "full": p["targets_full"]}[form]
    try:
        got = entry(rec.get(form), f"{what}: {call}")
    except AssertionError as exc:
        error = rec.get(form).get("error") if isinstance(rec.get(form), dict) else None
        if isinstance(error, str) and error.startswith("NotImplementedError"):  # a loss never written
            raise AssertionError(f"{exc}\n-> {LOSS_NOT_COMPUTED}" + reread(9)) from None
        if isinstance(error, str) and shape_mismatch(error):  # shapes that do not pair up
            raise AssertionError(f"{exc}\n-> loss target shift wrong? {_HINTS[form]}" + reread(9)) from None
        raise AssertionError(
            f"{exc}\n-> loss raises: loss() stops with an error instead of returning the mean next-token "
            f"cross-entropy, so the model has no training objective" + reread(9)
        ) from None
    loss = plain_tensor(got, LossCase.loss, dtype=torch.float32, what=f"{call}")
    assert loss.dim() == 0, (
        f"{call} returned shape {tuple(loss.shape)}, expected a 0-dim scalar (the mean over positions)" + reread(9)
    )
    model = judge_model(p["cfg"], shapes, p["values"]["loss"], gain=p["loss_gain"])
    # The judge's loss and gradient depend on the plan alone when the shapes are the plan's: kept for the plan.
    key = ("loss", p["values"]["loss"], p["loss_gain"], form, tensor_key(p["ids"]))
    want = for_model(p["cfg"], shapes, key, partial(_loss, model, p["ids"], targets, grad=False))
    if close(loss, want, **TOL):
        want_grad = partial(for_model, p["cfg"], shapes, (*key, "pos grad"), partial(_loss, model, p["ids"], targets))
        _check_differentiable(got, model, want_grad, call)
        return
    pos = shapes.get("pos_embed.weight")
    if pos is not None and len(pos) == 2 and pos[0] != p["cfg"]["block_size"]:
        # A positional table of another shape (e.g. the token table in its place): the model is not the one
        # asked for, so which loss mistake its value resembles is chance (it would change with the plan).
        raise AssertionError(
            f"{call}: the loss was not checked because minigpt.pos_embed.weight has shape {tuple(pos)}, not "
            f"(block_size, D): the model is not the MiniGPT asked for (see the parameter identity tests)"
        )
    for name, alt in _alternatives(model, p["ids"], targets).items():
        if close(loss, alt, **TOL):
            raise AssertionError(
                f"{call} = {float(loss):.5f}, expected {float(want):.5f}: loss target shift wrong, {name}: "
                f"{_HINTS[form]}" + reread(9)
            )
    count = p["ids"].shape[0] * (p["ids"].shape[1] - (0 if form == "full" else 1))
    if close(loss, want * count, rtol=1e-4, atol=1e-4):
        raise AssertionError(
            f"{call} = {float(loss):.5f} = {count} x {float(want):.5f}: loss not mean (summed over "
            f"the {count} positions instead of averaged)" + reread(9)
        )
    ratio = float(loss) / float(want) if float(want) else 0.0
    if abs(ratio - 2) < 1e-3 or abs(ratio - 0.5) < 1e-3:
        raise AssertionError(
            f"{call} = {float(loss):.5f}, {ratio:g} x the mean cross-entropy {float(want):.5f}: "
            f"loss {'doubled' if ratio > 1 else 'halved'} (the two uses of the tied table already add up in its "
            f"gradient; the loss itself is the plain mean)" + reread(7, 9)
        )
    raise AssertionError(
        f"{call} = {float(loss):.5f}, expected the mean next-token cross-entropy {float(want):.5f} of the model's "
        f"logits" + reread(9)
    )


def _loss(model, ids, targets, *, grad: bool = True):
    """The judge's mean next-token loss of `model`, or (`grad`) its gradient on the positional table."""
    if not grad:
        with torch.no_grad():
            return next_token_loss(model, ids, targets)
    fresh = copy.deepcopy(model).requires_grad_(True)
    next_token_loss(fresh, ids, targets).backward()
    return fresh.pos_embed.weight.grad


def _check_differentiable(got, model, want_grad, call) -> None:
    """loss.backward() must reach the model: the positional table's gradient is the judge's."""
    grad = got.get(LossCase.pos_grad)
    assert grad is not None, (
        f"{call} has the right value but backward() never reaches the model's weights: loss detached (a "
        f"detach(), .item() or .data on the way cuts the graph, so training would not learn)" + reread(7, 9)
    )
    grad = plain_tensor(
        got,
        LossCase.pos_grad,
        shape=tuple(model.pos_embed.weight.shape),
        dtype=torch.float32,
        what=f"{call}: minigpt.pos_embed.weight.grad",
    )
    want = want_grad()
    assert close(grad, want, **grad_tol(want)), (
        f"{call} has the right value, but its gradient (seen on minigpt.pos_embed.weight) is not the gradient "
        f"of that value: loss detached in part (a detach() on one path?)" + reread(7, 9)
    )


@graded
def test_wrapper_loss_without_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "none")


@graded
def test_wrapper_loss_with_shorter_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "short")


@graded
def test_wrapper_loss_with_full_length_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "full")
