"""The weight_tying hidden suite in-process: its shape, missing and forged evidence, hostile values.

Right and wrong submissions are the calibration corpus's job (test_calibration.py walks it in-process).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import torch

from autograder.graders.weight_tying.judge.reference import IdentityMemo
from autograder.graders.weight_tying.runner.evidence import RECORDS
from autograder.judge.plugin import run_suite
from autograder.kit import SOLUTIONS_DIR

SOLUTION = SOLUTIONS_DIR / "weight_tying.py"


@pytest.fixture(scope="module")
def solution_evidence(plan, collect_evidence):
    return collect_evidence(SOLUTION, plan)


def test_suite_has_five_areas_and_100_points(suite):
    areas = {area for *_, area in suite}
    expected = {"parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation"}
    assert areas == expected
    assert sum(pts for _, _, pts, _ in suite) == 100


def test_plan_is_deterministic_and_weights_only_loadable(spec):
    a, b = spec.make_plan(7), spec.make_plan(7)
    buf = io.BytesIO()
    torch.save(a, buf)
    loaded = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    torch.testing.assert_close(loaded["gpt"]["generate"][1]["state"], b["gpt"]["generate"][1]["state"])
    torch.testing.assert_close(loaded["lm"]["W1"], b["lm"]["W1"])
    other = spec.make_plan(8)["lm"]["W1"]
    assert other.shape != a["lm"]["W1"].shape or not torch.equal(other, a["lm"]["W1"])


def test_the_solution_gets_full_marks_in_process(plan, solution_evidence, judge, score):
    results = judge(plan, solution_evidence)
    assert {n: m for n, (ok, m) in results.items() if not ok} == {}
    assert score(results) == 100


@pytest.mark.slow
def test_full_marks_through_the_engines_pytest_plugin(plan, spec, solution_evidence):
    results, _ = run_suite(suite_dir=spec.suite_dir, plan=plan, evidence=solution_evidence, run={"status": "ok"})
    assert [r.output for r in results if not r.passed] == []
    assert sum(r.points for r in results) == 100 == sum(r.points for r in results if r.passed)


def test_missing_evidence_scores_zero_with_the_run_status(plan, judge, score):
    results = judge(plan, {}, {"status": "timeout"})
    assert score(results) == 0
    assert all("time limit" in msg for _, msg in results.values())


def test_error_records_show_the_students_exception(plan, collect_evidence, judge):
    source = SOLUTION.read_text().replace(
        "return self.lm_head(x)  # (B, T, D) -> (B, T, V): logits, no softmax", "raise RuntimeError('boom in forward')"
    )
    assert "boom in forward" in source
    results = judge(plan, collect_evidence(source, plan))
    ok, msg = results["test_tied_lm_shapes_and_values"]
    assert not ok and "boom in forward" in msg


def test_forged_evidence_earns_nothing(plan, solution_evidence, judge):
    forged = dict(solution_evidence)

    class Liar(torch.Tensor):
        pass

    # A tensor subclass (the channel refuses these anyway) and zeroed values both fail.
    rec = dict(forged["lm_identity"])
    rec["head_after_inplace"] = rec["head_after_inplace"].as_subclass(Liar)
    forged["lm_identity"] = rec
    grad = dict(forged["lm_grad"])
    grad["embed_grad"] = torch.zeros_like(grad["embed_grad"])
    forged["lm_grad"] = grad
    zeros = {
        k: {"first": torch.zeros_like(v["first"]), "second": torch.zeros_like(v["first"])}
        for k, v in forged["gpt_generate"]["cases"].items()
    }
    forged["gpt_generate"] = {"cases": zeros}
    results = judge(plan, forged)
    for test in (
        "test_tied_lm_head_is_the_embedding_parameter",
        "test_tied_lm_shared_gradient_is_sum_of_paths",
        "test_generate_greedy_within_block_size",
        "test_generate_greedy_past_block_size",
    ):
        assert not results[test][0], test


def test_runner_booleans_alone_earn_nothing(plan, spec, collect_evidence, judge):
    """A copied table that reports `head_is_embed=True` still fails: behaviour decides."""
    evidence = collect_evidence(spec.calibration_dir / "wrong" / "w02_clone_new_parameter.py", plan)
    lm = plan["lm"]
    forged = dict(evidence["lm_identity"], head_is_embed=True, unique_numel=lm["vocab_size"] * lm["embed_dim"])
    evidence["lm_identity"] = forged
    results = judge(plan, evidence)
    assert not results["test_tied_lm_head_is_the_embedding_parameter"][0]
    assert not results["test_tied_lm_counts_one_table"][0]


# ---------------------------------------------------------------- hostile evidence never crashes the judge

_JUNK = [
    None,
    "x",
    3,
    torch.zeros(1),
    torch.zeros(2, 3, dtype=torch.int64),
    {},
    [],
    {1: torch.zeros(1)},
    torch.full((2,), float("nan")),
    {"a": [1.5]},
]


def _mutations(evidence):
    """(label, evidence with one value replaced by junk), for every key one or two levels down."""
    k = 0
    for name, record in evidence.items():
        for key, value in record.items():
            k += 1
            yield f"{name}.{key}", {**evidence, name: {**record, key: _JUNK[k % len(_JUNK)]}}
            inner = value
            if isinstance(inner, dict) and inner and key != "state":
                inner = next(iter(inner.values())) if key == "cases" else inner
            elif isinstance(inner, list) and inner:
                inner = inner[0]
            if isinstance(inner, dict) and inner and set(inner) - {"error"}:
                for sub in list(inner)[:4]:
                    k += 1
                    patched = {**inner, sub: _JUNK[k % len(_JUNK)]}
                    if key == "cases" and isinstance(value, list):
                        new_value = [patched, *value[1:]]
                    elif key == "cases":
                        first = next(iter(value))
                        new_value = {**value, first: patched}
                    elif isinstance(value, list):
                        new_value = [patched, *value[1:]]
                    else:
                        new_value = patched
                    yield f"{name}.{key}.{sub}", {**evidence, name: {**record, key: new_value}}


# Reported for the instructor's eyes only; no point depends on them alone.
_UNJUDGED = {
    "param_names",
    "n_param_objects",
    "head_has_bias",
    "same_data_ptr",
    "logits",
    "loss",
    "head_after",
    "head_after_forward",
    "hidden",
    "embed_weight",
    "head_weight",
    "unique_numel",
}


@pytest.mark.slow
def test_hostile_evidence_fails_cleanly_never_crashes_the_judge(plan, suite, solution_evidence, judge):
    """Junk in any field makes tests fail with an AssertionError (a message), never a judge crash."""
    records = {r.NAME: r.__name__ for r in RECORDS}
    users = {
        name: {t for t, fn, _, _ in suite if cls in Path(fn.__code__.co_filename).read_text()}
        for name, cls in records.items()
    }
    seen, unjudged = 0, []
    for label, mutated in _mutations(solution_evidence):
        try:
            results = judge(plan, mutated, only=users[label.split(".")[0]])
        except Exception as exc:
            pytest.fail(f"junk in {label} crashed the judge: {type(exc).__name__}: {exc}")
        if all(ok for ok, _ in results.values()):
            unjudged.append(label)
        seen += 1
    assert seen > 60
    assert [u for u in unjudged if u.split(".")[-1] not in _UNJUDGED] == []


def test_identity_memo_computes_once_per_object_and_stays_bounded():
    memo, calls = IdentityMemo(size=2), []
    a, b, c = {"x": 1}, {"x": 1}, {"x": 2}

    def compute(tag):
        calls.append(tag)
        return len(calls)

    assert memo.get((a,), lambda: compute("a")) == memo.get((a,), lambda: compute("a")) == 1
    assert memo.get((b,), lambda: compute("b")) == 2  # equal but another object: its own entry
    memo.get((c,), lambda: compute("c"))  # evicts a, the oldest
    assert memo.get((a,), lambda: compute("a")) == 4
    assert calls == ["a", "b", "c", "a"]
