"""autograder.qa.inprocess: the engine's path minus the sandbox, for the kit's own files."""

from __future__ import annotations

import pytest

from autograder.graders import get_assignment
from autograder.grading.result import Result, TestOutcome
from autograder.qa.inprocess import InProcessGrader


@pytest.fixture(scope="module")
def grader():
    return InProcessGrader(get_assignment("weight_tying"))


@pytest.fixture(scope="module")
def plan():
    return get_assignment("weight_tying").make_plan(5)


def test_the_suite_is_loaded_with_its_points_and_areas(grader):
    assert grader.max_score == 100
    assert {t.area for t in grader.tests} >= {"parameter identity", "argmax generation"}


def test_the_solution_gets_full_marks_and_a_source_without_the_classes_none(grader, plan):
    spec = get_assignment("weight_tying")
    score, results = grader.grade(spec.solution_path, plan)
    assert score == 100, {t: m for t, (ok, m) in results.items() if not ok}
    score, results = grader.grade("x = 1\n", plan, round_trip=False)
    assert score == 0
    assert all("does not define" in message for _, message in results.values())


def test_records_go_through_the_channel_round_trip(grader, plan):
    spec = get_assignment("weight_tying")
    evidence = grader.evidence(spec.solution_path, plan)
    assert set(evidence) >= {"lm_identity", "gpt_generate"}
    only = grader.judge(plan, evidence, only={"test_tied_lm_head_is_the_embedding_parameter"})
    assert list(only) == ["test_tied_lm_head_is_the_embedding_parameter"] and only[next(iter(only))][0]


def test_a_sweep_scores_by_the_pipelines_own_marking_step(grader, plan, monkeypatch):
    import autograder.grading.pipeline as pipeline

    spec = get_assignment("weight_tying")
    results = grader.judge(plan, grader.evidence("x = 1\n", plan, round_trip=False))
    results[next(iter(results))] = (True, "")  # one test passes, the rest fail as a blank hand-in does
    seen = []
    real = pipeline.mark
    monkeypatch.setattr(pipeline, "mark", lambda result, spec: seen.append(len(result.tests)) or real(result, spec))
    score = grader.score(results)
    assert seen == [len(results)]  # one step, one place: no copy of the scheme's arithmetic here
    tests = [TestOutcome(t.name, t.points, t.area, *results[t.name]) for t in grader.tests]
    assert score == real(Result(tests=tests, run=None), spec).score
