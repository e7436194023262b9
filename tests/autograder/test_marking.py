"""The marking scheme and its rule: one charge per root cause, knock-ons free, the student's text never read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.grading.marking import load_scheme, scheme_for
from autograder.grading.result import Result, TestOutcome
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")
SCHEME = scheme_for(SPEC)


def _outcomes(failing: dict[str, str]) -> list[tuple[str, float, str, bool, str]]:
    return [(t.name, t.points, t.area, t.name not in failing, failing.get(t.name, "")) for t in SCHEME.tests.values()]


def _mark(failing: dict[str, str]) -> float:
    outcomes = _outcomes(failing)
    charged = SCHEME.charges(outcomes)
    return round(sum(points - charged[name] for name, points, *_ in outcomes), 6)


def test_the_suite_markers_are_the_scheme():
    suite = {t.name: (t.points, t.area) for t in InProcessGrader(SPEC).tests}
    assert suite == {t.name: (t.points, t.area) for t in SCHEME.tests.values()}
    assert SCHEME.max_score == 100


COPY = "lm_head.weight did not change: copied table or untied head"


def test_a_misconception_is_charged_once_per_exercise_whatever_number_of_tests_it_fails():
    cost = sum(SCHEME.misconceptions["two_tables"].costs.values())
    one = _mark({"test_tied_lm_head_is_the_embedding_parameter": "TiedEmbeddingLM: " + COPY})
    three = _mark(
        {
            "test_tied_lm_head_is_the_embedding_parameter": COPY,
            "test_tied_lm_tie_survives_state_dict_reload": COPY,
            "test_tied_lm_tie_survives_to_float64": COPY,
        }
    )
    assert one == three == 100 - cost
    both = _mark(
        {"test_tied_lm_head_is_the_embedding_parameter": COPY, "test_wrapper_head_is_the_embedding_parameter": COPY}
    )
    assert both == 100 - 2 * cost  # each exercise missed the lesson


def test_a_knock_on_costs_nothing_when_its_root_cause_is_named_and_its_points_otherwise():
    knock = "the gradient was not checked because forward does not compute E[ids] @ E.T (see the shape flow tests)"
    named = {"test_tied_lm_shapes_and_values": "rows capped: max_norm on the embedding"}
    with_knock = {**named, "test_tied_lm_shared_gradient_is_sum_of_paths": knock}
    assert _mark(with_knock) == _mark(named) == 100 - SCHEME.misconceptions["max_norm"].costs["shape flow"]
    unnamed = {"test_tied_lm_shapes_and_values": "wrong values", "test_tied_lm_shared_gradient_is_sum_of_paths": knock}
    assert _mark(unnamed) == 100 - 6 - 6  # both tests' own points: nothing explains the failure


def test_the_students_own_text_never_names_a_misconception():
    raised = "TiedEmbeddingLM (backward) failed: your code raised ValueError: loss not mean, copied table"
    assert SCHEME.named(raised) is None
    forged = "X failed: your code raised ValueError: boom\n=> no crop"  # evidence.entry defuses the hint marker
    assert SCHEME.named(forged) is None
    hinted = "X failed: your code raised RuntimeError: mat1 and mat2 shapes\n-> transposed / wrong matmul"
    assert SCHEME.named(hinted).name == "transposed"


def test_a_submission_that_passes_nothing_gets_nothing():
    everything = {name: COPY for name in SCHEME.tests}
    assert _mark(everything) == 0


def test_covers_explains_a_consequence_and_goes_one_way(tmp_path):
    gradient = "lm_head.weight.grad is another tensor: .data sharing (or an untied/copied table) (only one path)"
    untied = {"test_wrapper_head_is_the_embedding_parameter": COPY}
    both = {**untied, "test_wrapper_shared_gradient_is_sum_of_paths": gradient}
    assert _mark(both) == _mark(untied)  # .data sharing and copied table: one root cause, one charge
    text = Path(SCHEME.path).read_text(encoding="utf-8")
    cyclic = text.replace('covers = ["only_one_path"]', 'covers = ["only_one_path", "data_sharing"]', 1)
    (tmp_path / "marking.toml").write_text(cyclic, encoding="utf-8")
    with pytest.raises(ValueError, match="cover each other"):
        load_scheme(tmp_path / "marking.toml")


def test_an_area_whose_tests_do_not_add_up_is_refused(tmp_path):
    text = Path(SCHEME.path).read_text(encoding="utf-8").replace('"argmax generation" = 18', '"argmax generation" = 20')
    (tmp_path / "marking.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="argmax generation"):
        load_scheme(tmp_path / "marking.toml")


def test_a_charge_survives_the_wire_round_trip_and_reaches_gradescope_json():
    tests = [
        TestOutcome("a.py::test_x", 6, "shape flow", False, "knock-on", charged=0.0),
        TestOutcome("a.py::test_y", 4, "shape flow", True, "", charged=1.0),
        TestOutcome("a.py::test_z", 2, "shape flow", False, "plain"),
    ]
    result = Result(tests=tests, run=None, output="x")
    back = Result.from_wire(json.loads(json.dumps(result.to_wire())))
    assert [t["score"] for t in result.to_gradescope()["tests"]] == [6.0, 3.0, 0.0]
    assert (back.score, back.areas) == (result.score, result.areas) == (9.0, {"shape flow": (9.0, 12.0)})


def test_an_areas_mark_never_goes_below_0_and_no_test_loses_more_than_its_points():
    """Rule 5: costs beyond an area's points stop at 0 for the area; the other areas keep theirs."""
    area = "argmax generation"
    points = SCHEME.areas[area]
    tests = [t.name for t in SCHEME.tests.values() if t.area == area]
    costs = [m.costs[area] for m in (SCHEME.misconceptions[n] for n in ("delegated_generate", "sampling"))]
    assert sum(costs) > points  # the two costs together are more than the area is worth
    failing = {tests[0]: "delegated generate", tests[1]: "sampling instead of argmax"}
    failing |= {name: "wrong tokens" for name in tests[2:]}  # and the area's other tests fail unexplained
    outcomes = _outcomes(failing)
    charged = SCHEME.charges(outcomes)
    assert all(0 <= charged[name] <= pts for name, pts, *_ in outcomes), charged
    assert sum(charged[name] for name in tests) == points  # the area's mark: 0, not below
    assert _mark(failing) == 100 - points  # every other area keeps all its points
    one = {tests[0]: "sampling instead of argmax"}  # a cost below the area's points is charged whole
    assert _mark(one) == 100 - SCHEME.misconceptions["sampling"].costs[area]
