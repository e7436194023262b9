"""Trusted: the kit's scores into nbgrader's gradebook: one row per student per assignment in ``nbgrader export``.

The scores land in the assignment students handed in, in cells nbgrader already knows from the source
notebook, so ``nbgrader export`` shows one row per student (max = the kit's points) and ``nbgrader
generate_assignment --force`` keeps working after grading (it refuses to add or remove cells or notebooks
once submissions exist). Those cells are **task cells**, one per area of the hidden suite::

    markdown cell, metadata.nbgrader = {"grade_id": "autograder_parameter_identity", "points": 24,
        "task": true, "grade": false, "solution": false, "locked": true, "schema_version": 3}

nbgrader never awards a task cell (``nbgrader autograde`` leaves its grade alone), the kit writes the area's
points as its auto score, and a TA's manual score in the formgrader overrides it, as for any cell. Points
must equal the grader's (one point system): a mismatch is an error naming both. An assignment nbgrader does
not know (no source folder) gets a notebook of its own, ``autograder``, holding the same cells.

Only ids that nbgrader's database and its CSV export carry safely are written (``safe_student_id``):
``nbgrader export`` writes ids unquoted, so a folder named ``mallory,,,,100.0,0.0,100.0,100.0`` would shift
the columns and a ``=HYPERLINK(...)`` would run in a spreadsheet. Such a student, or one with several
submissions under one id, is skipped with the reason; ``grades.csv`` still has their score.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import sys
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from autograder.grading.result import GRADER_ERROR, Result
from autograder.grading.terminal import printable
from autograder.outputs.gradebook_cells import (
    CELL_PREFIX,
    NOTEBOOK,
    GradebookMismatch,
    KitCell,
    find_or_make_cells,
    kit_cells,
    other_points,
    write_student,
)

__all__ = [
    "record_in_gradebook",
    "GradebookEntry",
    "GradebookSummary",
    "GradebookMismatch",
    "KitCell",
    "kit_cells",
    "write_gradebook",
    "CELL_PREFIX",
    "NOTEBOOK",
    "safe_student_id",
    "alembic_on_path",
]


@dataclass(frozen=True)
class GradebookEntry:
    student: str | None  # the nbgrader student id (None: not writable, e.g. undecodable folder name)
    result: Result
    label: str  # the student's printable name, for messages
    timestamp_file: Path | None = None  # <root>/<student>/<assignment>/timestamp.txt
    late_penalty: float = 0.0  # the late policy's points off (outputs.lateness), nbgrader's late_submission_penalty
    extension: timedelta | None = None  # the kit's extension (--extension), nbgrader's submission.extension


@dataclass
class GradebookSummary:
    db: Path
    assignment: str
    notebook: str = ""
    cells: list[KitCell] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # student ids whose scores were written
    skipped: dict[str, str] = field(default_factory=dict)  # student label -> why not written
    warnings: list[str] = field(default_factory=list)


def _timestamp(path: Path | None) -> str | None:
    """nbgrader's timestamp.txt: a small regular file (a link or a device is not nbgrader's)."""
    if path is None:
        return None
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 1024:
            return None
        return Path(path).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


# A letter, digit or underscore (any script), then those or . @ + -: what a login or an e-mail address holds.
_SAFE_ID = re.compile(r"\w[\w.@+-]{0,127}", re.UNICODE)


def safe_student_id(student: str) -> bool:
    """Whether nbgrader's gradebook (ids up to 128 characters) and its unquoted CSV export carry `student`
    as one cell of plain text: no comma, quote, space or line break, no leading ``= + - @``."""
    return bool(_SAFE_ID.fullmatch(student)) and student.isprintable()


def _refusal(student: str) -> str:
    return (
        f"the folder name {student!r} cannot be an nbgrader student id (nbgrader export writes ids unquoted: a "
        "comma, quote or space shifts the columns and a leading = + - @ is a spreadsheet formula); rename the "
        "folder to letters, digits and . _ - @ + (starting with a letter or digit) and grade again"
    )


def _choose(entries: list[GradebookEntry], summary: GradebookSummary) -> dict[str, GradebookEntry]:
    chosen: dict[str, GradebookEntry] = {}
    several: dict[str, list[str]] = {}
    for entry in entries:
        if entry.student is None:
            summary.skipped[entry.label] = "its folder name is not valid text for an nbgrader student id"
            continue
        if not safe_student_id(entry.student):
            summary.skipped[entry.label] = _refusal(entry.student)
            continue
        if entry.result.status == GRADER_ERROR or not entry.result.tests:
            summary.skipped[entry.label] = "not graded (grader error): regrade it with --student"
            continue
        several.setdefault(entry.student, []).append(entry.label)
        chosen[entry.student] = entry
    for student, labels in several.items():
        if len(labels) > 1:  # keeping the best of several would grade the best of many tries
            del chosen[student]
            for label in labels:
                summary.skipped[label] = (
                    f"one of {len(labels)} submissions for nbgrader id {student!r} ({', '.join(labels)}): none is "
                    "written; keep one file per student (nbgrader's layout grades the assignment's own notebook)"
                )
    return chosen


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
def alembic_on_path():
    """nbgrader runs the `alembic` executable when it creates a gradebook: find the one next to this Python."""
    bindir = str(Path(sys.executable).parent)
    old = os.environ.get("PATH", "")
    if shutil.which("alembic") is None and shutil.which("alembic", path=bindir):
        os.environ["PATH"] = bindir + os.pathsep + old
    try:
        yield
    finally:
        os.environ["PATH"] = old


def write_gradebook(
    entries: list[GradebookEntry],
    db: str | Path,
    *,
    assignment: str,
    source_dir: Path | None = None,
    due: datetime | None = None,
) -> GradebookSummary:
    """Write each student's per-area points into the gradebook at `db` (created if absent).

    `source_dir`: the course's source/ folder; an assignment that has one must be in the gradebook already
    (``nbgrader generate_assignment``), so that the kit never invents a notebook nbgrader would later refuse.
    Grader errors are not written. Writing again overwrites the kit's auto scores, never a TA's manual ones.
    Each student's late penalty is nbgrader's ``late_submission_penalty`` of the notebook, apart from the scores
    (``nbgrader export``'s ``late_submission_penalty`` column); `due` (``--due``) becomes the assignment's
    ``duedate``, and each entry's extension (``--extension``) its submission's ``extension``.
    Raises GradebookMismatch (nothing written) when the assignment has no cells for the kit's areas.
    """
    db = Path(db)
    if db.suffix != ".db":
        raise ValueError(f"gradebook {str(db)!r} should be nbgrader's SQLite file, e.g. course/gradebook.db")
    if not db.parent.is_dir():
        raise FileNotFoundError(
            f"folder {str(db.parent)!r} of the gradebook does not exist: create the course directory first "
            "(or point --gradebook at an existing gradebook.db)"
        )
    if not assignment or "/" in assignment:
        raise ValueError(
            f"nbgrader assignment name {assignment!r} is not usable: give a plain name like 'weight_tying'"
        )
    summary = GradebookSummary(db=db, assignment=assignment)
    chosen = _choose(entries, summary)
    areas: dict[str, float] = {}
    for entry in chosen.values():
        for area, (_, total) in entry.result.areas.items():
            areas[area] = max(areas.get(area, 0.0), float(total))
    if not chosen:
        return summary
    summary.cells = kit_cells(areas)
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    course = {"course_id": _course_id(db)} if _course_id(db) else {}
    with warnings.catch_warnings(), alembic_on_path(), Gradebook(f"sqlite:///{db.resolve()}", **course) as gb:
        warnings.simplefilter("ignore", SAWarning)  # nbgrader's own add_submission trips these; harmless
        try:
            summary.notebook = find_or_make_cells(gb, assignment, summary.cells, source_dir=source_dir, db=db)
            if due is not None:
                gb.update_or_create_assignment(assignment, duedate=due)  # stored as nbgrader's naive UTC
            extra = other_points(gb, assignment, summary.cells)
            overridden = 0
            for student, entry in chosen.items():
                overridden += write_student(
                    gb,
                    assignment,
                    summary.notebook,
                    student,
                    entry.result,
                    summary.cells,
                    _timestamp(entry.timestamp_file),
                    entry.late_penalty,
                    entry.extension,
                )
            gb.db.commit()
        except Exception:
            gb.db.rollback()
            raise
    if extra:
        kit = sum(c.points for c in summary.cells)
        summary.warnings.append(
            f"assignment {assignment!r} has other cells worth {extra:g} points besides the kit's {kit:g}: nbgrader "
            f"adds them up (max {kit + extra:g}); make them a 0-point practice check for one point system"
        )
    if overridden:
        summary.warnings.append(
            f"{overridden} kit cell(s) carry a TA's manual score: kept (it overrides the kit's score in nbgrader)"
        )
    summary.written = sorted(chosen)
    return summary


def record_in_gradebook(
    roster: list,
    results: dict,
    gradebook: Path,
    *,
    assignment: str,
    course: Path | None,
    late: dict | None = None,
    due: datetime | None = None,
    extensions: dict | None = None,
) -> int:
    """Write each graded student's points into `gradebook` and say on stderr what was written, skipped or
    refused: 0 when written (a skipped student is a warning), 1 when nothing was (the grades are on disk already).
    `late`: uid -> ``lateness.Late`` (its penalty is written apart from the points); `due`: ``--due``;
    `extensions`: uid -> the kit's extension (``--extension``)."""
    late, extensions = late or {}, extensions or {}
    entries = [
        GradebookEntry(
            student=s.nbgrader_id,
            result=results[s.uid],
            label=s.name,
            timestamp_file=s.timestamp_file,
            late_penalty=late[s.uid].penalty if s.uid in late else 0.0,
            extension=extensions.get(s.uid),
        )
        for s in roster
        if s.uid in results
    ]
    source = course / "source" if course is not None else None
    try:
        summary = write_gradebook(entries, gradebook, assignment=assignment, source_dir=source, due=due)
    except GradebookMismatch as exc:
        print(f"error: nothing was written to the gradebook {str(gradebook)!r}: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # the grades are on disk already: say what did not happen
        why = f"{type(exc).__name__}: {printable(exc, limit=2000)}"
        print(f"error: the gradebook {str(gradebook)!r} was not updated ({why})", file=sys.stderr)
        return 1
    for warning in summary.warnings:
        print(f"warning: {printable(warning)}", file=sys.stderr)
    for student, why in summary.skipped.items():
        print(
            f"warning: {printable(student, newlines=False)} not written to the gradebook: {printable(why)}",
            file=sys.stderr,
        )
    count = len(summary.written)
    print(
        f"gradebook: {count} student{'' if count == 1 else 's'} written to {gradebook} "
        f"(assignment {assignment!r}, notebook {summary.notebook!r}, one task cell per area)",
        file=sys.stderr,
    )
    return 0
