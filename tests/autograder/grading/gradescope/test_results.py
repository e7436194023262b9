"""Gradescope's results.json: ``--visibility`` holds back everything a student could learn before release."""

from __future__ import annotations

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.gradescope.results import VISIBILITIES, gradescope_results
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.protocol.said import Said

SPEC = get_assignment("weight_tying")


def _result() -> Result:
    """A mark below 100: one passing test (its name tells what the hidden suite checks) and one charge."""
    names = [name for name in SPEC.scheme.tests][:2]
    passed = TestOutcome(names[0], SPEC.scheme.tests[names[0]].points, SPEC.scheme.tests[names[0]].area, True)
    failed = TestOutcome(
        names[1],
        SPEC.scheme.tests[names[1]].points,
        SPEC.scheme.tests[names[1]].area,
        False,
        Finding(Said("judge.failed_your_code_raised", what="the head", text="ValueError: no")),
    )
    return rendered(Result(tests=[passed, failed], run=RunFacts(status="ok"), seed=7), SPEC)


@pytest.mark.parametrize("visibility", [v for v in VISIBILITIES if v != "visible"])
def test_a_held_back_result_shows_nothing_before_release_its_score_and_passing_tests_included(visibility):
    data = gradescope_results(_result(), visibility=visibility)
    assert data["visibility"] == visibility  # the top level: the score and the summary
    assert {t["status"] for t in data["tests"]} == {"passed", "failed"}
    assert [t["visibility"] for t in data["tests"]] == [visibility] * len(data["tests"])
    assert data["stdout_visibility"] == "hidden"


def test_a_visible_result_shows_every_entry_and_an_unknown_visibility_is_refused():
    data = gradescope_results(_result())
    assert data["visibility"] == "visible" and {t["visibility"] for t in data["tests"]} == {"visible"}
    with pytest.raises(ValueError, match="after_published"):
        gradescope_results(_result(), visibility="after_publish")
