"""A class that attacks nbgrader's side of the course, graded as the README says and exported by nbgrader.

Like a calibration corpus, at the class level: the released course (both editions), a submitted/ folder as
`nbgrader collect` leaves it (each student's whole assignment folder, the release's self-check included),
then `python -m autograder grade --nbgrader-course` and `nbgrader export`. The class:

- ann (English) and chen (Chinese, nested in a folder of their own with a forged timestamp.txt): correct;
- zed: the release's stub as weight_tying.ipynb beside a correct zz_attempt2.ipynb (today's main graded
  both and exported the best: 100);
- a student folder named like a CSV row of full marks, and one named like a spreadsheet formula (today's
  main wrote them into the gradebook and nbgrader's export shifted the columns: a stub read as 100);
- alice and "аlice" (Cyrillic а): two stubs whose names read the same.

Every attack earns nothing and moves nobody's mark; the export has one row per student, in the edition they
took, with nbgrader's timestamp.
"""

from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.graders.kit import KIT_ROOT

pytestmark = pytest.mark.e2e

SHIFTED = "mallory,,,,100.0,0.0,100.0,100.0"
FORMULA = '=HYPERLINK("evil.invalid","100")'
CYRILLIC_ALICE = "\u0430lice"


def _filled(release: Path, answers: dict[str, str]) -> nbformat.NotebookNode:
    nb = nbformat.read(release / "weight_tying.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def _hand_in(course: Path, release: Path, student: str, edition: str, stamp: str = "2026-11-20 10:00:00 UTC") -> Path:
    """The student's copy of the release folder in submitted/, as `nbgrader collect` leaves it."""
    folder = course / "submitted" / student / edition
    shutil.copytree(release, folder)
    (folder / "timestamp.txt").write_text(stamp + "\n")
    return folder


@pytest.fixture(scope="module")
def graded(run_ok, course, releases, env):
    source = nbformat.read(course / "source" / "weight_tying" / "weight_tying.ipynb", as_version=4)
    answers = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    en, zh = releases["en"], releases["zh"]
    nbformat.write(_filled(en, answers), _hand_in(course, en, "ann", "weight_tying") / "weight_tying.ipynb")
    chen = _hand_in(course, zh, "chen", "weight_tying_zh", stamp="2030-01-01 09:00:00 UTC")  # late
    (chen / "weight_tying.ipynb").unlink()
    (chen / "weight_tying_zh").mkdir()
    nbformat.write(_filled(zh, answers), chen / "weight_tying_zh" / "weight_tying.ipynb")
    (chen / "weight_tying_zh" / "timestamp.txt").write_text("2020-01-01 00:00:00 UTC\n")  # forged: on time
    zed = _hand_in(course, en, "zed", "weight_tying")
    nbformat.write(_filled(en, answers), zed / "zz_attempt2.ipynb")
    for student in (SHIFTED, FORMULA, "alice", CYRILLIC_ALICE):
        _hand_in(course, en, student, "weight_tying")
    out = course.parent / "graded"
    kit = [sys.executable, "-m", "autograder", "grade", "--assignment", "weight_tying", "--nbgrader-course"]
    proc = run_ok([*kit, str(course), "--out", str(out), "--seed", "7", "--workers", "2", "--json"], KIT_ROOT, env)
    run_ok(["nbgrader", "export", "--to", "export.csv"], course, env)
    grades = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    return proc, grades, (course / "export.csv").read_text(encoding="utf-8")


def test_every_attack_earns_nothing_and_the_correct_students_keep_full_marks(graded):
    _, grades, _ = graded
    scores = {name: float(row["score"]) for name, row in grades.items()}
    assert scores.pop("ann") == 100 and scores.pop("chen") == 100
    assert len(scores) == 5 and set(scores.values()) == {0.0}, scores  # zed's stub, not zz_attempt2, is graded


def test_what_else_was_in_a_folder_and_look_alike_names_are_flagged_for_the_ta(graded):
    _, grades, _ = graded
    assert "zz_attempt2.ipynb" in grades["zed"]["note"] and "conftest.py" not in grades["zed"]["note"]
    assert grades["ann"]["note"] == "" and "no weight_tying.ipynb in the folder" in grades["chen"]["note"]
    assert grades["alice"]["confusable_with"] == CYRILLIC_ALICE and grades[CYRILLIC_ALICE]["confusable_with"] == "alice"


def test_ids_nbgraders_export_cannot_carry_never_reach_the_gradebook(graded):
    proc, grades, export = graded
    assert proc.stderr.count("cannot be an nbgrader student id") == 2
    assert grades[SHIFTED]["score"] == "0.0" and grades["'" + FORMULA]["score"] == "0.0"  # graded, in grades.csv
    rows = list(csv.reader(export.splitlines()))
    assert {len(row) for row in rows} == {len(rows[0])}  # no row shifted
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    assert "mallory" not in export and "HYPERLINK" not in export


def test_the_export_has_one_row_per_student_in_the_edition_taken_with_nbgraders_timestamp(graded):
    _, _, export = graded
    rows = {r["student_id"]: r for r in csv.DictReader(export.splitlines())}
    assert len(rows) == len(list(csv.DictReader(export.splitlines())))  # one row per student
    assert set(rows) == {"ann", "chen", "zed", "alice", CYRILLIC_ALICE}
    assert (rows["ann"]["assignment"], float(rows["ann"]["score"])) == ("weight_tying", 100.0)
    assert (rows["chen"]["assignment"], float(rows["chen"]["score"])) == ("weight_tying_zh", 100.0)
    assert rows["chen"]["timestamp"].startswith("2030-01-01")  # nbgrader's, not the forged 2020
    assert float(rows["zed"]["score"]) == 0.0 and {r["max_score"] for r in rows.values()} == {"100.0"}
