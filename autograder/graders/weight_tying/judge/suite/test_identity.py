"""Trusted: hidden suite, parameter identity: the head's weight IS the embedding's Parameter, from construction on.

Each test rests on two judge-checked facts of construction: the head shows a table the judge wrote into the
embedding in place, and the constructed model (the head applied to the table's rows, or the wrapper's MiniGPT)
scores the judge's ids with that table. Neither waits on the student's forward, which shape flow judges. The
runner's own facts (same object, same address) only choose the message, or cost points; they never earn one.
"""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.diagnosis import close, logits_follow_table
from autograder.graders.weight_tying.judge.forward import construction_logits, tie_diagnosis
from autograder.graders.weight_tying.judge.reference import (
    after_head,
    judge_model,
    library_tied,
    rewritten_by_forward,
    span_residual,
    tied_lm_logits,
)
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.judge.words import reread, say, title_of
from autograder.graders.weight_tying.runner.evidence import (
    GptFloat64,
    GptIdentity,
    GptReload,
    LmFloat64,
    LmIdentity,
    LmReload,
)
from autograder.graders.weight_tying.runner.values import judge_table, judge_values
from autograder.grading.judge import suite_api
from autograder.grading.judge.suite_api import Failed, plain_tensor, shape_dict

AREA = "parameter identity"
# The shape flow tests that judge each class's forward: what a test waits on when only forward can show the tie.
_LM_SHAPES = "test_tied_lm_shapes_and_values"
_WRAPPER_SHAPES = "test_wrapper_shapes_and_values"
# How far the wrapper's logits may lie outside the span of the written table (float32 rounding is ~1e-6).
SPAN_TOL = 1e-4
_LM_HEAD = "test_tied_lm_head_is_the_embedding_parameter"  # names a borrowed (library) tie


def _not_borrowed(evidence, what) -> None:
    """TiedEmbeddingLM's tie must be the student's: a pair borrowed from a library MiniGPT tied by the library
    earns nothing the tie earns (a knock-on of the test that names it)."""
    if library_tied(evidence):
        raise Failed(say("note.library_tie_not_credited", what=what, test=title_of(_LM_HEAD)), waits_on=_LM_HEAD)


def _wrapper_table(plan, rec, experiment: str, what: str, dtype=torch.float32) -> torch.Tensor:
    """The judge's table the runner wrote into minigpt.token_embed, for the shape the student's state has."""
    shapes = shape_dict(rec, GptIdentity.state_shapes, what=say("judge.label.state_shapes", what=what))
    shape = shapes.get("token_embed.weight")
    cfg = plan["gpt"]["cfg"]
    if shape is None or len(shape) != 2 or shape[0] != cfg["vocab_size"] or not 0 < shape[1] <= 256:
        raise AssertionError(say("judge.identity.table_shape", what=what, shape=shape, v=cfg["vocab_size"]) + reread(9))
    return judge_table(plan["gpt"]["tables"][experiment], shape).to(dtype)


def _check_head_uses_table(plan, rec, experiment, table, *, what):
    """The wrapper's logits for the judge's ids must be h @ table.T for some vectors h (whatever the layers
    before the head did, which shape flow judges): the head multiplies by the table just written."""
    ids = plan["gpt"]["ids"]
    v, d = table.shape
    logits, _ = construction_logits(rec, (*ids.shape, v), table.dtype, what=what, shapes_test=_WRAPPER_SHAPES)
    if d + 2 > v:  # the table's columns span every score vector: judge the whole forward instead
        shapes = shape_dict(rec, GptIdentity.state_shapes, what=say("judge.label.state_shapes", what=what))
        p = plan["gpt"]
        model = judge_model(p["cfg"], shapes, p["values"][experiment], table=p["tables"][experiment], dtype=table.dtype)
        with torch.no_grad():
            expected = model(ids)
        assert after_head(logits, expected) is not None, say(
            "judge.what_problem", what=what, problem=say("judge.identity.not_judge_minigpt")
        ) + reread(6, 9)
        return
    centred = logits - logits.mean(dim=(0, 1), keepdim=True)  # a head bias (judged by shape flow) drops out
    assert span_residual(centred, table) <= SPAN_TOL, say(
        "judge.what_problem", what=what, problem=say("judge.identity.logits_not_from_table")
    ) + reread(6)


def _check_logits_follow(rec, table, ids, *, what):
    """TiedEmbeddingLM's head scores the table's rows with the table: E[ids] @ E.T (a bias, a softmax or a scale
    is shape flow's)."""
    v = table.shape[0]
    logits, forward = construction_logits(rec, (*ids.shape, v), table.dtype, what=what, shapes_test=_LM_SHAPES)
    if logits_follow_table(logits, tied_lm_logits(table, ids)):
        return
    if forward and rewritten_by_forward(rec, table, logits, ids):
        raise Failed(
            say("judge.what_problem", what=what, problem=say("note.tie_not_checked_table_rewritten")) + reread(2),
            waits_on=_LM_SHAPES,
        )
    raise AssertionError(
        say("judge.what_problem", what=what, problem=say("suite.identity.logits_from_another_table")) + reread(6)
    )


def _check_follow(rec, target, *, what, pos=None):
    problem = tie_diagnosis(rec, target, what=what, pos=pos)
    assert problem is None, say("judge.what_problem", what=what, problem=problem)


def test_tied_lm_head_is_the_embedding_parameter(plan, evidence, run):
    """TiedEmbeddingLM: an in-place change of token_embed.weight reaches lm_head.weight before any forward."""
    rec = need(evidence, LmIdentity, run, what="TiedEmbeddingLM" + say("suite.identity_check"))
    assert rec.get(LmIdentity.library_tie) is not True, say("suite.delegated_tie") + reread(6)
    _check_follow(rec, plan["lm"]["W1"], what="TiedEmbeddingLM")
    _check_logits_follow(rec, plan["lm"]["W1"], plan["lm"]["ids"], what="TiedEmbeddingLM")
    assert rec.get(LmIdentity.embed_in_parameters) is True, say(
        "judge.what_problem", what="TiedEmbeddingLM", problem=say("suite.identity.table_not_a_parameter")
    ) + reread(6)


def test_tied_lm_tie_survives_state_dict_reload(plan, evidence, run):
    """state_dict -> torch.save -> load_state_dict into a fresh model keeps the tie."""
    rec = need(evidence, LmReload, run, what="TiedEmbeddingLM" + say("suite.state_dict_save_load"))
    what = "TiedEmbeddingLM" + say("suite.case.after_reload")
    _not_borrowed(evidence, what)
    _check_follow(rec, plan["lm"]["W2"], what=what)
    _check_logits_follow(rec, plan["lm"]["W2"], plan["lm"]["ids"], what=what)


def test_tied_lm_tie_survives_to_float64(plan, evidence, run):
    """model.to(torch.float64) keeps one shared table."""
    rec = need(evidence, LmFloat64, run, what="TiedEmbeddingLM" + say("suite.to_torch_float64"))
    what = "TiedEmbeddingLM" + say("suite.case.after_float64")
    _not_borrowed(evidence, what)
    _check_follow(rec, plan["lm"]["W3"], what=what)
    _check_logits_follow(rec, plan["lm"]["W3"], plan["lm"]["ids"], what=what)


def test_wrapper_head_is_the_embedding_parameter(plan, evidence, run):
    """MiniGPTWithWeightTying: minigpt.lm_head.weight is minigpt.token_embed.weight right after construction."""
    what = "MiniGPTWithWeightTying"
    rec = need(evidence, GptIdentity, run, what=what + say("suite.identity_check"))
    table = _wrapper_table(plan, rec, "identity", what)
    pos = rec.get(GptIdentity.pos_before)
    pos = pos if type(pos) is torch.Tensor else None
    _check_follow(rec, table, what=what, pos=pos)
    _check_head_uses_table(plan, rec, "identity", table, what=what)
    assert rec.get(GptIdentity.embed_in_parameters) is True, say(
        "judge.what_problem", what=what, problem=say("suite.identity.minigpt_table_not_a_parameter")
    ) + reread(9)


def test_wrapper_positional_embedding_not_tied(plan, evidence, run):
    """The positional table stays its own Parameter: changing token_embed leaves pos_embed alone."""
    cfg = plan["gpt"]["cfg"]
    what = "MiniGPTWithWeightTying"
    rec = need(evidence, GptIdentity, run, what=what + say("suite.identity_check"))
    table = _wrapper_table(plan, rec, "identity", what)
    before = plain_tensor(rec, GptIdentity.pos_before, dtype=torch.float32, what="minigpt.pos_embed.weight")
    shape = (cfg["block_size"], table.shape[1])
    assert tuple(before.shape) != tuple(table.shape), say(
        "suite.identity.minigpt_positions_token_shape", got=tuple(before.shape), want=shape
    ) + reread(4)
    assert before.dim() == 2 and before.shape[1] == table.shape[1], suite_api.say(
        "judge.has_shape_expected", label="minigpt.pos_embed.weight", got=tuple(before.shape), want=shape
    ) + reread(4)
    # The judge loaded its own positional table: the reported one must be exactly it, before and after.
    judged = judge_values(plan["gpt"]["values"]["identity"], "pos_embed.weight", before.shape)
    assert close(before, judged, rtol=0, atol=0), say("judge.identity.pos_not_judge_table") + reread(4)
    after = plain_tensor(rec, GptIdentity.pos_after, shape=before.shape, dtype=torch.float32, what="pos_embed.weight")
    assert rec.get(GptIdentity.head_is_pos) is False, say("suite.positional_embedding_tied_minigpt_lm_head") + reread(4)
    assert close(before, after, rtol=0, atol=0), say("suite.changing_minigpt_token_embed_weight_also") + reread(4)
    head = rec.get(GptIdentity.head_after_inplace)
    equal = type(head) is torch.Tensor and head.shape == before.shape and close(head, before, rtol=0, atol=0)
    assert not equal, say("suite.identity.minigpt_head_is_positions") + reread(4)


def test_wrapper_tie_survives_state_dict_reload(plan, evidence, run):
    rec = need(evidence, GptReload, run, what="MiniGPTWithWeightTying" + say("suite.state_dict_save_load"))
    what = "MiniGPTWithWeightTying" + say("suite.case.after_reload")
    table = _wrapper_table(plan, rec, "reload", what)
    _check_follow(rec, table, what=what)
    _check_head_uses_table(plan, rec, "reload", table, what=what)


def test_wrapper_tie_survives_to_float64(plan, evidence, run):
    rec = need(evidence, GptFloat64, run, what="MiniGPTWithWeightTying" + say("suite.to_torch_float64"))
    what = "MiniGPTWithWeightTying" + say("suite.case.after_float64")
    table = _wrapper_table(plan, rec, "float64", what, dtype=torch.float64)
    _check_follow(rec, table, what=what)
    _check_head_uses_table(plan, rec, "float64", table, what=what)
