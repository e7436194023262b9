"""grades.csv: one row per student, no formula a spreadsheet would run, no 0 for a student not graded."""

from __future__ import annotations

import csv
import io

from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.classview import Row
from autograder.outputs.grades import grades_csv, neutralise


def _graded(points: float) -> Result:
    return Result(tests=[TestOutcome("t.py::test_a", 2.0, "values", points > 0)], run=RunFacts("ok"))


def test_formula_starters_get_a_quote_and_numbers_pass_through():
    for text in ('=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "\uff1d1"):
        assert neutralise(text) == "'" + text
    assert neutralise("alice") == "alice" and neutralise(-1.5) == -1.5 and neutralise("a=b") == "a=b"


def test_every_student_has_one_row_and_an_ungraded_one_has_no_score():
    rows = [
        Row("ann", "ann", _graded(2), "graded", submission="/s/ann.py"),
        Row("cmd-1", "=cmd|'/C calc'!A0", _graded(0), "graded", submission="/s/=cmd.py"),
        Row("zed", "zed", Result.grader_failure("worker died"), "grader error"),
        Row("kim", "kim", None, "missing"),
    ]
    text = grades_csv(rows)
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert [r["student"] for r in parsed] == ["ann", "'=cmd|'/C calc'!A0", "zed", "kim"]
    assert parsed[0]["score"] == "2.0" and parsed[0]["values"] == "2.0" and parsed[0]["id"] == "ann"
    assert parsed[2]["score"] == "" and parsed[2]["status"] == "grader error"
    assert parsed[3]["score"] == "" and parsed[3]["status"] == "no result"
    assert "'/s/=cmd.py" not in text  # only a cell's first character matters
    assert text.splitlines()[1].startswith('"ann",2.0,2.0,"ok"')  # text quoted, numbers not
