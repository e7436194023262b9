"""Trusted: hidden suite, shape flow: (B, T) -> (B, T, D) -> (B, T, V), plain tensors with the right values."""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.diagnosis import TOL, TOL64, close, logits_problem, lookup_problem, reread
from autograder.graders.weight_tying.judge.models import judge_logits
from autograder.graders.weight_tying.judge.reference import judge_model, layer_norm_eps, skipped_part, tied_lm_logits
from autograder.graders.weight_tying.judge.sealed import need
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


def _entry_with_matmul_hint(record, what):
    try:
        return entry(record, what)
    except EvidenceError as exc:
        text = str(exc)
        if "cannot be multiplied" in text or "size mismatch" in text or "must match the size" in text:
            text += (
                "\n-> transposed / wrong matmul: the head maps D-vectors to V scores with the (V, D) table" + reread(6)
            )
        raise EvidenceError(text) from None


def _logits(rec, b, t, v, dtype, what):
    """Logits as a plain tensor; a wrong last dimension is reported through logits_problem."""
    got = plain_tensor(rec, ForwardCase.logits, dtype=dtype, what=f"{what}: logits")
    assert got.dim() == 3 and tuple(got.shape[:2]) == (b, t), (
        f"{what}: logits have shape {tuple(got.shape)}, expected (B, T, V) = {(b, t, v)}"
    )
    return got


@graded
def test_tied_lm_shapes_and_values(plan, evidence, run):
    """E[ids] (B, T, D) and E[ids] @ E.T (B, T, V) for random B, T, V, D (B = 1 and T = 1 included)."""
    rec = need(evidence, LmShapes, run, what="TiedEmbeddingLM (shape flow)")
    cases = rec.get(LmShapes.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["lm"]["shapes"]), "malformed evidence for lm_shapes"
    problems = []
    for c, got in zip(plan["lm"]["shapes"], cases, strict=True):
        v, d = c["vocab_size"], c["embed_dim"]
        b, t = c["ids"].shape
        what = f"TiedEmbeddingLM(vocab_size={v}, embed_dim={d}) on input_ids of shape {(b, t)}"
        got = _entry_with_matmul_hint(got, what)
        table = plain_tensor(
            got, LmShapeCase.embed_weight, shape=(v, d), dtype=torch.float32, what=f"{what}: token_embed.weight"
        )
        assert close(table, c["W"], rtol=0, atol=0), f"{what}: writing into token_embed.weight in place did not take"
        head = plain_tensor(got, LmShapeCase.head_weight, dtype=torch.float32, what=f"{what}: lm_head.weight")
        assert tuple(head.shape) == (v, d), (
            f"{what}: lm_head.weight has shape {tuple(head.shape)}, expected (V, D) = {(v, d)}"
            + (": transposed (a Linear(V, D) head, or W.T stored)" if tuple(head.shape) == (d, v) else "")
            + reread(6)
        )
        hidden = plain_tensor(
            got, LmShapeCase.hidden, shape=(b, t, d), dtype=torch.float32, what=f"{what}: token_embed(input_ids)"
        )
        problem = lookup_problem(hidden, c["W"], c["ids"])
        assert problem is None, f"{what}: {problem}"
        logits = _logits(got, b, t, v, torch.float32, what)
        expected = tied_lm_logits(c["W"], c["ids"])  # (B, T, D) @ (D, V) -> (B, T, V)
        # Values follow the student's own head (identity is judged elsewhere), or the table itself.
        with_head = c["W"][c["ids"]] @ head.T
        if not (close(logits, expected, **TOL) or close(logits, with_head, **TOL)):
            problems.append(f"{what}: {logits_problem(logits, expected)}")
    _report(problems)


def _report(problems: list[str]) -> None:
    """Fail with the most telling problem: a recognised misconception beats 'wrong values'."""
    if problems:
        named = [p for p in problems if "wrong values" not in p]
        more = f" (and {len(problems) - 1} more case(s))" if len(problems) > 1 else ""
        raise AssertionError((named or problems)[0] + more)


@graded
def test_tied_lm_float64(plan, evidence, run):
    """After .to(torch.float64) the logits are float64 and still E[ids] @ E.T."""
    p = plan["lm"]
    rec = need(evidence, LmFloat64, run, what="TiedEmbeddingLM (.to(torch.float64))")
    b, t = p["ids"].shape
    what = "TiedEmbeddingLM after .to(torch.float64)"
    logits = _logits(rec, b, t, p["vocab_size"], torch.float64, what)
    table = p["W3"]
    expected = tied_lm_logits(table, p["ids"])
    problem = logits_problem(logits, expected, tol=TOL64)
    head = rec.get(LmFloat64.head_after_inplace)
    if problem is not None and "wrong values" in problem and type(head) is torch.Tensor:
        follows = head.shape == table.shape and close(head, table, rtol=0, atol=0)
        # A head that does not follow the table is the tie's mistake (parameter identity charges it), not the dtype's.
        assert follows, (
            f"{what}: the float64 logits were not checked because lm_head.weight does not follow the table written "
            f"into token_embed.weight (see the parameter identity tests)"
        )
    assert problem is None, f"{what}: {problem}"


def _judge_wrapper_case(cfg, got, ids, values, what, *, gain=1.0, dtype=torch.float32, tables=()):
    """The logits must be the judge's MiniGPT's (the sizes the student's state shows, the judge's weights);
    `tables`: judge_table seeds written into token_embed (a tied head follows; an untied one may not)."""
    b, t = ids.shape
    shapes = shape_dict(got, ForwardCase.state_shapes, what=f"{what}: model.minigpt.state_dict() shapes")
    logits = _logits(got, b, t, cfg["vocab_size"], dtype, what)
    tol = TOL if dtype == torch.float32 else TOL64
    settings = [dict(gain=gain, dtype=dtype)]
    for seed in tables:  # the tie is judged by parameter identity; here either kind of head may be right
        settings = [dict(dtype=dtype, table=seed, head_follows=f) for f in (True, False)]
    expected = [judge_logits(cfg, shapes, values, ids, **s) for s in settings]  # kept for the plan
    if any(logits_problem(logits, want, tol=tol) is None for want in expected):
        return shapes
    problem = logits_problem(logits, expected[0], block_size=cfg["block_size"], tol=tol)
    if problem is not None and "wrong values" in problem:
        model = judge_model(cfg, shapes, values, **settings[0])
        part = skipped_part(model, ids, logits, tol=tol)
        eps = None if part else layer_norm_eps(model, ids, logits, tol=tol)
        if part:
            problem = f"the logits are those of a MiniGPT forward that skips {part}: skips part of MiniGPT" + reread(9)
        elif eps is not None:
            problem = (
                f"the logits are those of a MiniGPT whose LayerNorm uses eps={eps:g} instead of MiniGPT's 1e-05: "
                f"LayerNorm eps (it decides the output when activations are small)" + reread(9)
            )
    raise AssertionError(f"{what}: {problem}")


@graded
def test_wrapper_shapes_and_values(plan, evidence, run):
    """Logits equal the judge's MiniGPT with the same hyper-parameters and the judge's weights."""
    rec = need(evidence, GptShapes, run, what="MiniGPTWithWeightTying (shape flow)")
    cases = rec.get(GptShapes.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["shapes"]), "malformed evidence for gpt_shapes"
    for c, got in zip(plan["gpt"]["shapes"], cases, strict=True):
        cfg, ids = c["cfg"], c["ids"]
        args = ", ".join(f"{k}={v}" for k, v in cfg.items())
        what = f"MiniGPTWithWeightTying({args}) on input_ids of shape {tuple(ids.shape)}"
        if c["gain"] != 1.0:
            what += " with tiny weights"
        got = entry(got, what)
        shapes = _judge_wrapper_case(cfg, got, ids, c["values"], what, gain=c["gain"])
        d = shapes["token_embed.weight"][1]
        hidden = plain_tensor(
            got, ForwardCase.hidden, shape=(*ids.shape, d), dtype=torch.float32, what=f"{what}: token_embed(input_ids)"
        )
        table = judge_model(cfg, shapes, c["values"], gain=c["gain"]).token_embed.weight
        problem = lookup_problem(hidden, table, ids)
        assert problem is None, f"{what}: {problem}"


@graded
def test_wrapper_float64(plan, evidence, run):
    """After .to(torch.float64) the logits are float64 and still the judge's MiniGPT's."""
    p = plan["gpt"]
    rec = need(evidence, GptFloat64, run, what="MiniGPTWithWeightTying (.to(torch.float64))")
    what = "MiniGPTWithWeightTying after .to(torch.float64)"
    _judge_wrapper_case(
        p["cfg"], rec, p["ids"], p["values"]["float64"], what, dtype=torch.float64, tables=(p["tables"]["float64"],)
    )
