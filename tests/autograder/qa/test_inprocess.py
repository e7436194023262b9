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
    assert score == 100, {t: o.message() for t, o in results.items() if not o.passed}
    score, results = grader.grade("x = 1\n", plan, round_trip=False)
    assert score == 0
    assert all("does not define" in o.message() for o in results.values())


def test_records_go_through_the_channel_round_trip(grader, plan):
    spec = get_assignment("weight_tying")
    evidence = grader.evidence(spec.solution_path, plan)
    assert set(evidence) >= {"lm_identity", "gpt_generate"}
    only = grader.judge(plan, evidence, only={"test_tied_lm_head_is_the_embedding_parameter"})
    assert list(only) == ["test_tied_lm_head_is_the_embedding_parameter"] and only[next(iter(only))].passed


def test_a_sweep_scores_by_the_pipelines_own_marking_step(grader, plan, monkeypatch):
    import autograder.grading.pipeline as pipeline

    spec = get_assignment("weight_tying")
    results = grader.judge(plan, grader.evidence("x = 1\n", plan, round_trip=False))
    first = next(iter(results))
    results[first] = TestOutcome(results[first].name, results[first].points, results[first].area, True)  # one passes
    seen = []
    real = pipeline.mark
    monkeypatch.setattr(pipeline, "mark", lambda result, spec: seen.append(len(result.tests)) or real(result, spec))
    score = grader.score(results)
    assert seen == [len(results)]  # one step, one place: no copy of the scheme's arithmetic here
    assert score == real(Result(tests=list(results.values()), run=None), spec).score
