"""The course's nbgrader_config.py and the kit's gradebook, with nbgrader's own commands, end to end.

A small course built here (the `selftest` grader's assignment, so that grading is quick): a source notebook
with a solution cell, a 0-point practice test cell holding a hidden test, and the kit's task cells (one per
area of the hidden suite). After `nbgrader autograde` and the kit's grading, `nbgrader export` has one row
per student with the kit's score, `generate_assignment --force` still works, a later autograde keeps the
kit's scores, and `generate_feedback` shows neither the hidden test nor its failing line. The notebook is made
here, not by the kit's build: the course's release guard (outputs/nbgenerate.py), which holds every kit
assignment's source to the build, is switched off for it by name (``UNGUARDED``), as an instructor may.
"""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.graders.kit import COURSE_DIR, KIT_ROOT
from autograder.outputs.gradebook import kit_cells
from autograder.outputs.nbautograde import OVERRIDE

pytestmark = pytest.mark.e2e

SECRET = "hidden secret 48151623"
# generate_assignment of a source folder this test makes, not scripts/build_notebook.py: the guard would refuse it.
UNGUARDED = "--GenerateAssignment.pre_convert_hook=None"
# The selftest suite's areas and points (tests/autograder/graders and the suite itself define them).
AREAS = {"values": 2, "broadcasting": 1}


def _run(args, cwd, env, timeout=600) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]}{proc.stderr[-3000:]}"
    return proc


def _source_notebook() -> nbformat.NotebookNode:
    def meta(grade_id: str, **flags) -> dict:
        base = {"grade": False, "solution": False, "locked": False, "task": False, "schema_version": 3}
        return {"nbgrader": {**base, **flags, "grade_id": grade_id}}

    cells = [
        new_markdown_cell("# Adding tensors", metadata=meta("intro", locked=True)),
        new_code_cell(
            "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION\n",
            metadata=meta("solution_add", solution=True),
        ),
        new_code_cell(
            "# Practice check (0 points: the course's hidden tests grade this assignment)\n"
            "assert add(1, 2) == 3\n"
            f"### BEGIN HIDDEN TESTS\nassert add(2, 2) == 5, {SECRET!r}\n### END HIDDEN TESTS\n",
            metadata=meta("practice_add", grade=True, locked=True, points=0),
        ),
    ]
    for cell in kit_cells(AREAS):
        text = f"**{cell.area}** ({cell.points:g} points): graded by the course's hidden tests."
        cells.append(new_markdown_cell(text, metadata={"nbgrader": cell.metadata()}))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def _submit(course: Path, release: Path, student: str, body: str) -> None:
    nb = nbformat.read(release / "selftest.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = f"def add(a, b):\n    {body}\n"
    folder = course / "submitted" / student / "selftest"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "selftest.ipynb")
    (folder / "timestamp.txt").write_text("2026-03-01 12:00:00.000000 UTC\n")


def _export(course: Path, env) -> list[dict]:
    _run(["nbgrader", "export", "--to", "export.csv"], course, env)
    return list(csv.DictReader((course / "export.csv").open()))


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory, env):
    course = tmp_path_factory.mktemp("nbcourse") / "course"
    (course / "source" / "selftest").mkdir(parents=True)
    shutil.copy(COURSE_DIR / "nbgrader_config.py", course / "nbgrader_config.py")
    nbformat.write(_source_notebook(), course / "source" / "selftest" / "selftest.ipynb")
    generated = _run(["nbgrader", "generate_assignment", "selftest", UNGUARDED], course, env)
    _submit(course, course / "release" / "selftest", "ann", "return a + b")
    _submit(course, course / "release" / "selftest", "ben", "return a - b")
    _run(["nbgrader", "autograde", "selftest", OVERRIDE], course, env)  # what these tests check: both together
    kit = [sys.executable, "-m", "autograder", "grade", "--assignment", "selftest", "--nbgrader-course", str(course)]
    graded = _run([*kit, "--out", str(course.parent / "graded"), "--timeout", "30", "--json"], KIT_ROOT, env)
    return course, generated, graded


def test_nbgrader_commands_do_not_warn_about_a_relative_root(graded_course):
    _, generated, _ = graded_course
    assert "is not absolute" not in generated.stdout + generated.stderr


def test_the_export_has_one_row_per_student_with_the_kits_score_out_of_its_points(graded_course, env):
    course, _, graded = graded_course
    assert json.loads(graded.stdout.strip().splitlines()[-1])["gradebook"] == str(course / "gradebook.db")
    rows = _export(course, env)
    assert sorted((r["student_id"], r["assignment"], float(r["score"]), float(r["max_score"])) for r in rows) == [
        ("ann", "selftest", 3.0, 3.0),
        ("ben", "selftest", 0.0, 3.0),
    ]
    assert {r["timestamp"][:10] for r in rows} == {"2026-03-01"}


def test_a_rerelease_after_grading_works_and_a_later_autograde_keeps_the_kits_scores(graded_course, env):
    course, _, _ = graded_course
    proc = _run(["nbgrader", "generate_assignment", "selftest", "--force", UNGUARDED], course, env)
    assert "Cannot modify" not in proc.stderr and (course / "release" / "selftest" / "selftest.ipynb").is_file()
    _run(["nbgrader", "autograde", "selftest", "--force", OVERRIDE], course, env)
    rows = _export(course, env)
    assert sorted((r["student_id"], float(r["score"])) for r in rows) == [("ann", 3.0), ("ben", 0.0)]


def test_feedback_shows_neither_the_hidden_test_nor_its_failing_line(graded_course, env):
    course, _, _ = graded_course
    _run(["nbgrader", "generate_feedback", "selftest", "--force"], course, env)
    page = (course / "feedback" / "ann" / "selftest" / "selftest.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", "", page[page.index("<body") :]))  # code is split into spans
    assert SECRET not in text and "add(2, 2)" not in text and "AssertionError" not in text
    assert "This cell runs hidden tests" in text and "assert add(1, 2) == 3" in text  # the visible check stays
    assert "values (2 points)" in text and "Score: 2.0 / 2.0" in text  # the kit's area, as nbgrader shows it
    summary = html.unescape(re.sub(r"<[^>]+>", "", page[page.index('<div id="toc">') : page.index("</ol>")]))
    assert "values (Score: 2.0 / 2.0)" in summary and "Task" not in summary  # each area by its name
    assert "Practice check (0 points: the course's hidden tests grade this assignment)" in summary


def test_the_courses_nbgrader_refuses_its_own_autograde_before_any_hand_in_runs(tmp_path, env):
    """Issue 31: nbgrader's autograde runs each hand-in unsandboxed, as the grader's user; one read the solution
    and the hidden suite and printed them into its feedback. The course's config stops it on the kit's
    assignments, before any notebook runs, and names the kit's command; the documented override still runs it."""
    course = tmp_path / "course"
    (course / "source" / "selftest").mkdir(parents=True)
    shutil.copy(COURSE_DIR / "nbgrader_config.py", course / "nbgrader_config.py")
    nbformat.write(_source_notebook(), course / "source" / "selftest" / "selftest.ipynb")
    _run(["nbgrader", "generate_assignment", "selftest", UNGUARDED], course, env)
    ran = tmp_path / "hand-in ran"
    _submit(course, course / "release" / "selftest", "eve", f"open({str(ran)!r}, 'w').close()\n    return a + b")
    graded = course / "autograded" / "eve" / "selftest" / "selftest.ipynb"
    proc = subprocess.run(["nbgrader", "autograde", "selftest"], cwd=course, env=env, capture_output=True, text=True)
    said = proc.stdout + proc.stderr
    assert proc.returncode != 0 and not ran.exists() and not graded.exists(), said[-3000:]
    assert "outside any sandbox" in said and OVERRIDE in said
    assert "python -m autograder grade --assignment selftest submitted --out graded --nbgrader-course ." in said
    _run(["nbgrader", "autograde", "selftest", OVERRIDE], course, env)
    assert ran.exists() and graded.exists()  # asked for by name: nbgrader's own path, unsandboxed, as before
