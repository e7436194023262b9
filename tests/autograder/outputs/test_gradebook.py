"""The kit's scores in nbgrader's gradebook: in the assignment's own task cells, one row per student."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.gradebook import (
    NOTEBOOK,
    GradebookEntry,
    GradebookMismatch,
    kit_cells,
    safe_student_id,
    write_gradebook,
)

VENV_BIN = str(Path(sys.executable).parent)
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own add_submission


def result(identity: int, forward: int) -> Result:
    """1-point tests: `identity` of 2 passed in one area, `forward` of 3 in another."""
    tests = [TestOutcome(f"t.py::test_id{i}", 1.0, "parameter identity", i < identity) for i in range(2)]
    tests += [TestOutcome(f"t.py::test_fw{i}", 1.0, "forward (logits)", i < forward) for i in range(3)]
    return Result(tests=tests, run=RunFacts(status="ok"))


def entry(student: str | None, res: Result, stamp: Path | None = None) -> GradebookEntry:
    return GradebookEntry(student=student, result=res, label=student or "?", timestamp_file=stamp)


def scores(db: Path, assignment: str) -> dict[str, tuple[float, float]]:
    with Gradebook(f"sqlite:///{db}") as gb:
        return {s.student.id: (s.score, s.max_score) for s in gb.find_assignment(assignment).submissions}


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory) -> Path:
    """A new, empty gradebook, made once: creating one runs `alembic` (seconds on a busy machine)."""
    db = tmp_path_factory.mktemp("template") / "gradebook.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
        Gradebook(f"sqlite:///{db}").close()
    return db


@pytest.fixture
def nbgrader_assignment(tmp_path, empty_gradebook):
    """A gradebook as `nbgrader generate_assignment` leaves it: notebook "nb" with a 0-point practice test
    cell and, unless told otherwise, the kit's task cells. make(cells={grade_id: (points, "task"|"grade")})."""
    db = tmp_path / "gradebook.db"
    shutil.copy(empty_gradebook, db)

    def make(cells: dict[str, tuple[float, str]] | None = None) -> Path:
        if cells is None:
            cells = {
                c.grade_id: (c.points, "task") for c in kit_cells({"parameter identity": 2, "forward (logits)": 3})
            }
        with Gradebook(f"sqlite:///{db}") as gb:
            gb.add_assignment("wt")
            gb.add_notebook("nb", "wt")
            gb.add_grade_cell("practice", "nb", "wt", max_score=0, cell_type="code")
            for name, (points, kind) in cells.items():
                add = gb.add_task_cell if kind == "task" else gb.add_grade_cell
                add(name, "nb", "wt", max_score=points, cell_type="markdown" if kind == "task" else "code")
            gb.db.commit()
        return db

    return make


def test_kit_cells_are_named_after_areas_and_carry_their_points():
    cells = kit_cells({"parameter identity": 24, "forward (logits)": 20, "Parameter-Identity!": 1})
    assert [c.grade_id for c in cells] == [
        "autograder_parameter_identity",
        "autograder_forward_logits",
        "autograder_parameter_identity_2",
    ]
    assert cells[0].metadata() == {
        "grade": False,
        "grade_id": "autograder_parameter_identity",
        "locked": True,
        "points": 24.0,
        "schema_version": 3,
        "solution": False,
        "task": True,
    }


def test_bad_gradebook_paths_are_refused_with_the_fix(tmp_path):
    with pytest.raises(ValueError, match="gradebook.db"):
        write_gradebook([], tmp_path / "grades.csv", assignment="wt")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_gradebook([], tmp_path / "nope" / "gradebook.db", assignment="wt")
    with pytest.raises(ValueError, match="plain name"):
        write_gradebook([], tmp_path / "gradebook.db", assignment="a/b")


def test_scores_land_in_the_assignments_own_task_cells_one_row_per_student(nbgrader_assignment, tmp_path):
    db = nbgrader_assignment()
    stamp = tmp_path / "timestamp.txt"
    stamp.write_text("2026-11-20 10:00:00 UTC\n")
    entries = [entry("ann", result(2, 3), stamp), entry("ben", result(0, 1)), entry(None, result(2, 3))]
    entries.append(entry("cat", Result.grader_failure("boom")))
    summary = write_gradebook(entries, db, assignment="wt")
    assert summary.notebook == "nb" and summary.written == ["ann", "ben"] and summary.warnings == []
    assert set(summary.skipped) == {"?", "cat"}
    assert scores(db, "wt") == {"ann": (5, 5), "ben": (1, 5)}  # max 5: the practice cell is worth 0
    with Gradebook(f"sqlite:///{db}") as gb:
        assert [nb.name for nb in gb.find_assignment("wt").notebooks] == ["nb"]  # nothing added for nbgrader to refuse
        assert gb.find_submission("wt", "ann").timestamp.year == 2026
        grade = gb.find_grade("autograder_parameter_identity", "nb", "wt", "ben")
        grade.manual_score = 2.0  # a TA overrides in the formgrader
        gb.db.commit()
    again = write_gradebook([entry("ben", result(1, 1))], db, assignment="wt")
    assert scores(db, "wt")["ben"] == (3, 5) and "manual score" in again.warnings[0]


def test_ids_nbgraders_export_cannot_carry_are_refused_and_several_hand_ins_are_not_a_best_of(nbgrader_assignment):
    db = nbgrader_assignment()
    shifted, formula = "mallory,,,,100.0,0.0,100.0,100.0", '=HYPERLINK("http://evil.invalid","x")'
    entries = [entry(shifted, result(0, 0)), entry(formula, result(0, 0)), entry("ann", result(2, 3))]
    entries += [entry("zed", result(0, 0)), GradebookEntry("zed", result(2, 3), label="zed/zz_attempt2")]
    entries.append(entry("張偉.li-2@uni.edu", result(1, 1)))  # a login in any script, an e-mail: carried safely
    summary = write_gradebook(entries, db, assignment="wt")
    assert summary.written == ["ann", "張偉.li-2@uni.edu"]
    for label in (shifted, formula):
        assert (
            "cannot be an nbgrader student id" in summary.skipped[label]
            and "rename the folder" in summary.skipped[label]
        )
    assert "none is written" in summary.skipped["zed/zz_attempt2"] and "zed" in summary.skipped  # today: best of both
    assert set(scores(db, "wt")) == {"ann", "張偉.li-2@uni.edu"}
    assert [safe_student_id(s) for s in ("a", "-a", "a b", "a,b", 'a"', "a\n", "x" * 129, "@x", "+1")] == [
        True,
        *[False] * 8,
    ]


def test_an_nbgrader_assignment_without_the_kit_cells_gets_nothing_and_the_exact_fix(nbgrader_assignment):
    db = nbgrader_assignment(cells={})
    with pytest.raises(GradebookMismatch) as exc:
        write_gradebook([entry("ann", result(2, 3))], db, assignment="wt")
    text = str(exc.value)
    assert "autograder_parameter_identity = 2 points (parameter identity)" in text and '"task": true' in text
    assert "generate_assignment wt --force" in text
    with Gradebook(f"sqlite:///{db}") as gb:
        assert gb.find_assignment("wt").submissions == [] and [n.name for n in gb.find_assignment("wt").notebooks] == [
            "nb"
        ]


def test_nbgraders_own_points_beside_the_kits_are_warned_about(nbgrader_assignment):
    cells = {c.grade_id: (c.points, "task") for c in kit_cells({"parameter identity": 2, "forward (logits)": 3})}
    db = nbgrader_assignment(cells={**cells, "test_tied": (13, "grade")})
    summary = write_gradebook([entry("ann", result(2, 3))], db, assignment="wt")
    assert "worth 13 points besides the kit's 5" in summary.warnings[0] and "max 18" in summary.warnings[0]


@pytest.mark.parametrize(
    "cells, needle",
    [
        ({"autograder_parameter_identity": (2, "grade"), "autograder_forward_logits": (3, "task")}, "would overwrite"),
        ({"autograder_parameter_identity": (6, "task"), "autograder_forward_logits": (3, "task")}, "worth 6 points"),
    ],
)
def test_a_cell_nbgrader_would_score_or_weigh_differently_is_refused(nbgrader_assignment, cells, needle):
    db = nbgrader_assignment(cells=cells)
    with pytest.raises(GradebookMismatch, match=needle):
        write_gradebook([entry("ann", result(2, 3))], db, assignment="wt")


def test_an_assignment_with_a_source_folder_must_be_generated_first(tmp_path, empty_gradebook):
    shutil.copy(empty_gradebook, tmp_path / "gradebook.db")
    (tmp_path / "source" / "wt").mkdir(parents=True)
    with pytest.raises(GradebookMismatch, match="nbgrader generate_assignment wt"):
        write_gradebook(
            [entry("ann", result(2, 3))], tmp_path / "gradebook.db", assignment="wt", source_dir=tmp_path / "source"
        )


@pytest.mark.e2e
def test_an_assignment_without_source_gets_its_own_notebook_that_nbgrader_exports(tmp_path):
    db = tmp_path / "gradebook.db"
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "kit101"\n')
    write_gradebook([entry("ann", result(2, 3)), entry("ben", result(0, 1))], db, assignment="wt_hidden")
    write_gradebook([entry("ben", result(2, 1))], db, assignment="wt_hidden")  # regrading overwrites
    assert scores(db, "wt_hidden") == {"ann": (5, 5), "ben": (3, 5)}
    with Gradebook(f"sqlite:///{db}") as gb:
        assert gb.find_assignment("wt_hidden").course_id == "kit101"
        assert [nb.name for nb in gb.find_assignment("wt_hidden").notebooks] == [NOTEBOOK]
    env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")}
    proc = subprocess.run(
        ["nbgrader", "export", "--to", "grades.csv"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader((tmp_path / "grades.csv").open()))
    assert sorted((r["student_id"], float(r["score"]), float(r["max_score"])) for r in rows) == [
        ("ann", 5, 5),
        ("ben", 3, 5),
    ]


def test_a_hand_in_time_goes_in_as_nbgraders_utc_and_an_unreadable_one_is_left_out(nbgrader_assignment, tmp_path):
    from datetime import UTC, datetime

    db = nbgrader_assignment()
    (tmp_path / "ann.txt").write_text("2026-11-20 11:00:00 Europe/Berlin\n")
    (tmp_path / "bo.txt").write_text("the day before yesterday\n")
    entries = [entry(name, result(2, 3), tmp_path / f"{name}.txt") for name in ("ann", "bo")]
    due = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    summary = write_gradebook(entries, db, assignment="wt", due=due)
    assert summary.written == ["ann", "bo"]
    with Gradebook(f"sqlite:///{db}") as gb:
        stamps = {s.student.id: s.timestamp for s in gb.find_assignment("wt").submissions}
        assert gb.find_assignment("wt").duedate == datetime(2026, 11, 21, 12, 0)  # nbgrader keeps UTC, naive
    assert stamps == {"ann": datetime(2026, 11, 20, 10, 0), "bo": None}
