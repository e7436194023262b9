"""Batch results -> nbgrader gradebook: what `nbgrader export` and the formgrader read."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.outputs.gradebook import NOTEBOOK, cell_names, write_gradebook
from autograder.result import Result, RunFacts, TestOutcome

VENV_BIN = str(Path(sys.executable).parent)


def result(identity: int, forward: int) -> Result:
    """A result with 1-point tests: `identity` of 2 passed in one area, `forward` of 3 in another."""
    tests = [TestOutcome(f"t.py::test_id{i}", 1.0, "parameter identity", i < identity, "") for i in range(2)]
    tests += [TestOutcome(f"t.py::test_fw{i}", 1.0, "forward (logits)", i < forward, "") for i in range(3)]
    return Result(tests=tests, run=RunFacts(status="ok"))


GRADER_ERROR = Result.grader_failure("boom")


def scores(db: Path, assignment: str) -> dict[str, dict[str, float]]:
    with Gradebook(f"sqlite:///{db}") as gb:
        return {
            s.student.id: {g.name: g.score for nb in s.notebooks for g in nb.grades}
            for s in gb.find_assignment(assignment).submissions
        }


def test_cell_names_are_plain_and_unique():
    assert cell_names(["parameter identity", "forward (logits)", "Parameter-Identity!", "??"]) == {
        "parameter identity": "parameter_identity",
        "forward (logits)": "forward_logits",
        "Parameter-Identity!": "parameter-identity",
        "??": "area",
    }
    assert list(cell_names(["a b", "a-b", "a_b"]).values()) == ["a_b", "a-b", "a_b_2"]


def test_bad_gradebook_paths_are_refused_with_the_fix(tmp_path):
    with pytest.raises(ValueError, match="gradebook.db"):
        write_gradebook({}, tmp_path / "grades.csv", assignment="selftest")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_gradebook({}, tmp_path / "nope" / "gradebook.db", assignment="selftest")
    with pytest.raises(ValueError, match="plain name"):
        write_gradebook({}, tmp_path / "gradebook.db", assignment="a/b")


@pytest.mark.slow
def test_new_gradebook_gets_students_cells_and_scores_that_nbgrader_exports(tmp_path):
    db = tmp_path / "gradebook.db"
    summary = write_gradebook(
        {"ann": result(2, 3), "ben": result(0, 1), "cat": GRADER_ERROR}, db, assignment="selftest"
    )
    assert summary.written == ["ann", "ben"] and "boom" in summary.skipped["cat"] and not summary.warnings
    # grading again overwrites (ben improved); the student with a grader error is never invented
    write_gradebook({"ben": result(2, 1)}, db, assignment="selftest")
    assert scores(db, "selftest") == {
        "ann": {"parameter_identity": 2.0, "forward_logits": 3.0},
        "ben": {"parameter_identity": 2.0, "forward_logits": 1.0},
    }
    env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")}
    proc = subprocess.run(
        ["nbgrader", "export", "--to", "grades.csv"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {r["student_id"]: r for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert set(rows) == {"ann", "ben"}
    assert (float(rows["ann"]["score"]), float(rows["ben"]["score"]), float(rows["ann"]["max_score"])) == (5, 3, 5)


@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # from nbgrader's add_submission in the set-up
def test_existing_nbgrader_assignment_keeps_its_cells_and_is_warned_about(tmp_path):
    db = tmp_path / "gradebook.db"
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "kit101"\n')
    (tmp_path / "submitted" / "ann" / "selftest").mkdir(parents=True)
    (tmp_path / "submitted" / "ann" / "selftest" / "timestamp.txt").write_text("2026-11-20 10:00:00 UTC\n")
    env_path = os.environ.get("PATH", "")
    os.environ["PATH"] = VENV_BIN + os.pathsep + env_path  # nbgrader needs alembic to create a gradebook
    try:
        with Gradebook(f"sqlite:///{db}", course_id="kit101") as gb:  # as generate_assignment + autograde leave it
            gb.add_assignment("selftest")
            gb.add_notebook("selftest", "selftest")
            gb.add_grade_cell("native", "selftest", "selftest", max_score=4, cell_type="code")
            gb.add_student("ann")
            gb.add_submission("selftest", "ann")
            gb.find_grade("native", "selftest", "selftest", "ann").auto_score = 4
            gb.db.commit()
    finally:
        os.environ["PATH"] = env_path
    summary = write_gradebook(
        {"ann": result(1, 3)},
        db,
        assignment="selftest",
        submissions={"ann": tmp_path / "submitted" / "ann" / "selftest" / "s.py"},
    )
    assert len(summary.warnings) == 1 and "--gradebook-assignment" in summary.warnings[0]
    assert scores(db, "selftest") == {"ann": {"native": 4.0, "parameter_identity": 1.0, "forward_logits": 3.0}}
    with Gradebook(f"sqlite:///{db}") as gb:
        submission = gb.find_submission("selftest", "ann")
        assert submission.timestamp.year == 2026 and submission.max_score == 9
        assert {nb.name for nb in gb.find_assignment("selftest").notebooks} == {"selftest", NOTEBOOK}
    # a separate assignment name keeps the hidden suite's scores apart, in the config's course
    write_gradebook({"ann": result(2, 3)}, db, assignment="selftest_hidden")
    with Gradebook(f"sqlite:///{db}") as gb:
        hidden = gb.find_assignment("selftest_hidden")
        assert hidden.course_id == "kit101" and gb.find_submission("selftest_hidden", "ann").score == 5
