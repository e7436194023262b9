"""An assignment's editions in the gradebook: each student's scores go into the edition (nbgrader assignment)
they handed in, and a failure is reported, not raised."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.gradebook_editions import record_by_edition
from autograder.outputs.roster import build_roster

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own add_submission


def _result(passed: int) -> Result:
    tests = [TestOutcome(f"t.py::test_{i}", 1.0, "parameter identity", i < passed) for i in range(2)]
    return Result(tests=tests, run=RunFacts(status="ok"))


@pytest.fixture
def class_folder(tmp_path, monkeypatch):
    """submitted/ with ann in the English edition and chen in the Chinese one; an empty gradebook."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    root = tmp_path / "submitted"
    files = {}
    for student, folder in (("ann", "weight_tying"), ("chen", "weight_tying_zh")):
        (root / student / folder).mkdir(parents=True)
        files[student] = root / student / folder / "weight_tying.ipynb"
        files[student].write_text("{}")
        (root / student / folder / "timestamp.txt").write_text("2026-11-20 10:00:00 UTC\n")
    roster = build_roster(files, roots=[root], assignment="weight_tying", editions=("weight_tying_zh",))
    results = {s.uid: _result(2 if s.key == "ann" else 1) for s in roster}
    return tmp_path / "gradebook.db", roster, results


def _scores(db: Path) -> dict[tuple[str, str], tuple[float, str | None]]:
    with Gradebook(f"sqlite:///{db}") as gb:
        return {
            (a.name, s.student.id): (s.score, str(s.timestamp) if s.timestamp else None)
            for a in gb.assignments
            for s in a.submissions
        }


def test_each_student_lands_in_the_edition_they_handed_in(class_folder, capsys):
    db, roster, results = class_folder
    status = record_by_edition(
        roster, results, db, assignment="weight_tying", course=None, editions=("weight_tying_zh",)
    )
    assert status == 0
    scores = _scores(db)
    assert scores[("weight_tying", "ann")][0] == 2.0 and scores[("weight_tying_zh", "chen")][0] == 1.0
    assert ("weight_tying", "chen") not in scores and ("weight_tying_zh", "ann") not in scores
    assert scores[("weight_tying_zh", "chen")][1] is not None  # its timestamp.txt was found beside the file
    assert "assignment 'weight_tying_zh'" in capsys.readouterr().err


def test_without_editions_everyone_goes_into_the_one_assignment(class_folder):
    db, roster, results = class_folder
    assert record_by_edition(roster, results, db, assignment="weight_tying", course=None, editions=()) == 0
    assert {key for key in _scores(db)} == {("weight_tying", "ann"), ("weight_tying", "chen")}


def test_a_gradebook_that_cannot_be_written_is_reported_with_status_1(class_folder, capsys):
    _, roster, results = class_folder
    missing = Path("/nonexistent/gradebook.db")
    status = record_by_edition(roster, results, missing, assignment="weight_tying", course=None, editions=())
    assert status == 1 and "gradebook" in capsys.readouterr().err


def test_a_students_own_nested_timestamp_never_replaces_nbgraders(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    root = tmp_path / "submitted"
    late = root / "mallory" / "weight_tying_zh"
    (late / "weight_tying_zh").mkdir(parents=True)
    (late / "timestamp.txt").write_text("2030-01-01 00:00:00 UTC\n")  # nbgrader's: handed in late
    (late / "weight_tying_zh" / "timestamp.txt").write_text("2020-01-01 00:00:00 UTC\n")  # the student's own
    nested = late / "weight_tying_zh" / "weight_tying.ipynb"
    nested.write_text("{}")
    odd = root / "ola" / "weight_tying" / "weight_tying_zh"  # an English hand-in inside a folder named like the other
    odd.mkdir(parents=True)
    (odd / "weight_tying.ipynb").write_text("{}")
    files = {"mallory": nested, "ola": odd / "weight_tying.ipynb"}
    roster = build_roster(files, roots=[root], assignment="weight_tying", editions=("weight_tying_zh",))
    results = {s.uid: _result(2) for s in roster}
    db = tmp_path / "gradebook.db"
    assert (
        record_by_edition(roster, results, db, assignment="weight_tying", course=None, editions=("weight_tying_zh",))
        == 0
    )
    scores = _scores(db)
    assert scores[("weight_tying_zh", "mallory")][1].startswith("2030-01-01")  # today's main recorded 2020
    assert ("weight_tying", "ola") in scores and ("weight_tying_zh", "ola") not in scores
