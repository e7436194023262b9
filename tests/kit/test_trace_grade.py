"""scripts/trace_grade.py: one grade followed call by call; showing a graded result reads top to bottom and never
calls into the marking (issue 47, item 6)."""

from __future__ import annotations

import types

import pytest

from autograder.graders import get_assignment
from autograder.grading import pipeline
from autograder.grading.result import RunFacts
from autograder.qa.calibrate import calibration_files
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")
MARKING = "autograder.grading.marking"


def _module(name: str, source: str, **names) -> types.ModuleType:
    """A module of the kit's name space made here, so that its calls count as the kit's."""
    module = types.ModuleType(name)
    module.__dict__.update(names)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def test_the_layering_is_the_import_graph_imports_in_functions_included(script):
    trace_grade = script("trace_grade")
    higher = trace_grade.above(trace_grade.import_graph())
    assert "autograder.cli.grade" in higher[MARKING]  # through a lazy import in a function
    assert "autograder.grading.rendering" in higher[MARKING] and MARKING not in higher["autograder.grading.rendering"]
    assert "autograder.grading.result" in higher["autograder.grading.terminal"]  # through readable and shown
    assert "autograder.protocol.said" not in higher[MARKING]


def test_a_visit_back_up_is_counted_and_neither_a_comprehension_nor_a_generator_taken_up_again_is_a_call(script):
    trace_grade = script("trace_grade")
    low = _module("autograder._low", "def word(x):\n    return str(x)\n")
    high = _module(
        "autograder._high",
        "def words(n):\n    first = low.word(0)\n    return [first] + [low.word(i) for i in range(1, n)]\n"
        "def each(n):\n    for i in range(n):\n        yield low.word(i)\n",
        low=low,
    )
    for call in (lambda: high.words(4), lambda: list(high.each(4))):
        _, trace = trace_grade.follow(call, start=None)
        assert [v.module for v in trace.visits] == ["autograder._high", "autograder._low"]  # not high, low, high...
    back = trace_grade.Visit("autograder._high", "words", "showing", True)
    assert trace_grade.Trace([back]).figures("showing") == (1, 1, 1) and trace_grade.Trace([back]).figures() == (
        1,
        1,
        1,
    )
    assert trace_grade.Trace([back]).figures("grading") == (0, 0, 0)
    with pytest.raises(ValueError, match="phase 'later'"):
        trace_grade.follow(lambda: None, start=None, phase="later")


@pytest.fixture(scope="module")
def graded():
    """A hand-in with a misconception and a crash, graded in this process to the pipeline's own step 8."""
    path = calibration_files(SPEC.calibration_dir)["wrong/w01_deepcopy_head.py"][0]
    grader = InProcessGrader(SPEC)
    plan = SPEC.make_plan(7)
    tests = list(grader.judge(plan, grader.evidence(path, plan)).values())
    run = RunFacts(status="ok", required_names=list(SPEC.required_names), defined=list(SPEC.required_names))
    submission = pipeline.Submission("py", path.read_text(encoding="utf-8"), path.name)
    return path, pipeline.finish(tests, run, seed=7, seconds=1.0, submission=submission, spec=SPEC)


@pytest.mark.parametrize("command", ["grade FILE", "grade FILE --json"])
def test_showing_a_graded_result_reads_top_to_bottom_and_never_calls_into_the_marking(script, graded, command):
    from autograder.cli import grade
    from autograder.outputs.roster import display_name
    from autograder.outputs.table import render

    trace_grade = script("trace_grade")
    path, result = graded
    assert result.shown_in().charges  # something to show: a misconception's charge at least
    # what `grade FILE` shows (the terminal's table), or what `grade FILE --json` prints (Gradescope's JSON)
    table = lambda: render(result, title=display_name(str(path)))  # noqa: E731 - as cli.grade._grade_one shows it
    show = table if command == "grade FILE" else (lambda: grade._gradescope(result))
    _, trace = trace_grade.follow(show, start=None, phase="showing")
    assert trace.marking_when_showing() == []
    shown = {v.module for v in trace.of("showing")}
    assert not shown & {MARKING, "autograder.grading.rendering", "autograder.grading.titles"}, shown
    assert trace.figures("showing")[2] <= 2, trace_grade.report(trace, path, listing=True)


BACK_UP = 10  # one grade, followed from cli/grade.py's run, goes back up at most this often (issue 47)


@pytest.mark.e2e
@pytest.mark.parametrize("which", ["solution", "wrong/w01_deepcopy_head.py"])
def test_one_grade_followed_from_run_reads_top_to_bottom_and_shows_its_result_without_the_marking(
    script, capsys, which
):
    """Followed from ``cli.grade.run`` with the default executor (the pool): it calls down, its callees do their
    whole job and return; at most ``BACK_UP`` visits climb back up the import graph, while grading and showing."""
    trace_grade = script("trace_grade")
    solution = which == "solution"
    path = trace_grade.SOLUTION if solution else calibration_files(SPEC.calibration_dir)[which][0]
    status, trace = trace_grade.follow_grade(path, "weight_tying", ["--seed", "7"])
    shown = capsys.readouterr().out
    assert status == 0 and ("Score: 100 / 100" in shown if solution else "copied table" in shown), shown
    assert trace.of("grading") and trace.of("showing")
    assert trace.marking_when_showing() == []
    assert trace.figures()[2] <= BACK_UP, trace_grade.report(trace, path, listing=True)
    assert trace.figures("showing")[2] <= 4, trace_grade.report(trace, path, listing=True)
