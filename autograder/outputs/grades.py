"""Trusted: a batch's ``grades.csv``: one row per student of the manifest, safe to open in a spreadsheet.

Columns: ``student, score, max_score, status, kind, <one per area>, submitted, late_by, late_penalty,
final_score, id, submission, confusable_with, note, similar_to``. ``status`` is how the run went as the class
table and the pages name it (``wording.run_state``: ``ok``, ``syntax error``, ``unreadable``, ``timeout``, ...),
``kind`` what the report sorts the row into (``classview``). ``score`` is the grader's mark; ``final_score``
is it after the late policy's ``late_penalty`` (``outputs.lateness``); ``submitted`` is nbgrader's timestamp.
A student without a score (grader error, no result yet) has empty score cells, never a 0 that could be
uploaded as a grade. ``confusable_with`` names the students whose names look the same ("аlice" in Cyrillic
beside "alice"); ``note`` says which edition was graded and why when a student handed in several, and what
else was in the student's nbgrader folder and was not graded; ``similar_to``, the hand-ins the similarity pass
found sharing this one's code, each with both shares (``outputs.similarity``).
Text cells follow OWASP's rule against formula injection: a cell starting with ``= + - @``, a tab, a
carriage return or a NUL (or their full-width forms) gets a leading ``'``, and every text cell is quoted.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from autograder.outputs.atomic import write_text
from autograder.outputs.classview import Row
from autograder.outputs.lateness import MISSING
from autograder.outputs.roster import display_name
from autograder.outputs.wording import duration, run_state

__all__ = ["neutralise", "grades_csv", "write_grades"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\0", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def neutralise(cell: object) -> object:
    """A text cell a spreadsheet shows as text (numbers pass through unchanged)."""
    if isinstance(cell, str) and cell.startswith(_FORMULA_START):
        return "'" + cell
    return cell


_LATE = ("submitted", "late_by", "late_penalty", "final_score")


def _late(row: Row, result) -> list:
    """submitted, late_by, late_penalty, final_score: when it came in against the due date, and the grader's
    score after the late policy's penalty (the score itself stays the grader's)."""
    late = row.late
    if late is not None and late.problem:
        late_by = "unknown: timestamp.txt unreadable" if late.due else ""
        submitted = "unreadable timestamp.txt"
    elif late is not None and late.due and late.stamp == MISSING:
        submitted, late_by = "", "unknown: no timestamp.txt"
    else:
        submitted = late.submitted if late is not None else ""
        late_by = (duration(late.seconds) if late.seconds > 0 else "on time") if late and late.due and submitted else ""
    penalty = late.penalty if late is not None else 0.0
    if result is None:
        return [submitted, late_by, "", ""]
    return [submitted, late_by, penalty, round(max(0.0, result.score - penalty), 6)]


def grades_csv(rows: list[Row]) -> str:
    areas: list[str] = []
    for row in rows:
        if row.result is not None:
            areas += [a for a in row.result.areas if a not in areas]
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    header = ["student", "score", "max_score", "status", "kind", *areas, *_LATE, "id", "submission"]
    header += ["confusable_with", "note", "similar_to"]
    writer.writerow([neutralise(h) for h in header])
    for row in rows:
        r = row.result
        scored = r is not None and row.kind != "grader error"
        score = [r.score, r.max_score] if scored else ["", ""]
        per_area = [r.areas.get(a, (0.0, 0.0))[0] for a in areas] if scored else [""] * len(areas)
        status = run_state(r) if r is not None else "no result"  # as the class table and the pages say it
        cells = [row.name, *score, status, row.kind, *per_area, *_late(row, r if scored else None)]
        cells += [row.uid, display_name(row.submission)]
        cells += ["; ".join(row.confusable_with), "; ".join(n for n in (row.edition_note, row.note) if n)]
        cells += ["; ".join(row.similar_to)]
        writer.writerow([neutralise(c) for c in cells])
    return buf.getvalue()


def write_grades(out: str | Path, rows: list[Row]) -> Path:
    """``<out>/grades.csv``, atomically; returns its path."""
    return write_text(Path(out) / "grades.csv", grades_csv(rows))
