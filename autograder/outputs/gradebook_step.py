"""Trusted: the command line's gradebook step: a class's results into nbgrader's gradebook, reported on stderr.

Split from ``autograder.cli`` (which stays one concept: parsing and dispatch); the work is
``autograder.outputs.gradebook.write_gradebook``.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["to_gradebook"]


def to_gradebook(
    gradebook: Path,
    roster: list,
    results: dict,
    *,
    assignment: str,
    source_dir: Path | None,
    editions: tuple[str, ...] = (),
) -> int:
    """Write `results` (uid -> Result) of `roster` into `gradebook` under `assignment`; 0 if done, 1 if it failed.

    `editions`: other nbgrader assignments graded by the same grader (the assignment in other languages): a
    student whose file sits in ``<student>/<edition>/`` is written into that edition's assignment, the one
    they handed in, so that each edition's ``nbgrader export`` has its own students.
    """
    groups: dict[str, list] = {}
    for student in roster:
        folder = student.path.parent.name
        groups.setdefault(folder if folder in editions else assignment, []).append(student)
    status = 0
    for name, students in groups.items():
        status |= _write(gradebook, students, results, assignment=name, source_dir=source_dir)
    return status


def _write(gradebook: Path, roster: list, results: dict, *, assignment: str, source_dir: Path | None) -> int:
    from autograder.outputs.gradebook import GradebookEntry, GradebookMismatch, write_gradebook
    from autograder.terminal import printable

    name = assignment
    entries = [
        GradebookEntry(
            student=s.nbgrader_id,
            result=results[s.uid],
            label=s.name,
            timestamp_file=s.timestamp_file or _edition_timestamp(s.path, assignment),
        )
        for s in roster
        if s.uid in results
    ]
    try:
        summary = write_gradebook(entries, gradebook, assignment=name, source_dir=source_dir)
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
        f"(assignment {name!r}, notebook {summary.notebook!r}, one grade cell per area)",
        file=sys.stderr,
    )
    return 0


def _edition_timestamp(path: Path, assignment: str) -> Path | None:
    # The roster finds nbgrader's timestamp.txt for the --assignment folder only; an edition's is beside its file.
    return path.parent / "timestamp.txt" if path.parent.name == assignment else None
