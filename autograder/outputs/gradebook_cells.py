"""Trusted: inside nbgrader's gradebook: the kit's task cells (one per area: ``kit_cells``), found (or made where
nbgrader has no source), and one student's per-area points written into them.

Rules, in the order they are checked (each failure is a GradebookMismatch that names the fix):

1. the assignment exists (made by ``nbgrader generate_assignment``, or by the kit where no source exists);
2. every area has a cell ``autograder_<area>`` in one of its notebooks; only a notebook the kit made
   (``autograder``, or an assignment with no notebook at all) may get new cells, since nbgrader refuses
   changed cells in its own notebooks once submissions exist;
3. that cell is a task cell (``nbgrader autograde`` would overwrite an autograded cell's score);
4. its points equal the area's points in the hidden suite.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.result import Result

__all__ = [
    "CELL_PREFIX",
    "NOTEBOOK",
    "GradebookMismatch",
    "KitCell",
    "kit_cells",
    "find_or_make_cells",
    "other_points",
    "write_student",
    "cell_instructions",
]

CELL_PREFIX = "autograder_"
NOTEBOOK = "autograder"  # the notebook made for an assignment that has no nbgrader source


class GradebookMismatch(ValueError):
    """The gradebook's assignment cannot take the kit's scores as it is; the message says what to change."""


@dataclass(frozen=True)
class KitCell:
    area: str
    grade_id: str
    points: float

    def metadata(self) -> dict:
        """The nbgrader metadata of the source notebook's markdown cell for this area."""
        return {
            "grade": False,
            "grade_id": self.grade_id,
            "locked": True,
            "points": self.points,
            "schema_version": 3,
            "solution": False,
            "task": True,
        }


def kit_cells(areas: dict[str, float]) -> list[KitCell]:
    """One cell per area (area -> its points), ids unique: 'parameter identity' -> 'autograder_parameter_identity'."""
    cells: list[KitCell] = []
    for area, points in areas.items():
        base = CELL_PREFIX + (re.sub(r"[^A-Za-z0-9]+", "_", area).strip("_").lower()[:80] or "area")
        name, n = base, 2
        while name in {c.grade_id for c in cells}:
            name, n = f"{base}_{n}", n + 1
        cells.append(KitCell(area=area, grade_id=name, points=float(points)))
    return cells


def cell_instructions(cells: list[KitCell], assignment: str) -> str:
    """What the source notebook must carry, as one readable paragraph."""
    listing = "; ".join(f"{c.grade_id} = {c.points:g} points ({c.area})" for c in cells)
    example = json.dumps({"nbgrader": cells[0].metadata()}) if cells else "{}"
    return (
        f"Add one markdown cell per area of the hidden suite to the source notebook "
        f"(source/{assignment}/<notebook>.ipynb) with metadata like {example}: {listing}. Then run "
        f"`nbgrader generate_assignment {assignment} --force` (before any submission is autograded: nbgrader "
        "refuses new cells afterwards) and grade again. Or give --gradebook-assignment NAME to keep the kit's "
        "scores in an assignment of their own (exports then have a second row per student)."
    )


def find_or_make_cells(gb, assignment: str, cells: list[KitCell], *, source_dir: Path | None, db: Path) -> str:
    """The notebook holding the kit's cells, after checking (or making) them; GradebookMismatch otherwise."""
    from nbgrader.api import MissingEntry

    try:
        found = gb.find_assignment(assignment)
    except MissingEntry:
        if source_dir is not None and (Path(source_dir) / assignment).is_dir():
            raise GradebookMismatch(
                f"assignment {assignment!r} has a source folder but is not in {str(db)!r}: run "
                f"`nbgrader generate_assignment {assignment}` in the course first, then grade again"
            ) from None
        gb.add_assignment(assignment)
        found = gb.find_assignment(assignment)
    where: dict[str, tuple[str, str, float]] = {}  # grade_id -> (notebook, "task"|"grade", max)
    for nb in found.notebooks:
        for cell in nb.task_cells:
            where[cell.name] = (nb.name, "task", float(cell.max_score))
        for cell in nb.grade_cells:
            where.setdefault(cell.name, (nb.name, "grade", float(cell.max_score)))
    missing = [c for c in cells if c.grade_id not in where]
    ours = {nb.name for nb in found.notebooks} <= {NOTEBOOK}
    if missing and not ours:
        names = ", ".join(sorted(nb.name for nb in found.notebooks))
        raise GradebookMismatch(
            f"assignment {assignment!r} (notebooks: {names}) has no cell for "
            + ", ".join(repr(c.area) for c in missing)
            + ". "
            + cell_instructions(cells, assignment)
        )
    if missing:
        try:
            gb.find_notebook(NOTEBOOK, assignment)
        except MissingEntry:
            gb.add_notebook(NOTEBOOK, assignment)
        for cell in missing:
            gb.update_or_create_task_cell(
                cell.grade_id, NOTEBOOK, assignment, max_score=cell.points, cell_type="markdown"
            )
            where[cell.grade_id] = (NOTEBOOK, "task", cell.points)
        gb.db.flush()
    problems = []
    for cell in cells:
        notebook, kind, points = where[cell.grade_id]
        if kind != "task":
            problems.append(
                f"{cell.grade_id} (notebook {notebook}) is an autograded test cell: `nbgrader autograde` would "
                "overwrite the kit's score; make it a markdown task cell (task: true, grade: false)"
            )
        elif abs(points - cell.points) > 1e-9:
            problems.append(
                f"{cell.grade_id} (notebook {notebook}) is worth {points:g} points but the hidden suite's area "
                f"{cell.area!r} is worth {cell.points:g}: set points to {cell.points:g} in the source notebook"
            )
    notebooks = {where[c.grade_id][0] for c in cells}
    if len(notebooks) > 1:
        problems.append(f"the kit's cells are spread over notebooks {sorted(notebooks)}: keep them in one")
    if problems:
        raise GradebookMismatch(
            f"assignment {assignment!r} cannot take the kit's scores: "
            + "; ".join(problems)
            + f"; then run `nbgrader generate_assignment {assignment} --force`"
        )
    return notebooks.pop()


def other_points(gb, assignment: str, cells: list[KitCell]) -> float:
    """Points the assignment's other cells carry besides the kit's (nbgrader adds them to the kit's total)."""
    ours = {c.grade_id for c in cells}
    total = 0.0
    for nb in gb.find_assignment(assignment).notebooks:
        total += sum(float(c.max_score or 0) for c in [*nb.grade_cells, *nb.task_cells] if c.name not in ours)
    return total


def write_student(
    gb,
    assignment: str,
    notebook: str,
    student: str,
    result: Result,
    cells: list[KitCell],
    timestamp: str | None,
    late_penalty: float = 0.0,
    extension=None,
) -> int:
    """Write one student's area points (auto scores), late penalty (nbgrader's, on the notebook, apart from the
    points) and the kit's extension (a timedelta; None leaves the gradebook's); returns how many of their cells
    keep a TA's manual score."""
    from nbgrader.api import Grade, MissingEntry, SubmittedNotebook

    gb.update_or_create_student(student)
    when = {"timestamp": timestamp} if timestamp else {}
    try:
        submission = gb.update_or_create_submission(assignment, student, **when)
    except (ValueError, TypeError, OverflowError):  # a malformed timestamp.txt is the upload tool's, not a grade
        submission = gb.update_or_create_submission(assignment, student)
    if extension is not None:
        submission.extension = extension or None  # nbgrader's "no extension" is None, not 0
    # nbgrader makes a submission's notebooks and grades with the submission (add_submission) and has no call that
    # adds one later: a notebook or cell the kit added after this student's submission gets its row here.
    try:
        sub_nb = gb.find_submission_notebook(notebook, assignment, student)
    except MissingEntry:  # a submission made before the kit's notebook existed
        sub_nb = SubmittedNotebook(notebook=gb.find_notebook(notebook, assignment), assignment=submission)
        gb.db.add(sub_nb)
        gb.db.flush()
    sub_nb.late_submission_penalty = late_penalty or None  # what nbgrader's AssignLatePenalties leaves for none
    manual = 0
    areas = result.areas
    for cell in cells:
        try:
            grade = gb.find_grade(cell.grade_id, notebook, assignment, student)
        except MissingEntry:  # a cell added after this submission was first written
            grade = Grade(cell_id=gb.find_task_cell(cell.grade_id, notebook, assignment).id, notebook=sub_nb)
            gb.db.add(grade)
        grade.auto_score = float(areas.get(cell.area, (0.0, 0.0))[0])
        grade.needs_manual_grade = False
        manual += grade.manual_score is not None
    return manual
