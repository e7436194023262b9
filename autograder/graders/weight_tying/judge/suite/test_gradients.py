"""Trusted: hidden suite, gradient accumulation: one .grad holding both paths' gradients, one SGD update, the loss."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from autograder.graders.weight_tying.diagnosis import GRAD_TOL, TOL, close, gradient_problem
from autograder.graders.weight_tying.judge.reference import (
    IdentityMemo,
    minigpt_from_state,
    minigpt_path_grads,
    next_token_loss,
    tied_lm_path_grads,
)
from autograder.graders.weight_tying.runner.evidence import GptGrad, GptLoss, LmGrad, LossCase
from autograder.judge.evidence import entry, need, plain_tensor, tensor_dict

AREA = "gradient accumulation"
# The gradient and loss tests share one untied backward / one judge model per recorded state_dict.
_JUDGED = IdentityMemo()


def _wrapper_path_grads(p, state):
    """Both paths' gradients of model.loss(ids) on the recorded weights (judge-built, untied copy)."""
    return _JUDGED.get((p, state, "grads"), lambda: minigpt_path_grads(p["cfg"], state, p["ids"], None))


def _loss_model(p, state):
    return _JUDGED.get((p, state, "model"), lambda: minigpt_from_state(p["cfg"], state))


def _check_shared_grad(rec, g_in, g_out, what):
    v, d = g_in.shape
    grad = plain_tensor(
        rec, LmGrad.embed_grad, shape=(v, d), dtype=torch.float32, what=f"{what}: token_embed.weight.grad"
    )
    same = rec.get(LmGrad.grad_same_object) is True
    problem = gradient_problem(grad, g_in, g_out, same_object=same)
    assert problem is None, f"{what}: {problem}"
    head = rec.get(LmGrad.head_grad)
    assert type(head) is torch.Tensor and close(head, grad, rtol=0, atol=0), (
        f"{what}: lm_head.weight.grad differs from token_embed.weight.grad: .data sharing or copied table "
        f"(a tied head has one Parameter, so one .grad)"
    )
    assert same, f"{what}: lm_head.weight.grad is not the same tensor as token_embed.weight.grad: .data sharing?"


@pytest.mark.area(AREA)
@pytest.mark.points(6)
def test_tied_lm_shared_gradient_is_sum_of_paths(plan, evidence, run):
    """One backward of sum(logits * G): the shared .grad = lookup-path grad + head-path grad."""
    p = plan["lm"]
    rec = need(evidence, LmGrad, run, what="TiedEmbeddingLM (backward)")
    g_in, g_out = tied_lm_path_grads(p["W1"], p["ids"], p["G"])
    _check_shared_grad(rec, g_in, g_out, "TiedEmbeddingLM")


def _check_step(rec, before, g_in, g_out, lr, what):
    after = plain_tensor(
        rec, LmGrad.table_after, shape=before.shape, dtype=torch.float32, what=f"{what}: table after step"
    )
    want = before - lr * (g_in + g_out)
    if close(after, want, **GRAD_TOL):
        return
    if close(after, before - 2 * lr * (g_in + g_out), **GRAD_TOL):
        hint = "the table moved twice (gradient doubled, or the shared Parameter is stepped twice)"
    elif close(after, before - lr * g_in, **GRAD_TOL) or close(after, before - lr * g_out, **GRAD_TOL):
        hint = "the table moved by one path's gradient only (only one path: copied table / .data sharing?)"
    elif close(after, before, rtol=0, atol=0):
        hint = "the table did not move: token_embed.weight is not among model.parameters()?"
    else:
        hint = "the table did not move by lr * (sum of both paths' gradients)"
    raise AssertionError(f"{what}: after one SGD step (optimizer built over model.parameters()) {hint}")


@pytest.mark.area(AREA)
@pytest.mark.points(3)
def test_tied_lm_sgd_step_updates_table_once(plan, evidence, run):
    p = plan["lm"]
    rec = need(evidence, LmGrad, run, what="TiedEmbeddingLM (SGD step)")
    g_in, g_out = tied_lm_path_grads(p["W1"], p["ids"], p["G"])
    _check_step(rec, p["W1"], g_in, g_out, p["lr"], "TiedEmbeddingLM")


def _state(rec, key, what):
    return tensor_dict(rec, key, what=f"{what}: model.minigpt.state_dict()")


@pytest.mark.area(AREA)
@pytest.mark.points(5)
def test_wrapper_shared_gradient_is_sum_of_paths(plan, evidence, run):
    """model.loss(ids).backward(): minigpt's shared .grad = embedding path + head path (judge unties a copy)."""
    p = plan["gpt"]
    what = "MiniGPTWithWeightTying"
    rec = need(evidence, GptGrad, run, what=f"{what} (loss backward)")
    g_in, g_out = _wrapper_path_grads(p, _state(rec, GptGrad.state_before, what))
    _check_shared_grad(rec, g_in, g_out, what)


@pytest.mark.area(AREA)
@pytest.mark.points(2)
def test_wrapper_sgd_step_updates_table_once(plan, evidence, run):
    p = plan["gpt"]
    what = "MiniGPTWithWeightTying"
    rec = need(evidence, GptGrad, run, what=f"{what} (SGD step)")
    state = _state(rec, GptGrad.state_before, what)
    g_in, g_out = _wrapper_path_grads(p, state)
    _check_step(rec, state["token_embed.weight"], g_in, g_out, p["lr"], what)


def _alternatives(model, ids, targets):
    """Losses of the usual mistakes for this target form, for naming the misconception."""
    out = {}
    b, t = ids.shape
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
    rec = need(evidence, GptLoss, run, what=f"{what} (three target forms)")
    state = _state(rec, GptLoss.state, what)
    targets = {"none": None, "short": p["targets_short"], "full": p["targets_full"]}[form]
    call = {
        "none": "loss(ids)",
        "short": "loss(ids, targets of shape (B, T-1))",
        "full": "loss(ids, targets of shape (B, T))",
    }[form]
    try:
        got = entry(rec.get(form), f"{what}: {call}")
    except AssertionError as exc:
        hint = {
            "short": "targets of shape (B, T-1) go with the logits of input_ids[:, :-1]",
            "full": "targets of shape (B, T) are already shifted: use the logits of all of input_ids",
            "none": "with no targets, predict input_ids[:, 1:] from input_ids[:, :-1]",
        }[form]
        raise AssertionError(f"{exc}\n-> loss target shift wrong? {hint}") from None
    loss = plain_tensor(got, LossCase.loss, dtype=torch.float32, what=f"{call}")
    assert loss.numel() == 1, f"{call} returned shape {tuple(loss.shape)}, expected a scalar (the mean)"
    loss = loss.reshape(())
    model = _loss_model(p, state)
    with torch.no_grad():
        want = next_token_loss(model, p["ids"], targets)
    if close(loss, want, **TOL):
        return
    for name, alt in _alternatives(model, p["ids"], targets).items():
        if close(loss, alt, **TOL):
            raise AssertionError(
                f"{call} = {float(loss):.5f}, expected {float(want):.5f}: loss target shift wrong, {name}"
            )
    count = p["ids"].shape[0] * (p["ids"].shape[1] - (0 if form == "full" else 1))
    if close(loss, want * count, rtol=1e-4, atol=1e-4):
        raise AssertionError(
            f"{call} = {float(loss):.5f} = {count} x {float(want):.5f}: loss not mean (summed over "
            f"the {count} positions; use the mean cross-entropy)"
        )
    ratio = float(loss) / float(want) if float(want) else 0.0
    if abs(ratio - 2) < 1e-3 or abs(ratio - 0.5) < 1e-3:
        raise AssertionError(
            f"{call} = {float(loss):.5f}, {ratio:g} x the mean cross-entropy {float(want):.5f}: "
            f"loss {'doubled' if ratio > 1 else 'halved'}"
        )
    raise AssertionError(f"{call} = {float(loss):.5f}, expected the mean next-token cross-entropy {float(want):.5f}")


@pytest.mark.area(AREA)
@pytest.mark.points(2)
def test_wrapper_loss_without_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "none")


@pytest.mark.area(AREA)
@pytest.mark.points(1)
def test_wrapper_loss_with_shorter_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "short")


@pytest.mark.area(AREA)
@pytest.mark.points(1)
def test_wrapper_loss_with_full_length_targets(plan, evidence, run):
    _check_loss(plan, evidence, run, "full")
