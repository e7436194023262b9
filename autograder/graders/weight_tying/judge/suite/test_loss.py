"""Trusted: hidden suite, shape flow into the loss: which logits `loss()` pairs with which targets.

All three target forms of the contract are graded (as `MiniGPT.loss` defines them): None (predict
input_ids[:, 1:] from input_ids[:, :-1]), (B, T-1) as in the chapter, and (B, T), already shifted, as
nanoGPT writes it. Each wrong form is named: no shift, shifted the wrong way, targets ignored, a sum
instead of a mean, a scaled loss. The expected loss comes from the judge's MiniGPT holding the judge's
(sharp) weights; `loss()` may delegate to `MiniGPT.loss` or compute it by hand.
"""

from __future__ import annotations

from functools import partial

import torch
import torch.nn.functional as F

from autograder.graders.weight_tying.diagnosis import TOL, close, grad_tol
from autograder.graders.weight_tying.judge.models import for_model, tensor_key, with_params
from autograder.graders.weight_tying.judge.reference import judge_model, next_token_loss
from autograder.graders.weight_tying.judge.sealed import entry, need
from autograder.graders.weight_tying.judge.words import before_reread, reread, say
from autograder.graders.weight_tying.messages import CATALOG
from autograder.graders.weight_tying.runner.evidence import GptLoss, LossCase
from autograder.grading.findings import finding_of
from autograder.grading.judge.suite_api import Failed, plain_tensor, shape_dict

AREA = "shape flow"

# The shape flow test that judges the wrapper's forward: a loss of logits it cannot score waits on it.
_SHAPES = "test_wrapper_shapes_and_values"
# Each target form's call and hint, as catalog ids; and the form named in a list ("also wrong: ...").
_CALLS = {"none": "suite.call.loss_none", "short": "suite.call.loss_short", "full": "suite.call.loss_full"}
_FORMS = {"none": "suite.form.none", "short": "suite.form.short", "full": "suite.form.full"}
# two other forms wrong too, as one list: "另外两种形式（targets 形状为 (B, T-1) 或 (B, T)）的 loss 也不对"
_TWO_FORMS = {
    frozenset(("short", "full")): "suite.forms.short_full",
    frozenset(("none", "full")): "suite.forms.none_full",
    frozenset(("none", "short")): "suite.forms.none_short",
}
_HINTS = {
    "short": "suite.loss.form_short_targets",
    "full": "suite.loss.form_full_targets",
    "none": "suite.with_no_targets_predict_input_ids",
}


_INPUT_MISTAKES = ("suite.loss.softmax_first", "suite.loss.nll_on_logits")


def _input_mistakes(logits_of, ids, targets) -> dict:
    """The loss of the right pairing of logits and targets, fed to cross-entropy the wrong way: probabilities
    (a softmax before cross_entropy, which applies log_softmax itself), or raw logits to nll_loss (which expects
    log-probabilities)."""
    softmaxed = lambda x: logits_of(x).softmax(-1)  # noqa: E731
    out = {"suite.loss.softmax_first": next_token_loss(softmaxed, ids, targets)}
    out["suite.loss.nll_on_logits"] = next_token_loss(logits_of, ids, targets, criterion=F.nll_loss)
    return out


def _alternatives(model, ids, targets):
    """Losses of the usual mistakes for this target form, each by its message's catalog id."""
    t = ids.shape[1]
    with torch.no_grad():
        out = _input_mistakes(model, ids, targets)
        if targets is None:
            out["suite.loss.ignore_index"] = next_token_loss(model, ids, None, ignore_index=0)
            out["suite.loss_shift.none"] = next_token_loss(model, ids, ids)
            out["suite.loss_shift.wrong_way"] = next_token_loss(model, ids[:, 1:], ids[:, :-1])
            logits = model(ids)  # (B, T, V)
            out["suite.loss_shift.wrong_way_positions"] = F.cross_entropy(
                logits[:, 1:].reshape(-1, logits.size(-1)), ids[:, :-1].reshape(-1)
            )
        else:
            out["suite.loss_shift.targets_ignored"] = next_token_loss(model, ids, None)
            out["suite.loss.ignore_index"] = next_token_loss(model, ids, targets, ignore_index=0)
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
    ids, v = p["ids"], p["cfg"]["vocab_size"]
    model = judge_model(p["cfg"], shapes, p["values"]["loss"], gain=p["loss_gain"])
    # The loss is judged on the model's own logits: a forward that is not the judge's (shape flow judges it)
    # does not make a right loss() wrong. Logits of another shape cannot be scored at all: a knock-on.
    own = rec.get(GptLoss.logits)
    own = own if type(own) is torch.Tensor and tuple(own.shape) == (*ids.shape, v) else None
    key = ("loss", p["values"]["loss"], p["loss_gain"], tensor_key(ids))
    forward_right = own is not None and close(
        own, for_model(p["cfg"], shapes, key, partial(_forward, model, ids)), **TOL
    )
    try:
        got = entry(rec.get(form), say("judge.what_label", what=what, name=call))
    except Failed as failed:
        if failed.finding.owed:
            raise
        if not forward_right:  # a loss through a forward that is not the model's raising may be its consequence
            raise _forward_wrong(call) from None
        # What raised is the student's text, never read: which target forms return a value tells a loss that
        # is not written (or raises whatever it is given) from one that misreads this form's targets.
        answered = [f for f in _CALLS if isinstance(rec.get(f), dict) and "error" not in rec[f]]
        if answered:
            raise Failed(failed.finding.said + say("suite.loss_target_shift_wrong", hint=hint) + reread(9)) from None
        if failed.finding.starter:  # nothing written to reread: `entry` named the task's section (sealed.SECTION)
            raise Failed(before_reread(failed.finding.said, say("judge.loss.not_written"))) from None
        raise Failed(failed.finding.said + say("judge.loss.not_written") + reread(9)) from None
    loss = plain_tensor(got, LossCase.loss, dtype=torch.float32, what=call)
    assert loss.dim() == 0, say("suite.loss.not_scalar", call=call, got=tuple(loss.shape)) + reread(9)
    judge_key = (*key, form)
    judge_want = partial(for_model, p["cfg"], shapes, judge_key, partial(_loss, model, ids, targets, grad=False))
    want_grad = partial(for_model, p["cfg"], shapes, (*judge_key, "pos grad"), partial(_loss, model, ids, targets))
    if own is None or forward_right:
        # The judge's own model: every usual mistake can be recognised, the gradient checked. Without (B, T, V)
        # logits of its own, only a loss() that scores MiniGPT's own logits (self.minigpt.loss) can be judged.
        logits_of, alternatives, want = model, _alternatives, judge_want()
    else:
        logits_of, alternatives = _prefix_logits(own, ids), _prefix_alternatives
        with torch.no_grad():
            want = next_token_loss(logits_of, ids, targets)
        # A loss() that scores MiniGPT's own logits (self.minigpt.loss) is right whatever forward does.
        if close(loss, judge_want(), **TOL):
            _check_differentiable(got, model, want_grad, call)
            return
    if close(loss, want, **TOL):
        if own is None or forward_right:
            _check_differentiable(got, model, want_grad, call)
        else:
            _check_reaches_model(got, call)
        return
    value, expected = f"{float(loss):.5f}", f"{float(want):.5f}"
    for message, alt in alternatives(logits_of, ids, targets).items():
        if close(loss, alt, **TOL):
            # section 5 teaches what cross-entropy takes (logits); section 9 the targets of each form
            section = 5 if message in _INPUT_MISTAKES else 9
            # which logits go with which targets helps only where the pairing is the mistake
            shift = {"hint": hint} if CATALOG[message].names == "loss_shift" else {}
            raise AssertionError(say(message, call=call, got=value, want=expected, **shift) + reread(section))
    count = ids.shape[0] * (ids.shape[1] - (0 if form == "full" else 1))
    if close(loss, want * count, rtol=1e-4, atol=1e-4):
        raise AssertionError(
            say("judge.loss.summed", call=call, got=value, n=count, want=expected, m=count) + reread(9)
        )
    ratio = float(loss) / float(want) if float(want) else 0.0
    if abs(ratio - 2) < 1e-3 or abs(ratio - 0.5) < 1e-3:
        message = "judge.loss.doubled" if ratio > 1 else "judge.loss.halved"
        raise AssertionError(say(message, call=call, got=value, k=f"{ratio:g}", want=expected) + reread(7, 9))
    if own is None:  # not the judge's model's loss, and no logits of the model's own to judge it by
        raise _forward_wrong(call)
    raise AssertionError(say("suite.loss.wrong_value", call=call, got=value, want=expected) + reread(9))


def _forward_wrong(call) -> Failed:
    """The loss cannot be judged: the model's logits are not (B, T, V) (or forward raised)."""
    return Failed(say("note.loss_not_checked_forward", call=call), waits_on=_SHAPES)


def _forward(model, ids):
    with torch.no_grad():
        return model(ids)


def _prefix_logits(logits: torch.Tensor, ids: torch.Tensor):
    """The model's logits for a prefix of `ids`, read off its logits for all of them (a causal model's logits at
    a position do not depend on later tokens): what a target form's loss needs."""

    def logits_of(inputs: torch.Tensor) -> torch.Tensor:
        t = inputs.shape[1]
        if not torch.equal(inputs, ids[:, :t]):
            raise ValueError("only prefixes of the plan's ids are read off the recorded logits")
        return logits[:, :t]

    return logits_of


def _prefix_alternatives(logits_of, ids, targets):
    """The usual mistakes that need only the logits of prefixes of `ids` (the model's own, recorded)."""
    with torch.no_grad():
        out = _input_mistakes(logits_of, ids, targets)
        if targets is None:
            out["suite.loss.ignore_index"] = next_token_loss(logits_of, ids, None, ignore_index=0)
            out["suite.loss_shift.none"] = next_token_loss(logits_of, ids, ids)
        else:
            out["suite.loss_shift.targets_ignored"] = next_token_loss(logits_of, ids, None)
            out["suite.loss.ignore_index"] = next_token_loss(logits_of, ids, targets, ignore_index=0)
            if targets.shape[1] == ids.shape[1]:
                out["suite.loss_shift.shifted_again"] = next_token_loss(logits_of, ids, targets[:, 1:])
    return out


def _check_reaches_model(got, call) -> None:
    """loss.backward() reaches the model (the model's forward is not the judge's: only that is checked)."""
    grad = got.get(LossCase.pos_grad)
    reached = type(grad) is torch.Tensor and bool(torch.isfinite(grad).all()) and bool((grad != 0).any())
    assert reached, say("suite.loss.detached", call=call) + reread(7, 9)


def _loss(model, ids, targets, *, grad: bool = True):
    """The judge's mean next-token loss of `model`, or (`grad`) its gradient on the positional table."""
    if not grad:
        with torch.no_grad():
            return next_token_loss(model, ids, targets)
    pos = model.pos_embed.weight.detach().clone().requires_grad_(True)
    next_token_loss(lambda x: with_params(model, {"pos_embed.weight": pos}, x), ids, targets).backward()
    return pos.grad


def _check_differentiable(got, model, want_grad, call) -> None:
    """loss.backward() must reach the model: the positional table's gradient is the judge's."""
    grad = got.get(LossCase.pos_grad)
    assert grad is not None, say("suite.loss.detached", call=call) + reread(7, 9)
    grad = plain_tensor(
        got,
        LossCase.pos_grad,
        shape=tuple(model.pos_embed.weight.shape),
        dtype=torch.float32,
        what=say("judge.what_label", what=call, name="minigpt.pos_embed.weight.grad"),
    )
    want = want_grad()
    assert close(grad, want, **grad_tol(want)), say(
        "suite.loss.detached_in_part", call=call, where="minigpt.pos_embed.weight"
    ) + reread(7, 9)


def test_wrapper_loss_values(plan, evidence, run):
    """loss() gives the mean next-token cross-entropy for each of the three target forms. Every distinct
    misconception the forms show is charged (a misread form is one mistake however many forms show it); a form
    that no model explains costs the test its points."""
    findings = {}
    for form in _CALLS:
        try:
            _check_loss(plan, evidence, run, form)
        except AssertionError as exc:
            finding = finding_of(exc)
            if finding.owed or finding.internal:
                raise
            findings[form] = finding
    if not findings:
        return
    # an unexplained form first (it costs the test's points), then a loss that could not be scored, then the rest
    shown = min(findings, key=lambda f: {"plain": 0, "knock-on": 1}.get(findings[f].kind, 2))
    finding, said = findings[shown], findings[shown].said
    # a loss that raises for every form says so in its own message: the other forms are not named again
    every_form_raises = len(findings) == len(_CALLS) and all(f.names == "loss_not_written" for f in findings.values())
    others = [] if every_form_raises else [form for form in findings if form != shown]
    if len(others) == 1:  # named, before where to reread: the other forms this loss gets wrong
        said = before_reread(said, say("suite.and_more_forms", forms=say(_FORMS[others[0]])))
    elif others:
        said = before_reread(said, say("suite.and_two_more_forms", forms=say(_TWO_FORMS[frozenset(others)])))
    if finding.kind != "misconception":
        raise Failed(said, waits_on=finding.waits_on) if finding.waits_on else AssertionError(said)
    names = list(dict.fromkeys(m for f in findings.values() for m in f.shown))
    raise Failed(said, names=names[0], also=tuple(names[1:]))


def test_wrapper_loss_reaches_the_model(plan, evidence, run):
    """loss.backward() reaches the model's weights for every target form whose loss() returns a scalar, whatever
    its value (the value tests judge that): a detached loss shows here beside any other slip of the loss."""
    rec = need(evidence, GptLoss, run, what="MiniGPTWithWeightTying.loss" + say("suite.three_target_forms"))
    answered = 0
    for form, call in _CALLS.items():
        got = rec.get(form)
        loss = got.get(LossCase.loss) if isinstance(got, dict) and "error" not in got else None
        if type(loss) is not torch.Tensor or loss.dim() != 0:
            continue
        answered += 1
        _check_reaches_model(got, say(call))
    if not answered:  # nothing to back-propagate: the loss tests name why
        raise Failed(say("note.backward_not_checked_no_loss"), waits_on="test_wrapper_loss_values")
