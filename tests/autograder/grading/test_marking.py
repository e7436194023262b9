"""The marking scheme and its rule (the top of marking.toml), each clause tested from its statement: findings are
values, a misconception is charged once per exercise and never more than the tests it fails, a knock-on is free
only behind a charged misconception of its exercise, and the charges sum to the points lost."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Failed, Finding, finding_of
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.marking import MISCONCEPTION, OWN, apply_marking, breakdown, load_scheme
from autograder.grading.result import Result, TestOutcome
from autograder.protocol.said import Said, verbatim
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")
SCHEME = SPEC.scheme
COPY = Finding(Said("diag.tie.copied"), names="two_tables")
PLAIN = Finding(Said("judge.failed_your_code_raised", what="x", text="ValueError: boom"))


def _outcomes(failing: dict[str, Finding]) -> list[TestOutcome]:
    return [
        TestOutcome(f"t.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in SCHEME.tests.values()
    ]


def _marked(failing: dict[str, Finding]) -> list[TestOutcome]:
    return apply_marking(Result(tests=_outcomes(failing), run=None), SCHEME).tests


def _mark(failing: dict[str, Finding]) -> float:
    return round(sum(t.score for t in _marked(failing)), 6)


def _points(*names: str) -> float:
    return sum(SCHEME.tests[n].points for n in names)


def test_the_suite_is_the_scheme():
    suite = {t.function: (t.points, t.area) for t in InProcessGrader(SPEC).tests}
    assert suite == {t.name: (t.points, t.area) for t in SCHEME.tests.values()}
    assert SCHEME.max_score == 100


def test_a_misconception_is_charged_once_per_exercise_never_more_than_its_failing_tests():
    identity = SCHEME.misconceptions["two_tables"].costs["parameter identity"]
    one = "test_tied_lm_head_is_the_embedding_parameter"
    three = (one, "test_tied_lm_tie_survives_state_dict_reload", "test_tied_lm_tie_survives_to_float64")
    assert _mark({one: COPY}) == 100 - min(identity, _points(one))
    assert _mark(dict.fromkeys(three, COPY)) == 100 - min(identity, _points(*three))
    wrapper = "test_wrapper_head_is_the_embedding_parameter"
    both = _mark({one: COPY, wrapper: COPY})  # each exercise missed the lesson: charged in each
    assert both == 100 - min(identity, _points(one)) - min(identity, _points(wrapper))


def test_a_passing_test_is_never_charged_and_a_charge_never_leaves_its_exercise():
    marked = _marked({"test_tied_lm_head_is_the_embedding_parameter": COPY})
    assert all(t.charged == 0 for t in marked if t.passed)
    assert all(t.charged == 0 for t in marked if SCHEME.exercise(t.name) == 2)


def test_the_charges_never_exceed_a_tests_points_so_no_area_goes_below_zero():
    rng = random.Random(1)
    names = list(SCHEME.tests)
    kinds = [COPY, PLAIN, Finding(Said("diag.tie.shape", got="x", want="y"), names="transposed")]
    for _ in range(300):
        failing = {n: rng.choice(kinds) for n in rng.sample(names, rng.randint(1, len(names) - 1))}
        for n in rng.sample(list(failing), min(3, len(failing))):  # some knock-ons, some on passing tests
            failing[n] = Finding(Said("note.the_count_was_not_checked_because"), waits_on=rng.choice(names))
        marked = _marked(failing)
        assert all(0 <= t.charged <= t.points for t in marked), failing
        areas = Result(tests=marked, run=None).areas
        assert all(got >= 0 for got, _ in areas.values())
        lost = sum(c.points for c in breakdown(marked, SCHEME))
        assert round(lost, 6) == round(100 - sum(t.score for t in marked), 6)


def test_a_knock_on_is_free_only_behind_a_charged_misconception_of_its_exercise():
    shapes, grad = "test_tied_lm_shapes_and_values", "test_tied_lm_shared_gradient_is_sum_of_paths"
    knock = Finding(Said("note.the_gradient_was_not_checked_because_2"), waits_on=shapes)
    max_norm = Finding(Said("diag.lookup.max_norm", cap="1"), names="max_norm")
    cost = min(SCHEME.misconceptions["max_norm"].costs["shape flow"], _points(shapes))
    assert _mark({shapes: max_norm, grad: knock}) == _mark({shapes: max_norm}) == 100 - cost
    # behind a failure nobody named, the knock-on costs its own points
    assert _mark({shapes: PLAIN, grad: knock}) == 100 - _points(shapes, grad)
    # waiting on a test that passed (a forward that misbehaves only where the gradient is measured)
    assert _mark({grad: knock}) == 100 - _points(grad)
    # waiting on a test of the other exercise
    other = Finding(Said("note.the_gradient_was_not_checked_because_2"), waits_on=shapes)
    wrapper = "test_wrapper_shared_gradient_is_sum_of_paths"
    assert _mark({shapes: max_norm, wrapper: other}) == 100 - cost - _points(wrapper)
    # even when the misconception costs less in that test's area than the test is worth
    skips = Finding(Said("misconception.skips_minigpt"), names="skips_minigpt")
    assert SCHEME.misconceptions["skips_minigpt"].costs["gradient accumulation"] < _points(wrapper)
    skips_cost = min(SCHEME.misconceptions["skips_minigpt"].costs["shape flow"], _points(shapes))
    assert _mark({shapes: skips, wrapper: other}) == 100 - skips_cost - _points(wrapper)


def test_evidence_the_runner_owed_and_the_judges_own_failure_cost_their_points():
    owed = Finding(
        Said("judge.no_evidence_for", what="x", why=Said("judge.the_experiment_did_not_report_see")), owed=True
    )
    internal = Finding(Said("judge.the_grader_hit_an_internal_error", what="E"), internal=True)
    one = "test_wrapper_dropout_honoured"
    assert _mark({one: owed}) == _mark({one: internal}) == _mark({one: PLAIN}) == 100 - _points(one)
    marked = _marked({one: owed})
    assert [t.charged_to for t in marked if not t.passed] == [OWN]


def test_covers_makes_a_consequence_carry_the_cause_and_goes_one_way(tmp_path):
    head, grad = "test_wrapper_head_is_the_embedding_parameter", "test_wrapper_shared_gradient_is_sum_of_paths"
    one_path = Finding(Said("diag.grad.one_path.head"), names="only_one_path")
    marked = _marked({head: COPY, grad: one_path})
    assert {t.charged_to for t in marked if not t.passed} == {MISCONCEPTION + "two_tables"}
    text = Path(SCHEME.path).read_text(encoding="utf-8")
    cyclic = text.replace('covers = ["only_one_path"]', 'covers = ["only_one_path", "data_sharing"]', 1)
    (tmp_path / "marking.toml").write_text(cyclic, encoding="utf-8")
    with pytest.raises(ValueError, match="cover each other"):
        load_scheme(tmp_path / "marking.toml")


def test_a_submission_that_passes_nothing_gets_nothing():
    assert _mark(dict.fromkeys(SCHEME.tests, COPY)) == 0


def test_an_area_whose_tests_do_not_add_up_is_refused(tmp_path):
    text = Path(SCHEME.path).read_text(encoding="utf-8").replace('"argmax generation" = 18', '"argmax generation" = 20')
    (tmp_path / "marking.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="argmax generation"):
        load_scheme(tmp_path / "marking.toml")


def test_the_students_text_is_a_parameter_never_a_finding():
    """What a student's code raised, quoted in a message, names nothing: only message ids do."""
    raised = Said("judge.failed_your_code_raised", what="loss", text="ValueError: loss not mean, copied table")
    assert finding_of(AssertionError(raised)).names is None
    assert finding_of(AssertionError(verbatim("transposed") + raised)).names is None
    assert finding_of(Failed(Said("diag.tie.copied"))).names == "two_tables"
    assert finding_of(AssertionError("copied table")).internal  # a suite that fails with words is the grader's bug


IDENTITY = "test_tied_lm_head_is_the_embedding_parameter"


def test_marks_survive_the_wire_and_reach_gradescope_json_adding_up():
    marked = _marked(
        {"test_tied_lm_head_is_the_embedding_parameter": COPY, "test_tied_lm_tie_survives_to_float64": COPY}
    )
    result = Result(tests=marked, run=None, output="x")
    back = Result.from_wire(json.loads(json.dumps(result.to_wire())))
    assert (back.score, back.areas) == (result.score, result.areas)
    assert [(t.charged, t.charged_to) for t in back.tests] == [(t.charged, t.charged_to) for t in result.tests]
    data = gradescope_results(result, SPEC)
    assert round(sum(t["score"] for t in data["tests"]), 6) == data["score"] == result.score
    assert all((t["status"] == "passed") == (t["score"] == t["max_score"]) for t in data["tests"])

    # a test the charge covers at no cost of its own (a knock-on) says so, never "-0" or "扣 0 分" (issue 48)
    knock = Finding(Said("note.the_gradient_was_not_checked_because_2"), waits_on=IDENTITY)
    gradients = ("test_tied_lm_shared_gradient_is_sum_of_paths", "test_tied_lm_sgd_step_updates_table_once")
    marked = _marked({IDENTITY: COPY, **dict.fromkeys(gradients, knock)})  # 9 points, the charge costs 6
    for language, covered, never in (("en", "not charged again", "-0 /"), ("zh", "不再重复扣", "扣 0 分")):
        data = gradescope_results(Result(tests=marked, run=None, output="x", language=language), SPEC)
        output = next(t["output"] for t in data["tests"] if t["status"] == "failed")
        assert covered in output and never not in output, output


def test_an_areas_mark_never_goes_below_0_and_no_test_loses_more_than_its_points():
    """Rule 2 and 5: costs beyond an area's points stop at 0 for the area; the other areas keep theirs."""
    area = "argmax generation"
    points = SCHEME.areas[area]
    tests = [t.name for t in SCHEME.tests.values() if t.area == area]
    costs = [SCHEME.misconceptions[n].costs[area] for n in ("delegated_generate", "sampling")]
    assert sum(costs) > points  # the two costs together are more than the area is worth
    failing = {
        tests[0]: Finding(Said("judge.gen.delegated", names="x"), names="delegated_generate"),
        tests[1]: Finding(Said("diag.generate.sampling"), names="sampling"),
    }
    failing |= dict.fromkeys(tests[2:], PLAIN)  # and the area's other tests fail unexplained
    marked = _marked(failing)
    assert all(0 <= t.charged <= t.points for t in marked), [(t.name, t.charged) for t in marked]
    assert sum(t.charged for t in marked if t.area == area) == points  # the area's mark: 0, not below
    assert _mark(failing) == 100 - points  # every other area keeps all its points
    one = {tests[0]: failing[tests[1]]}  # a cost below the test's points is charged whole
    assert _mark(one) == 100 - min(SCHEME.misconceptions["sampling"].costs[area], SCHEME.tests[tests[0]].points)
