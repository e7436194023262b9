"""The one result model: the run summary students read first, and the Gradescope JSON it becomes."""

from __future__ import annotations

from autograder.grading.result import CELLS_COUNTED, Result, RunFacts, TestOutcome

RAISED = "X failed: your code raised NotImplementedError:   (at <notebook> [cell 1]:3 in __init__)"


def test_a_refused_hand_in_says_only_that_it_was_not_run():
    summary = RunFacts(status="ok", rejected="alice.ipynb is 40 MiB").summary()
    assert summary == "Your submission was not run: alice.ipynb is 40 MiB."


def test_cells_that_raised_are_counted_from_one_and_read_without_debris():
    run = RunFacts(status="ok", load_errors=[[0, "NotImplementedError: "], [2, "ValueError: bad (at x)"]])
    lines = run.summary().splitlines()
    assert lines[0] == "Your code ran to the end, but 2 of its cells (or parts) raised an error:"
    assert lines[1] == CELLS_COUNTED
    assert lines[2].endswith("cell/part 1 raised NotImplementedError")
    assert lines[3].endswith("cell/part 3 raised ValueError: bad (at x)")


def test_gradescope_json_carries_the_messages_as_the_pages_show_them_and_survives_a_round_trip():
    result = Result(tests=[TestOutcome("t.py::test_a", 2.0, "a", False, RAISED)], run=RunFacts(status="ok"))
    data = result.to_gradescope()
    assert (
        data["tests"][0]["output"] == "X failed: your code raised NotImplementedError (at cell 2, line 3, in __init__)"
    )
    assert Result.from_gradescope(data).to_gradescope() == data
