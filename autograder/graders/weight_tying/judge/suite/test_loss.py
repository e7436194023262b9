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

from autograder.graders.weight_tying.diagnosis import TOL, close, grad_tol, shape_mismatch
from autograder.graders.weight_tying.judge.models import for_model, tensor_key
from autograder.graders.weight_tying.judge.reference import judge_model, next_token_loss
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.judge.words import reread, say
from autograder.graders.weight_tying.runner.evidence import GptLoss, LossCase
from autograder.grading.judge.suite_api import entry, plain_tensor, shape_dict
from autograder.grading.marking import graded

AREA = "shape flow"

# Each target form's call and hint, as catalog ids (rendered in the judgement's language).
_CALLS = {"none": "suite.call.loss_none", "short": "suite.call.loss_short", "full": "suite.call.loss_full"}
_HINTS = {
    "short": "suite.targets_of_shape_b_t_1",
    "full": "suite.targets_of_shape_b_t_are",
    "none": "suite.with_no_targets_predict_input_ids",
}


def _alternatives(model, ids, targets):
    """Losses of the usual mistakes for this target form, each by its message's catalog id."""
    out = {}
    t = ids.shape[1]
    with torch.no_grad():
        if targets is None:
            out["suite.loss_shift.none"] = next_token_loss(model, ids, ids)
            out["suite.loss_shift.wrong_way"] = next_token_loss(model, ids[:, 1:], ids[:, :-1])
            logits = model(ids)  # (B, T, V)
            out["suite.loss_shift.wrong_way_positions"] = F.cross_entropy(
                logits[:, 1:].reshape(-1, logits.size(-1)), ids[:, :-1].reshape(-1)
            )
        else:
            out["suite.loss_shift.targets_ignored"] = next_token_loss(model, ids, None)
            if targets.shape[1] == t:
                out["suite.loss_shift.shifted_again"] = next_token_loss(model, ids, targets[:, 1:])
                out["suite.loss_shift.wrong_way_targets"] = next_token_loss(model, ids[:, 1:], targets[:, :-1])
            else:
                out["suite.loss_shift.wrong_way_full"] = next_token_loss(model, ids[:, 1:], targets)
    return out


def _check_loss(plan, evidence, run, form: str):
    p = plan["gpt"]
    what = "MiniGPTWithWeightTying.loss"
    call, hint = say(_CALLS[form]), say(_HINTS[form])
    rec = need(evidence, GptLoss, run, what=what + say("suite.three_target_forms"))
    shapes = shape_dict(rec, GptLoss.state_shapes, what=say("judge.label.state_shapes", what=what))
    targets = {"none": None, "short": p["targets_short"], "full": p["targets_full"]}[form]
    try:
        got = entry(rec.get(form), say("judge.what_problem", what=what, problem=call))
    except AssertionError as exc:
        error = rec.get(form).get("error") if isinstance(rec.get(form), dict) else None
        if isinstance(error, str) and error.startswith("NotImplementedError"):  # a loss never written
            raise AssertionError(f"{exc}" + say("judge.loss.not_written") + reread(9)) from None
        if isinstance(error, str) and shape_mismatch(error):  # shapes that do not pair up
            raise AssertionError(f"{exc}" + say("suite.loss_target_shift_wrong", hint=hint) + reread(9)) from None
        raise AssertionError(f"{exc}" + say("suite.loss_raises") + reread(9)) from None
    loss = plain_tensor(got, LossCase.loss, dtype=torch.float32, what=call)
    assert loss.dim() == 0, say(
        "suite.returned_shape_expected_a_scalar_the", call=call, got=tuple(loss.shape)
    ) + reread(9)
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
        raise AssertionError(say("note.loss_not_checked_pos", call=call, shape=tuple(pos)))
    value, expected = f"{float(loss):.5f}", f"{float(want):.5f}"
    for key, alt in _alternatives(model, p["ids"], targets).items():
        if close(loss, alt, **TOL):
            raise AssertionError(say(key, call=call, got=value, want=expected, hint=hint) + reread(9))
    count = p["ids"].shape[0] * (p["ids"].shape[1] - (0 if form == "full" else 1))
    if close(loss, want * count, rtol=1e-4, atol=1e-4):
        raise AssertionError(
            say("judge.loss.summed", call=call, got=value, n=count, want=expected, m=count) + reread(9)
        )
    ratio = float(loss) / float(want) if float(want) else 0.0
    if abs(ratio - 2) < 1e-3 or abs(ratio - 0.5) < 1e-3:
        key = "judge.loss.doubled" if ratio > 1 else "judge.loss.halved"
        raise AssertionError(say(key, call=call, got=value, k=f"{ratio:g}", want=expected) + reread(7, 9))
    raise AssertionError(
        say("suite.expected_the_mean_next_token_cross", call=call, got=value, want=expected) + reread(9)
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
    assert grad is not None, say("suite.has_the_right_value_but_backward", call=call) + reread(7, 9)
    grad = plain_tensor(
        got,
        LossCase.pos_grad,
        shape=tuple(model.pos_embed.weight.shape),
        dtype=torch.float32,
        what=say("judge.what_problem", what=call, problem="minigpt.pos_embed.weight.grad"),
    )
    want = want_grad()
    assert close(grad, want, **grad_tol(want)), say(
        "suite.has_the_right_value_but_its", call=call, where="minigpt.pos_embed.weight"
    ) + reread(7, 9)


@graded
def test_wrapper_loss_without_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "none")


@graded
def test_wrapper_loss_with_shorter_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "short")


@graded
def test_wrapper_loss_with_full_length_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "full")
