"""Trusted: write batch results into an nbgrader gradebook, so ``nbgrader export`` and the formgrader show them.

Mapping (one notebook, one grade cell per area, created when absent)::

    assignment  <assignment>            (created if missing, in the course named by nbgrader_config.py)
    notebook    autograder              (the hidden suite's scores; not a file students hand in)
    grade cell  one per area, e.g. "parameter_identity", max_score = that area's points
    grade       auto_score = the student's points in that area, needs_manual_grade = False

Areas, not single tests, become grade cells because they stay put when a test is renamed or split. A
notebook of our own never overwrites nbgrader's test cells. But if the assignment also holds those cells
(made by ``generate_assignment``), nbgrader adds both notebooks up, ``nbgrader autograde`` zeroes our cells
(it finds no autograder.ipynb) and ``generate_assignment --force`` refuses to change the assignment once
submissions exist: write into an assignment of its own (e.g. ``weight_tying_hidden``) in that case; the
summary's warnings say so.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from autograder.result import GRADER_ERROR, Result

__all__ = ["GradebookSummary", "write_gradebook", "NOTEBOOK", "cell_names"]

NOTEBOOK = "autograder"


@dataclass
class GradebookSummary:
    db: Path
    assignment: str
    written: list[str] = field(default_factory=list)  # student ids whose grades were written
    skipped: dict[str, str] = field(default_factory=dict)  # student id -> why not written
    warnings: list[str] = field(default_factory=list)


def cell_names(areas: list[str]) -> dict[str, str]:
    """area -> a unique grade-cell name made of letters, digits, '_' and '-' ('parameter identity' ->
    'parameter_identity')."""
    out: dict[str, str] = {}
    for area in areas:
        base = re.sub(r"[^A-Za-z0-9_-]+", "_", area).strip("_").lower()[:100] or "area"
        name, n = base, 2
        while name in out.values():
            name, n = f"{base}_{n}", n + 1
        out[area] = name
    return out


def _course_id(db: Path) -> str | None:
    """CourseDirectory.course_id from nbgrader_config.py next to the gradebook, if it sets one."""
    config = db.parent / "nbgrader_config.py"
    if not config.is_file():
        return None
    from traitlets.config.loader import PyFileConfigLoader

    try:
        loaded = PyFileConfigLoader(config.name, path=str(db.parent)).load_config()
    except Exception:  # an unreadable config only costs us the course name
        return None
    value = loaded.get("CourseDirectory", {}).get("course_id")
    return value if isinstance(value, str) and value else None


@contextlib.contextmanager
def _alembic_on_path():
    """nbgrader runs the `alembic` executable when it creates a gradebook: find the one installed next to
    this Python even when the venv is not activated."""
    bindir = str(Path(sys.executable).parent)
    old = os.environ.get("PATH", "")
    if shutil.which("alembic") is None and shutil.which("alembic", path=bindir):
        os.environ["PATH"] = bindir + os.pathsep + old
    try:
        yield
    finally:
        os.environ["PATH"] = old


def _student_id(key: str) -> str:
    # batch keys are "<student>" or "<student>/<notebook>" (several notebooks handed in)
    return key.split("/", 1)[0]


def _timestamp(path: Path | None) -> str | None:
    """nbgrader's submitted/<student>/<assignment>/timestamp.txt, when the submission has one."""
    if path is None:
        return None
    stamp = Path(path).parent / "timestamp.txt"
    try:
        text = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else ""
    except OSError:
        return None
    return text or None


def write_gradebook(
    results: dict[str, Result], db: str | Path, *, assignment: str, submissions: dict[str, Path] | None = None
) -> GradebookSummary:
    """Write each graded student's per-area points into the nbgrader gradebook at `db` (created if absent).

    Grader errors are not written (that student was not graded; the summary says so). A student graded
    twice (several notebooks) keeps the better result. Writing again overwrites the earlier auto scores.
    """
    db = Path(db)
    if db.suffix != ".db":
        raise ValueError(f"gradebook {str(db)!r} should be nbgrader's SQLite file, e.g. course/gradebook.db")
    if not db.parent.is_dir():
        raise FileNotFoundError(
            f"folder {str(db.parent)!r} of the gradebook does not exist: create the course "
            "directory first (or point --gradebook at an existing gradebook.db)"
        )
    if not assignment or "/" in assignment:
        raise ValueError(
            f"nbgrader assignment name {assignment!r} is not usable: give a plain name like 'weight_tying'"
        )
    summary = GradebookSummary(db=db, assignment=assignment)
    chosen: dict[str, tuple[str, Result]] = {}
    for key, result in results.items():
        student = _student_id(key)
        if result.status == GRADER_ERROR or not result.tests:
            summary.skipped[student] = "the grader could not grade it: " + result.output[:200]
            continue
        if student in chosen:
            summary.warnings.append(f"{student}: several submissions; the gradebook keeps the best score")
            if result.score <= chosen[student][1].score:
                continue
        summary.skipped.pop(student, None)
        chosen[student] = (key, result)
    areas: dict[str, float] = {}
    for _, result in chosen.values():
        for area, (_, total) in result.areas.items():
            areas[area] = max(areas.get(area, 0.0), float(total))
    if chosen:
        _write(db, assignment, chosen, areas, submissions or {}, summary)
    return summary


def _write(
    db: Path,
    assignment: str,
    chosen: dict[str, tuple[str, Result]],
    areas: dict[str, float],
    submissions: dict[str, Path],
    summary: GradebookSummary,
) -> None:
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    course = {"course_id": _course_id(db)} if _course_id(db) else {}
    with warnings.catch_warnings(), _alembic_on_path(), Gradebook(f"sqlite:///{db.resolve()}", **course) as gb:
        warnings.simplefilter("ignore", SAWarning)  # nbgrader's own add_submission trips these; harmless
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            gb.add_assignment(assignment)
        names = cell_names(list(areas))
        try:
            gb.find_notebook(NOTEBOOK, assignment)
        except MissingEntry:
            gb.add_notebook(NOTEBOOK, assignment)
        for area, total in areas.items():
            gb.update_or_create_grade_cell(names[area], NOTEBOOK, assignment, max_score=total, cell_type="code")
        others = [
            (nb.name, nb.max_score)
            for nb in gb.find_assignment(assignment).notebooks
            if nb.name != NOTEBOOK and nb.max_score
        ]
        if others:
            summary.warnings.append(
                f"assignment {assignment!r} also has nbgrader test cells ("
                + ", ".join(f"notebook {n}: {m:g} points" for n, m in others)
                + "): nbgrader adds them to ours, and `nbgrader autograde` would zero ours; use "
                "--gradebook-assignment NAME (e.g. " + f"{assignment}_hidden) to keep the hidden suite's apart"
            )
        try:
            for student, (key, result) in chosen.items():
                _write_student(gb, assignment, student, result, names, _timestamp(submissions.get(key)))
            gb.db.commit()
        except Exception:
            gb.db.rollback()
            raise
    summary.written = sorted(chosen)


def _write_student(
    gb, assignment: str, student: str, result: Result, names: dict[str, str], timestamp: str | None
) -> None:
    from nbgrader.api import Grade, MissingEntry, SubmittedNotebook
    from nbgrader.utils import parse_utc

    gb.update_or_create_student(student)
    try:
        submission = gb.find_submission(assignment, student)
    except MissingEntry:
        submission = gb.add_submission(assignment, student)
    if timestamp:
        try:
            submission.timestamp = parse_utc(timestamp)
        except (ValueError, TypeError, OverflowError):
            pass  # a malformed timestamp.txt is the student's upload tool's problem, not a grade
    try:
        sub_nb = gb.find_submission_notebook(NOTEBOOK, assignment, student)
    except MissingEntry:  # the submission predates our notebook (e.g. made by nbgrader autograde)
        sub_nb = SubmittedNotebook(notebook=gb.find_notebook(NOTEBOOK, assignment), assignment=submission)
        gb.db.add(sub_nb)
        gb.db.flush()
    areas = result.areas
    for area, name in names.items():
        try:
            grade = gb.find_grade(name, NOTEBOOK, assignment, student)
        except MissingEntry:  # a grade cell added after this submission was first written
            grade = Grade(cell_id=gb.find_grade_cell(name, NOTEBOOK, assignment).id, notebook=sub_nb)
            gb.db.add(grade)
        grade.auto_score = float(areas.get(area, (0.0, 0.0))[0])
        grade.needs_manual_grade = False
