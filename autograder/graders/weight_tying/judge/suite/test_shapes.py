"""Trusted: hidden suite, shape flow: (B, T) -> (B, T, D) -> (B, T, V), plain tensors with the right values."""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.diagnosis import TOL, TOL64, close, logits_problem, lookup_problem
from autograder.graders.weight_tying.judge.models import judge_logits
from autograder.graders.weight_tying.judge.reference import judge_model, layer_norm_eps, skipped_part, tied_lm_logits
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.judge.words import language, reread, say
from autograder.graders.weight_tying.runner.evidence import (
    ForwardCase,
    GptFloat64,
    GptShapes,
    LmFloat64,
    LmShapeCase,
    LmShapes,
)
from autograder.grading.judge.suite_api import EvidenceError, entry, plain_tensor, shape_dict
from autograder.grading.marking import graded

AREA = "shape flow"
# The parts a forward may skip (reference.skipped_part), by their catalog ids.
_PARTS = {
    "the positional embedding": "note.the_positional_embedding",
    "the decoder blocks": "note.the_decoder_blocks",
    "the final LayerNorm": "note.the_final_layernorm",
    "the positional embedding and the decoder blocks": "note.the_positional_embedding_and_the_decoder",
}


def _logits_problem(logits, expected, **kwargs) -> tuple[str | None, str | None]:
    """diagnosis.logits_problem in English (what the suite decides on) and in the judgement's language."""
    english = logits_problem(logits, expected, **kwargs)
    if english is None or language() == "en":
        return english, english
    return english, logits_problem(logits, expected, **kwargs, language=language())


def _entry_with_matmul_hint(record, what):
    try:
        return entry(record, what)
    except EvidenceError as exc:
        text = str(exc)
        if "cannot be multiplied" in text or "size mismatch" in text or "must match the size" in text:
            text += say("judge.shapes.matmul_hint") + reread(6)
        raise EvidenceError(text) from None


def _logits(rec, b, t, v, dtype, what):
    """Logits as a plain tensor; a wrong last dimension is reported through logits_problem."""
    got = plain_tensor(rec, ForwardCase.logits, dtype=dtype, what=say("judge.label.logits", what=what))
    assert got.dim() == 3 and tuple(got.shape[:2]) == (b, t), say(
        "judge.shapes.logits_shape", what=what, got=tuple(got.shape), want=(b, t, v)
    )
    return got


@graded
def test_tied_lm_shapes_and_values(plan, evidence, run):
    """E[ids] (B, T, D) and E[ids] @ E.T (B, T, V) for random B, T, V, D (B = 1 and T = 1 included)."""
    rec = need(evidence, LmShapes, run, what="TiedEmbeddingLM" + say("judge.shape_flow"))
    cases = rec.get(LmShapes.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["lm"]["shapes"]), say(
        "judge.malformed_record", name="lm_shapes"
    )
    problems = []
    for c, got in zip(plan["lm"]["shapes"], cases, strict=True):
        v, d = c["vocab_size"], c["embed_dim"]
        b, t = c["ids"].shape
        what = say("judge.shapes.lm_case", v=v, d=d, shape=(b, t))
        got = _entry_with_matmul_hint(got, what)
        label = say("judge.what_problem", what=what, problem="token_embed.weight")
        table = plain_tensor(got, LmShapeCase.embed_weight, shape=(v, d), dtype=torch.float32, what=label)
        assert close(table, c["W"], rtol=0, atol=0), say(
            "judge.what_problem", what=what, problem=say("suite.writing_into_token_embed_weight_in")
        )
        label = say("judge.what_problem", what=what, problem="lm_head.weight")
        head = plain_tensor(got, LmShapeCase.head_weight, dtype=torch.float32, what=label)
        key = "judge.shapes.head_transposed" if tuple(head.shape) == (d, v) else "judge.shapes.head_shape"
        assert tuple(head.shape) == (v, d), say(key, what=what, got=tuple(head.shape), want=(v, d)) + reread(6)
        label = say("judge.what_problem", what=what, problem="token_embed(input_ids)")
        hidden = plain_tensor(got, LmShapeCase.hidden, shape=(b, t, d), dtype=torch.float32, what=label)
        problem = lookup_problem(hidden, c["W"], c["ids"], language=language())
        assert problem is None, say("judge.what_problem", what=what, problem=problem)
        logits = _logits(got, b, t, v, torch.float32, what)
        expected = tied_lm_logits(c["W"], c["ids"])  # (B, T, D) @ (D, V) -> (B, T, V)
        # Values follow the student's own head (identity is judged elsewhere), or the table itself.
        with_head = c["W"][c["ids"]] @ head.T
        if not (close(logits, expected, **TOL) or close(logits, with_head, **TOL)):
            english, problem = _logits_problem(logits, expected)
            problems.append((english, say("judge.what_problem", what=what, problem=problem)))
    _report(problems)


def _report(problems: list[tuple[str, str]]) -> None:
    """Fail with the most telling problem: a recognised misconception beats 'wrong values' (each problem as
    (its English, its message in the judgement's language))."""
    if problems:
        named = [said for english, said in problems if "wrong values" not in english]
        more = say("suite.and_more_case_s", n=len(problems) - 1) if len(problems) > 1 else ""
        raise AssertionError((named or [said for _, said in problems])[0] + more)


@graded
def test_tied_lm_float64(plan, evidence, run):
    """After .to(torch.float64) the logits are float64 and still E[ids] @ E.T."""
    p = plan["lm"]
    rec = need(evidence, LmFloat64, run, what="TiedEmbeddingLM" + say("suite.to_torch_float64"))
    b, t = p["ids"].shape
    what = "TiedEmbeddingLM" + say("suite.after_to_torch_float64")
    logits = _logits(rec, b, t, p["vocab_size"], torch.float64, what)
    table = p["W3"]
    expected = tied_lm_logits(table, p["ids"])
    english, problem = _logits_problem(logits, expected, tol=TOL64)
    head = rec.get(LmFloat64.head_after_inplace)
    if english is not None and "wrong values" in english and type(head) is torch.Tensor:
        follows = head.shape == table.shape and close(head, table, rtol=0, atol=0)
        # A head that does not follow the table is the tie's mistake (parameter identity charges it), not the dtype's.
        assert follows, say("judge.what_problem", what=what, problem=say("note.float64_not_checked"))
    assert problem is None, say("judge.what_problem", what=what, problem=problem)


def _judge_wrapper_case(cfg, got, ids, values, what, *, gain=1.0, dtype=torch.float32, tables=()):
    """The logits must be the judge's MiniGPT's (the sizes the student's state shows, the judge's weights);
    `tables`: judge_table seeds written into token_embed (a tied head follows; an untied one may not)."""
    b, t = ids.shape
    shapes = shape_dict(got, ForwardCase.state_shapes, what=say("judge.label.state_shapes", what=what))
    logits = _logits(got, b, t, cfg["vocab_size"], dtype, what)
    tol = TOL if dtype == torch.float32 else TOL64
    settings = [dict(gain=gain, dtype=dtype)]
    for seed in tables:  # the tie is judged by parameter identity; here either kind of head may be right
        settings = [dict(dtype=dtype, table=seed, head_follows=f) for f in (True, False)]
    expected = [judge_logits(cfg, shapes, values, ids, **s) for s in settings]  # kept for the plan
    if any(logits_problem(logits, want, tol=tol) is None for want in expected):
        return shapes
    english, problem = _logits_problem(logits, expected[0], block_size=cfg["block_size"], tol=tol)
    if english is not None and "wrong values" in english:
        model = judge_model(cfg, shapes, values, **settings[0])
        part = skipped_part(model, ids, logits, tol=tol)
        eps = None if part else layer_norm_eps(model, ids, logits, tol=tol)
        if part:
            problem = say("note.the_logits_are_those_of_a", parts=say(_PARTS[part])) + reread(9)
        elif eps is not None:
            problem = say("note.the_logits_are_those_of_a_2", got=f"{eps:g}", want="1e-05") + reread(9)
    raise AssertionError(say("judge.what_problem", what=what, problem=problem))


@graded
def test_wrapper_shapes_and_values(plan, evidence, run):
    """Logits equal the judge's MiniGPT with the same hyper-parameters and the judge's weights."""
    rec = need(evidence, GptShapes, run, what="MiniGPTWithWeightTying" + say("judge.shape_flow"))
    cases = rec.get(GptShapes.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["shapes"]), say(
        "judge.malformed_record", name="gpt_shapes"
    )
    for c, got in zip(plan["gpt"]["shapes"], cases, strict=True):
        cfg, ids = c["cfg"], c["ids"]
        args = ", ".join(f"{k}={v}" for k, v in cfg.items())
        key = "judge.shapes.gpt_case" if c["gain"] == 1.0 else "judge.shapes.gpt_case_tiny"
        what = say(key, args=args, shape=tuple(ids.shape))
        got = entry(got, what)
        shapes = _judge_wrapper_case(cfg, got, ids, c["values"], what, gain=c["gain"])
        d = shapes["token_embed.weight"][1]
        label = say("judge.what_problem", what=what, problem="token_embed(input_ids)")
        hidden = plain_tensor(got, ForwardCase.hidden, shape=(*ids.shape, d), dtype=torch.float32, what=label)
        table = judge_model(cfg, shapes, c["values"], gain=c["gain"]).token_embed.weight
        problem = lookup_problem(hidden, table, ids, language=language())
        assert problem is None, say("judge.what_problem", what=what, problem=problem)


@graded
def test_wrapper_float64(plan, evidence, run):
    """After .to(torch.float64) the logits are float64 and still the judge's MiniGPT's."""
    p = plan["gpt"]
    rec = need(evidence, GptFloat64, run, what="MiniGPTWithWeightTying" + say("suite.to_torch_float64"))
    what = "MiniGPTWithWeightTying" + say("suite.after_to_torch_float64")
    _judge_wrapper_case(
        p["cfg"], rec, p["ids"], p["values"]["float64"], what, dtype=torch.float64, tables=(p["tables"]["float64"],)
    )
