"""The weight_tying hidden suite in-process: its shape, missing and forged evidence, tricks that earn nothing.

Right and wrong submissions are the calibration corpus's job (test_corpus.py walks it in-process); every
leaf of the evidence is mutated in test_evidence.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.judge.reference import IdentityMemo
from autograder.graders.weight_tying.runner.evidence import RECORDS, GptGenerate, LmIdentity
from autograder.graders.weight_tying.runner.seal import resealed
from autograder.grading.judge.suite import Suite

SOLUTION = SOLUTIONS_DIR / "weight_tying.py"


@pytest.fixture(scope="module")
def solution_evidence(plan, collect_evidence):
    return collect_evidence(SOLUTION, plan)


def test_suite_has_five_areas_and_100_points(suite):
    areas = {area for *_, area in suite}
    expected = {"parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation"}
    assert areas == expected
    assert sum(pts for _, _, pts, _ in suite) == 100


def test_the_solution_gets_full_marks_in_process(plan, solution_evidence, judge, score):
    results = judge(plan, solution_evidence)
    assert {n: o.message() for n, o in results.items() if not o.passed} == {}
    assert score(results) == 100


def test_full_marks_through_the_engines_suite_runner_with_its_node_ids(plan, spec, solution_evidence):
    suite = Suite.load(spec.suite_dir, spec.scheme)
    try:
        results = list(suite.run(plan=plan, evidence=solution_evidence, run={"status": "ok"}))
    finally:
        suite.close()
    assert [r.message() for r in results if not r.passed] == []
    assert sum(r.points for r in results) == 100 == sum(r.points for r in results if r.passed)
    assert all(r.name.startswith("test_") and ".py::test_" in r.name for r in results)


def test_a_suite_that_disagrees_with_its_scheme_is_refused(tmp_path):
    from autograder.grading.marking import load_scheme

    (tmp_path / "marking.toml").write_text(
        '[areas]\n"a" = 3\n[tests]\ntest_x = { area = "a", points = 1, exercise = 1 }\n'
        'test_gone = { area = "a", points = 2, exercise = 1 }\n'
    )
    scheme = load_scheme(tmp_path / "marking.toml")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_a.py").write_text("def test_x(plan, evidence):\n    pass\n")
    with pytest.raises(ValueError, match="test_gone.*are not tests of"):
        Suite.load(suite, scheme)
    (suite / "test_a.py").write_text("def test_x(plan, request):\n    pass\n")
    with pytest.raises(ValueError, match="takes 'request'"):
        Suite.load(suite, scheme)
    (suite / "test_a.py").write_text("def test_x(plan):\n    pass\n\n\ndef test_y(plan):\n    pass\n")
    with pytest.raises(ValueError, match="test_y is not in"):
        Suite.load(suite, scheme)


def test_missing_evidence_is_owed_and_says_how_the_run_ended(plan, solution_evidence, judge, score):
    """A run stopped at its time limit before generate's record: generation's tests are owed at their points and
    say so; every other test still passes on the records that arrived (so the 0 of rule 6 does not hide it)."""
    evidence = {k: v for k, v in solution_evidence.items() if k != "gpt_generate"}
    results = judge(plan, evidence, {"status": "timeout"})
    missing = {n: o for n, o in results.items() if o.area == "argmax generation"}
    assert missing and all(not o.passed and o.finding.owed and "time limit" in o.message() for o in missing.values())
    assert all(o.passed for n, o in results.items() if n not in missing)
    assert score(results) == 100 - sum(o.points for o in missing.values())
    assert (
        "time limit"
        not in judge(plan, evidence, {"status": "memory"})["test_generate_greedy_within_block_size"].message()
    )


def test_error_records_show_the_students_exception(plan, collect_evidence, judge):
    source = SOLUTION.read_text().replace(
        "return self.lm_head(x)  # (B, T, D) -> (B, T, V): logits, no softmax", "raise RuntimeError('boom in forward')"
    )
    assert "boom in forward" in source
    results = judge(plan, collect_evidence(source, plan))
    outcome = results["test_tied_lm_shapes_and_values"]
    assert not outcome.passed and "boom in forward" in outcome.message() and outcome.finding.kind == "plain"


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
        k: {"first": torch.zeros_like(v["first"]), "second": torch.zeros_like(v["first"]), "delegated": []}
        for k, v in forged["gpt_generate"]["cases"].items()
    }
    forged["gpt_generate"] = {"cases": zeros}
    for rec in RECORDS:  # sealed again: the values themselves must fail, not only their seal
        forged[rec.NAME] = resealed(rec.NAME, forged[rec.NAME], rec)
    results = judge(plan, forged)
    for test in (
        "test_tied_lm_head_is_the_embedding_parameter",
        "test_tied_lm_shared_gradient_is_sum_of_paths",
        "test_generate_greedy_within_block_size",
        "test_generate_greedy_past_block_size",
    ):
        assert not results[test].passed, test


def test_runner_booleans_alone_earn_nothing(plan, spec, collect_evidence, judge):
    """A copied table that reports `head_is_embed=True` still fails: behaviour decides."""
    evidence = collect_evidence(spec.calibration_dir / "wrong" / "w02_clone_new_parameter.py", plan)
    lm = plan["lm"]
    forged = dict(evidence["lm_identity"], head_is_embed=True, unique_numel=lm["vocab_size"] * lm["embed_dim"])
    evidence["lm_identity"] = resealed("lm_identity", forged, LmIdentity)
    results = judge(plan, evidence)
    assert not results["test_tied_lm_head_is_the_embedding_parameter"].passed
    assert not results["test_tied_lm_counts_one_table"].passed


# ---------------------------------------------------------------- tricks earn nothing


def _without(path: Path, *lines: str) -> str:
    """The file's text with the given lines removed (each must be there)."""
    text = path.read_text()
    for line in lines:
        assert line in text, line
        text = text.replace(line, "")
    return text


def test_an_untied_wrapper_hiding_its_head_scores_no_more_than_one_that_does_not(
    plan, spec, collect_evidence, judge, score
):
    wrong = spec.calibration_dir / "wrong"
    hidden = score(judge(plan, collect_evidence(wrong / "w46_untied_hidden_head.py", plan)))
    honest = score(judge(plan, collect_evidence(wrong / "w42_untied_wrapper_bias.py", plan)))
    assert hidden <= honest < 100


def test_zeroing_final_norm_earns_nothing_for_a_forward_that_skips_layers(plan, spec, collect_evidence, judge, score):
    """Issue: all-zero logits on the model's own weights made the judge's rerun agree with a broken forward."""
    path = spec.calibration_dir / "wrong" / "w47_skips_blocks_zero_norm.py"
    trick = judge(plan, collect_evidence(path, plan))
    plain = judge(
        plan,
        collect_evidence(
            _without(
                path,
                "            self.minigpt.final_norm.weight.zero_()\n",
                "            self.minigpt.final_norm.bias.zero_()\n",
            ).replace(
                "with torch.no_grad():  # all-zero logits on the model's own weights, whatever forward skips\n", ""
            ),
            plan,
        ),
    )
    assert score(trick) <= score(plain) < 100
    assert trick["test_wrapper_shapes_and_values"].finding.names == "skips_minigpt"


@pytest.mark.parametrize("name", ["w44_delegated_generate.py", "w45_generate_calls_greedy_helper.py"])
def test_a_delegating_generate_scores_zero_for_generation(name, plan, spec, suite, collect_evidence, judge):
    results = judge(plan, collect_evidence(spec.calibration_dir / "wrong" / name, plan))
    generation = {t for t, _, _, area in suite if area == "argmax generation"}
    assert len(generation) == 5  # prompt + int64, within and past block_size, deterministic, dropout off
    for test in generation:
        outcome = results[test]
        assert not outcome.passed and outcome.finding.names == "delegated_generate", outcome.message()
        assert "MiniGPT.generate" in outcome.message() or "sampling.greedy" in outcome.message(), outcome.message()
        zh = outcome.message("zh")  # round 10: one colon, the case then what was found, no heading said again
        found = zh.split(") 在运行中调用了库函数", 1)  # round 23: the call is the subject
        assert len(found) == 2 and "：" not in found[1].split("。", 1)[0], zh
    assert all(o.passed for t, o in results.items() if t not in generation)


def test_a_bias_on_the_head_explains_the_one_position_case(plan, spec, collect_evidence, judge):
    """One row of logits cannot show a bias (its difference is one vector): where the other cases name the
    bias, that case is the bias's too, and the shapes test is charged to it, not left without a cause."""
    results = judge(plan, collect_evidence(spec.calibration_dir / "wrong" / "w05_head_bias.py", plan))
    shapes = results["test_tied_lm_shapes_and_values"]
    assert not shapes.passed and shapes.finding.names == "head_bias", shapes.message()
    assert any(c["ids"].shape == (1, 1) for c in plan["lm"]["shapes"])  # the case this is about is planned


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


@pytest.mark.parametrize("where", ["record", "case"])
def test_a_generate_stopped_at_its_budget_says_which_section_to_reread(where, plan, solution_evidence, judge):
    """Issue 48 (round 11): every failure of generate points at the section to reread but the one a student with an
    endless loop sees ("… was stopped … The other tests still ran"). Stopped as a whole record or in one case, the
    message now ends with section 9, in both languages; the mark is the same as before (the points are lost)."""
    from autograder.protocol.said import render as render_said

    evidence = dict(solution_evidence)
    stopped = {"error": "TimeBudgetExceeded: generate", "stopped": 15.0}
    if where == "record":
        evidence["gpt_generate"] = stopped
    else:
        cases = dict.fromkeys(evidence["gpt_generate"][GptGenerate.cases], stopped)
        evidence["gpt_generate"] = resealed("gpt_generate", {GptGenerate.cases: cases}, GptGenerate)
    outcome = judge(plan, evidence)["test_generate_greedy_within_block_size"]
    assert not outcome.passed and not outcome.finding.owed
    assert outcome.finding.said.first().key == "judge.did_not_finish_within"
    en, zh = (render_said(outcome.finding.said, language) for language in ("en", "zh"))
    assert "was stopped" in en and "(reread section 9," in en, en
    assert "已被终止" in zh and "请重读第 9 节" in zh, zh
