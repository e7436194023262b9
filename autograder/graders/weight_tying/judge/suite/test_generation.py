"""Trusted: hidden suite, argmax generation: the exact greedy sequence on judge-chosen weights, past block_size."""

from __future__ import annotations

import pytest
import torch

from autograder.graders.weight_tying.diagnosis import generated_ids_problem, greedy_problem
from autograder.graders.weight_tying.judge.reference import DECODE_VARIANTS, IdentityMemo, decode, minigpt_from_state
from autograder.graders.weight_tying.runner.evidence import GenerateCase, GptGenerate
from autograder.judge.evidence import EvidenceError, entry, need, plain_tensor

AREA = "argmax generation"
# One judge model and greedy decode per plan case, shared by the tests that need it.
_DECODES = IdentityMemo()


def _decoded(case) -> dict:
    """{"model": the judge's MiniGPT on the plan's weights, "correct": its greedy sequence}."""

    def compute():
        model = minigpt_from_state(case["cfg"], case["state"])
        return {"model": model, "correct": decode(model, case["ids"], case["max_new_tokens"])[0]}

    return _DECODES.get((case,), compute)


def _variants(case) -> dict:
    """The judge's greedy sequence and each simulated misconception's, on the plan's weights.

    Only needed to name a mistake, so computed only for a wrong sequence (once per case).
    """
    done = _decoded(case)
    if "variants" not in done:
        model = done["model"]
        done["variants"] = {v: decode(model, case["ids"], case["max_new_tokens"], v)[0] for v in DECODE_VARIANTS}
    return done["variants"]


def _sequence(plan, evidence, run, name, key=GenerateCase.first):
    case = next(c for c in plan["gpt"]["generate"] if c["name"] == name)
    b, t = case["ids"].shape
    n = case["max_new_tokens"]
    what = f"generate(input_ids of shape {(b, t)}, max_new_tokens={n}) with block_size={case['cfg']['block_size']}"
    rec = need(evidence, GptGenerate, run, what="MiniGPTWithWeightTying.generate")
    cases = rec.get(GptGenerate.cases)
    if not isinstance(cases, dict) or name not in cases:
        raise EvidenceError(f"malformed evidence for {what}")
    try:
        got = entry(cases[name], what)
    except EvidenceError as exc:
        error = str(cases[name].get("error", "")) if isinstance(cases[name], dict) else ""
        if ("block_size" in error or "block size" in error or "position" in error) and "judge's weights" not in error:
            raise EvidenceError(
                f"{exc}\n-> no crop / wrong crop: feed only the last block_size tokens "
                f"(ids[:, -block_size:]) to the model at each step"
            ) from None
        raise
    seq = plain_tensor(got, key, what=f"{what}: the returned ids")
    problem = generated_ids_problem(seq, case["ids"], n, check_prompt=False)  # the tests judge the prompt
    if problem is not None:
        raise EvidenceError(f"{what}: {problem}")
    return case, seq, what


def _diagnose(seq, variants) -> str:
    labels = [
        name if "crop" not in name else f"no crop / {name}"
        for name, out in variants.items()
        if name != "correct" and torch.equal(seq, out)
    ]
    if labels:
        return "it matches a decoder with this mistake: " + " or ".join(labels)
    want = variants["correct"]
    rows_alike = all(torch.equal(seq[i, -3:], seq[0, -3:]) for i in range(1, seq.shape[0]))
    want_alike = all(torch.equal(want[i, -3:], want[0, -3:]) for i in range(1, seq.shape[0]))
    if seq.shape[0] > 1 and rows_alike and not want_alike:
        return "every row continues like row 0: batch rows not independent (.item() or row 0 used for the batch?)"
    return "it matches no greedy decoder: sampling instead of argmax, or a wrong position / crop / append"


def _check_greedy(plan, evidence, run, name):
    case, seq, what = _sequence(plan, evidence, run, name)
    want = _decoded(case)["correct"]
    t = case["ids"].shape[1]
    assert torch.equal(seq[:, :t], case["ids"]), f"{what}: the first T columns are not the prompt: prompt not preserved"
    if not torch.equal(seq, want):
        variants = _variants(case)
        step = int((seq != want).any(0).nonzero()[0]) - t + 1
        raise AssertionError(
            f"{what}: new tokens {seq[:, t:].tolist()}, expected the greedy (argmax) tokens {want[:, t:].tolist()}; "
            f"first difference at new token {step}: {_diagnose(seq, variants)}"
        )


@pytest.mark.area(AREA)
@pytest.mark.points(3)
def test_generate_returns_prompt_plus_int64_tokens(plan, evidence, run):
    """int64, shape (B, T + max_new_tokens), the prompt unchanged in front."""
    for case in plan["gpt"]["generate"]:
        _, seq, what = _sequence(plan, evidence, run, case["name"])
        t = case["ids"].shape[1]
        assert torch.equal(seq[:, :t], case["ids"]), (
            f"{what}: the first T columns are not the prompt: prompt not preserved"
        )
        assert bool(((seq >= 0) & (seq < case["cfg"]["vocab_size"])).all()), f"{what}: token ids outside [0, V)"


@pytest.mark.area(AREA)
@pytest.mark.points(4)
def test_generate_greedy_within_block_size(plan, evidence, run):
    """Exact greedy tokens while the context still fits in block_size."""
    _check_greedy(plan, evidence, run, "within_block")


@pytest.mark.area(AREA)
@pytest.mark.points(6)
def test_generate_greedy_past_block_size(plan, evidence, run):
    """Exact greedy tokens well past block_size: each step sees only the last block_size tokens."""
    _check_greedy(plan, evidence, run, "past_block")


@pytest.mark.area(AREA)
@pytest.mark.points(5)
def test_generate_is_deterministic_argmax(plan, evidence, run):
    """Two calls give the same greedy tokens (flat-ish next-token distributions expose sampling)."""
    for case in plan["gpt"]["generate"]:
        _, first, what = _sequence(plan, evidence, run, case["name"], GenerateCase.first)
        _, second, _ = _sequence(plan, evidence, run, case["name"], GenerateCase.second)
        problem = greedy_problem(first, first, again=second)
        assert problem is None, f"{what}: {problem}"
    _check_greedy(plan, evidence, run, "within_block")
