"""Trusted: hidden suite, gradient accumulation: one .grad holding both paths' gradients, one SGD update.

Both experiments back-propagate a judge-chosen objective, sum(output * G), never the student's loss, so a
wrong loss costs only the loss tests. A forward that ends in a softmax or a scale is judged for the gradient
of the function it computes (shape flow judges the output itself); a forward the judge cannot recognise
makes these tests say so instead of blaming the tie.
"""

from __future__ import annotations

from functools import partial

import torch

from autograder.graders.weight_tying.diagnosis import close, grad_tol, gradient_problem
from autograder.graders.weight_tying.judge.forward import recorded_logits, waited_on
from autograder.graders.weight_tying.judge.models import judge_logits
from autograder.graders.weight_tying.judge.reference import (
    after_head,
    judge_model,
    library_tied,
    max_norm_rewrite,
    minigpt_path_grads,
    tied_lm_logits,
    tied_lm_path_grads,
)
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.judge.words import reread, say, title_of
from autograder.graders.weight_tying.runner.evidence import GptGrad, GptIdentity, LmGrad, LmIdentity
from autograder.graders.weight_tying.runner.values import judge_table
from autograder.grading.findings import named_in
from autograder.grading.judge.suite_api import Failed, plain_tensor, raised_where, shape_dict

AREA = "gradient accumulation"
# The shape flow tests that judge each class's forward: a gradient of a forward they fail is not judged here.
_LM_SHAPES = "test_tied_lm_shapes_and_values"
_WRAPPER_SHAPES = "test_wrapper_shapes_and_values"
_LM_HEAD = "test_tied_lm_head_is_the_embedding_parameter"  # names a borrowed (library) tie, or no tie
_WRAPPER_HEAD = "test_wrapper_head_is_the_embedding_parameter"


def _not_borrowed(evidence, what) -> None:
    """TiedEmbeddingLM's tie must be the student's: a pair borrowed from a library MiniGPT tied by the library
    earns nothing the tie earns (a knock-on of the test that names it)."""
    if library_tied(evidence):
        raise Failed(say("note.library_tie_not_credited", what=what, test=title_of(_LM_HEAD)), waits_on=_LM_HEAD)


def _not_checked(what, why: str, shapes_test: str, **params) -> Failed:
    """A knock-on of `shapes_test`: `why` is the catalog id of the note saying why `what`'s gradient could not be
    checked (it names `what` itself: "MiniGPTWithWeightTying 的梯度无法检查：...")."""
    return Failed(say(why, what=what, **params), waits_on=shapes_test)


def _head_followed(evidence, record, table) -> bool | None:
    """Whether the identity experiment saw the head show a table written into the embedding (None: unknown)."""
    rec = evidence.get(record.NAME)
    head = rec.get(record.head_after_inplace) if isinstance(rec, dict) else None
    if type(head) is not torch.Tensor or table is None:
        return None
    return head.shape == table.shape and close(head, table, rtol=0, atol=0)


def _written_table(plan, evidence):
    """The table the wrapper's identity experiment wrote into minigpt.token_embed, for the shape it reported."""
    rec = evidence.get(GptIdentity.NAME)
    shapes = rec.get(GptIdentity.state_shapes) if isinstance(rec, dict) else None
    shape = shapes.get("token_embed.weight") if isinstance(shapes, dict) else None
    if not (isinstance(shape, list) and len(shape) == 2 and all(type(n) is int and 0 < n <= 4096 for n in shape)):
        return None
    return judge_table(plan["gpt"]["tables"]["identity"], shape)


def _logits(rec, shape, what, shapes_test: str):
    """The logits of the gradient experiment's forward call; a forward that raised is a knock-on."""
    error = rec.get(LmGrad.forward_error)
    if rec.get(LmGrad.logits) is None and isinstance(error, str) and error:
        error, at = raised_where(error[:600])
        raise _not_checked(what, "note.gradient_not_checked_forward_raised", shapes_test, error=error, at=at)
    label = say("judge.label.logits", what=what)
    return recorded_logits(rec, LmGrad.logits, shape, what=what, label=label, shapes_test=shapes_test)


def _lm_paths(plan, evidence, rec, what):
    """The table the step starts from and the lookup-path and head-path gradients of the function TiedEmbeddingLM's
    forward computes (with max_norm on the embedding, that of the table as forward rewrote it)."""
    _not_borrowed(evidence, what)
    p = plan["lm"]
    ids, table = p["ids"], p["W1"]
    logits = _logits(rec, (*ids.shape, table.shape[0]), what, _LM_SHAPES)
    post = after_head(logits, tied_lm_logits(table, ids))
    if post is None:  # the identity experiment wrote the same table and ran the same forward
        identity = evidence.get(LmIdentity.NAME)
        rewritten = max_norm_rewrite(identity, table, logits, ids) if isinstance(identity, dict) else None
        if rewritten is not None:
            table = rewritten.to(table.dtype)
            post = after_head(logits, tied_lm_logits(table, ids))
    if post is None:  # a head that does not follow the table is the tie's mistake; any other, forward's
        waits = _LM_SHAPES if _head_followed(evidence, LmIdentity, p["W1"]) is not False else _LM_HEAD
        raise _not_checked(what, "note.gradient_not_checked_not_tied_product", waits)
    return (table, *tied_lm_path_grads(table, ids, p["G"], post[1]))


def _follows(logits, other) -> bool:
    return after_head(logits, other) is not None


def _wrapper_paths(plan, evidence, rec, what):
    """Both paths' gradients of the judge's MiniGPT (the student's sizes, the judge's weights), untied."""
    p = plan["gpt"]
    shapes = shape_dict(rec, GptGrad.state_shapes, what=say("judge.label.state_shapes", what=what))
    model = judge_model(p["cfg"], shapes, p["values"]["grad"])
    logits = _logits(rec, (*p["ids"].shape, p["cfg"]["vocab_size"]), what, _WRAPPER_SHAPES)
    post = after_head(logits, judge_logits(p["cfg"], shapes, p["values"]["grad"], p["ids"]))
    if post is None:  # a head that does not follow the table is the tie's mistake; any other, forward's
        written = _written_table(plan, evidence)
        if written is not None and _head_followed(evidence, GptIdentity, written) is False:
            waits = _WRAPPER_HEAD
        else:
            follows = partial(_follows, logits)
            waits = waited_on(p["cfg"], shapes, p["values"]["grad"], p["ids"], follows, _WRAPPER_SHAPES)
        raise _not_checked(what, "note.gradient_not_checked_not_judge_minigpt", waits)
    g_in, g_out = minigpt_path_grads(p["cfg"], shapes, p["values"]["grad"], p["ids"], p["G"], post)
    return model.token_embed.weight, g_in, g_out


def _check_shared_grad(rec, g_in, g_out, what):
    v, d = g_in.shape
    grad = plain_tensor(
        rec,
        LmGrad.embed_grad,
        shape=(v, d),
        dtype=torch.float32,
        what=say("judge.what_label", what=what, name="token_embed.weight.grad"),
    )
    same = rec.get(LmGrad.grad_same_object) is True
    problem = gradient_problem(grad, g_in, g_out, same_object=same)
    assert problem is None, say("judge.what_problem", what=what, problem=problem)
    head = rec.get(LmGrad.head_grad)
    # One Parameter has one .grad: same dtype, same values (a float64 copy of the right values is not it).
    assert type(head) is torch.Tensor and head.dtype == grad.dtype and close(head, grad, rtol=0, atol=0), say(
        "judge.what_problem", what=what, problem=say("suite.grad.head_grad_differs")
    ) + reread(7)
    assert same, say("judge.what_problem", what=what, problem=say("suite.grad.head_grad_not_same")) + reread(7)


def _check_step(rec, before, g_in, g_out, lr, what):
    after = plain_tensor(
        rec,
        LmGrad.table_after,
        shape=before.shape,
        dtype=torch.float32,
        what=say("judge.label.table_after_step", what=what),
    )
    want = before - lr * (g_in + g_out)
    tol = grad_tol(lr * (g_in + g_out))  # float noise scales with the step, not with the table
    if close(after, want, **tol):
        return
    # One step by lr times a gradient that is itself one of the named mistakes (an embedding option's rows, one
    # path): the step is right for that gradient, and the mistake is the gradient's, named by its own model.
    grad = rec.get(LmGrad.embed_grad)
    if type(grad) is torch.Tensor and grad.shape == before.shape and close(after, before - lr * grad, **tol):
        problem = gradient_problem(grad, g_in, g_out, same_object=rec.get(LmGrad.grad_same_object) is True)
        if problem is not None and named_in(problem) is not None:
            raise AssertionError(say("judge.grad.step_follows_gradient", what=what, problem=problem))
    if close(after, before - 2 * lr * (g_in + g_out), **tol):
        hint = "suite.sgd.doubled"
    elif close(after, before - 0.5 * lr * (g_in + g_out), **tol):
        hint = "suite.sgd.halved"
    elif close(after, before - lr * g_in, **tol) or close(after, before - lr * g_out, **tol):
        hint = "suite.sgd.one_path"
    elif close(after, before, rtol=0, atol=0):
        hint = "suite.sgd.table_not_a_parameter"
    else:
        hint = "suite.sgd.wrong_step"
    raise AssertionError(say("judge.grad.after_step", what=what, hint=say(hint)) + reread(7))


def test_tied_lm_shared_gradient_is_sum_of_paths(plan, evidence, run):
    """One backward of sum(logits * G): the shared .grad = lookup-path grad + head-path grad."""
    what = "TiedEmbeddingLM"
    rec = need(evidence, LmGrad, run, what=what + say("suite.backward"))
    _, g_in, g_out = _lm_paths(plan, evidence, rec, what)
    _check_shared_grad(rec, g_in, g_out, what)


def test_tied_lm_sgd_step_updates_table_once(plan, evidence, run):
    p = plan["lm"]
    what = "TiedEmbeddingLM"
    rec = need(evidence, LmGrad, run, what=what + say("suite.sgd_step"))
    table, g_in, g_out = _lm_paths(plan, evidence, rec, what)
    _check_step(rec, table, g_in, g_out, p["lr"], what)


def test_wrapper_shared_gradient_is_sum_of_paths(plan, evidence, run):
    """sum(model(ids) * G).backward(): minigpt's shared .grad = embedding path + head path (judge unties a copy)."""
    what = "MiniGPTWithWeightTying"
    rec = need(evidence, GptGrad, run, what=what + say("suite.backward"))
    _, g_in, g_out = _wrapper_paths(plan, evidence, rec, what)
    _check_shared_grad(rec, g_in, g_out, what)


def test_wrapper_sgd_step_updates_table_once(plan, evidence, run):
    what = "MiniGPTWithWeightTying"
    rec = need(evidence, GptGrad, run, what=what + say("suite.sgd_step"))
    table, g_in, g_out = _wrapper_paths(plan, evidence, rec, what)
    _check_step(rec, table, g_in, g_out, plan["gpt"]["lr"], what)
