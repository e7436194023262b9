"""Trusted: an assignment's editions in nbgrader's gradebook: each student's scores go into the edition
(nbgrader assignment) they handed in, e.g. ``weight_tying`` or ``weight_tying_zh``.

The editions of one assignment are nbgrader assignments of their own, graded by one grader
(``autograder.graders.editions_of``); one batch grades them all. The writing itself is
``autograder.outputs.gradebook.record_in_gradebook``, once per edition.
"""

from __future__ import annotations

from pathlib import Path

from autograder.outputs.gradebook import record_in_gradebook

__all__ = ["record_by_edition"]


def record_by_edition(
    roster: list, results: dict, gradebook: Path, *, assignment: str, course: Path | None, editions: tuple[str, ...]
) -> int:
    """record_in_gradebook for each edition: a student whose file sits in ``<root>/<student>/<edition>/`` (an
    edition in `editions`, as the roster found it) is written there, everyone else into `assignment`; 0 when
    every write succeeded, else 1. The folder names come from the roster only, never from the file's own
    folder: a student's nested ``weight_tying_zh/`` folder or ``timestamp.txt`` changes neither the edition
    nor the submission time (nbgrader's ``<root>/<student>/<edition>/timestamp.txt``)."""
    groups: dict[str, list] = {}
    for student in roster:
        groups.setdefault(student.edition if student.edition in editions else assignment, []).append(student)
    status = 0
    for name, students in groups.items():
        status |= record_in_gradebook(students, results, gradebook, assignment=name, course=course)
    return status
