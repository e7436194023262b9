"""Trusted: an assignment's editions in nbgrader's gradebook: each student's scores go into the edition
(nbgrader assignment) they handed in, e.g. ``weight_tying`` or ``weight_tying_zh``.

The editions of one assignment are nbgrader assignments of their own, graded by one grader
(``autograder.graders.editions_of``); one batch grades them all. The writing itself is
``autograder.outputs.gradebook.record_in_gradebook``, once per edition.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from autograder.outputs.gradebook import record_in_gradebook

__all__ = ["record_by_edition"]


def record_by_edition(
    roster: list, results: dict, gradebook: Path, *, assignment: str, course: Path | None, editions: tuple[str, ...]
) -> int:
    """record_in_gradebook for each edition: a student whose file sits in ``<student>/<edition>/`` (an edition
    in `editions`) is written there, everyone else into `assignment`; 0 when every write succeeded, else 1."""
    groups: dict[str, list] = {}
    for student in roster:
        folder = student.path.parent.name
        if folder in editions and student.timestamp_file is None:
            # The roster finds nbgrader's timestamp.txt in the --assignment folder only; an edition's is beside it.
            student = replace(student, timestamp_file=student.path.parent / "timestamp.txt")
        groups.setdefault(folder if folder in editions else assignment, []).append(student)
    status = 0
    for name, students in groups.items():
        status |= record_in_gradebook(students, results, gradebook, assignment=name, course=course)
    return status
