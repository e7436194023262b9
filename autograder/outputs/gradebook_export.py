"""Trusted: ``nbgrader export`` for a course with editions: one row per student, in the edition they took.

nbgrader's own CSV exporter writes every assignment x every student in the gradebook, so a student of the
Chinese edition also gets a ``weight_tying`` row with 0 points and no timestamp: "took the other edition"
reads as "scored 0". It also writes each cell unquoted, so an id with a comma shifts the columns. This
exporter, which the course's ``nbgrader_config.py`` selects::

    c.ExportApp.plugin_class = "autograder.outputs.gradebook_export.EditionsExportPlugin"

writes nbgrader's columns, with these differences:

- the editions of one assignment (nbgrader assignments graded by one grader, ``autograder.graders``) are one
  assignment: each student gets one row, in the edition they handed in (with nbgrader's timestamp); one
  who handed in none gets one row, in the first edition, with 0 and no timestamp, as nbgrader does;
- a student with submissions in several editions gets the one the kit grades by its rule
  (``grading.handins``): the later by nbgrader's timestamp, else the first edition's;
- cells are CSV-quoted where needed, and text that a spreadsheet would run as a formula gets a leading ``'``.

Other assignments are exported as nbgrader does. ``--assignment`` and ``--student`` filter as in nbgrader (a
student who took an edition left out by ``--assignment`` has no row, rather than a 0 in the other one).
"""

from __future__ import annotations

import csv

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

from autograder.outputs.grades import neutralise

__all__ = ["EditionsExportPlugin", "edition_groups", "export_rows", "COLUMNS"]

COLUMNS = (
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
)

_TEXT = {"assignment", "student_id", "last_name", "first_name", "email"}  # typed by people: may hold a formula


def edition_groups(names: list[str]) -> list[tuple[str, ...]]:
    """The gradebook's assignments (in its order) grouped into editions of one assignment: names graded by
    one grader of the kit form a group, in the registry's order (the first is the kit's --assignment)."""
    from autograder.graders import ASSIGNMENTS

    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(ASSIGNMENTS.get(name, f"not the kit's: {name}"), []).append(name)
    order = list(ASSIGNMENTS)
    return [tuple(sorted(group, key=lambda n: order.index(n) if n in order else 0)) for group in groups.values()]


def _row(assignment, student, submission) -> dict:
    row = {
        "assignment": assignment.name,
        "duedate": assignment.duedate,
        "student_id": student.id,
        "last_name": student.last_name,
        "first_name": student.first_name,
        "email": student.email,
        "max_score": assignment.max_score,
        "timestamp": "",
        "raw_score": 0.0,
        "late_submission_penalty": 0.0,
        "score": 0.0,
    }
    if submission is not None:
        penalty = submission.late_submission_penalty
        row.update(
            timestamp=submission.timestamp,
            raw_score=submission.score,
            late_submission_penalty=penalty,
            score=max(0.0, submission.score - penalty),
        )
    return {key: "" if value is None else value for key, value in row.items()}


def _graded(handed_in: list[tuple[str, object]]) -> tuple[str, object] | None:
    """Of a student's (edition, submission) pairs in the group's order, the one the kit grades: the later
    timestamp when every one has a distinct one, else the first (``grading.handins.choose_edition``'s rule)."""
    times = [submission.timestamp for _, submission in handed_in]
    if len(handed_in) > 1 and None not in times and times.count(max(times)) == 1:
        return handed_in[times.index(max(times))]
    return handed_in[0] if handed_in else None


def export_rows(gradebook: Gradebook, *, assignments: list[str] = (), students: list[str] = ()) -> list[dict]:
    """One dict per row (COLUMNS as keys), filtered by assignment and student names as nbgrader filters."""
    by_name = {a.name: a for a in gradebook.assignments}
    rows = []
    for group in edition_groups(list(by_name)):
        wanted = [name for name in group if not assignments or name in assignments]
        if not wanted:
            continue
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            handed_in = []
            for name in group:
                try:
                    handed_in.append((name, gradebook.find_submission(name, student.id)))
                except MissingEntry:
                    continue
            taken = _graded(handed_in)
            if taken is not None and taken[0] not in wanted:
                continue  # took an edition left out by --assignment: not a 0 in this one
            name, submission = taken or (wanted[0], None)
            rows.append(_row(by_name[name], student, submission))
    return rows


class EditionsExportPlugin(ExportPlugin):
    """nbgrader's CSV export, one row per student per assignment, editions counted as one (see the module)."""

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "grades.csv"
        self.log.info("Exporting grades to %s (one row per student, in the edition they took)", dest)
        rows = export_rows(
            gradebook, assignments=[str(a) for a in self.assignment], students=[str(s) for s in self.student]
        )
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(COLUMNS)
            for row in rows:
                writer.writerow([neutralise(str(row[key])) if key in _TEXT else str(row[key]) for key in COLUMNS])
