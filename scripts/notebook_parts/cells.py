"""Cell constructors for an assignment's notebook, shared by its editions (and by every assignment's content).

`md("key")` is a markdown cell whose text each edition supplies (its text_<language>.py); `code(...)` a plain
code cell the exercises need (the imports); `demo(...)` a code cell that shows something and defines nothing
the exercises use (the self-check leaves it out while it is as released); `solution("Name")` a solution cell
holding class (or function) `Name` of the assignment's solutions file; `test(...)` an nbgrader test cell
(read-only for students, restored at autograde time); `practice(...)` the test cell that runs one group of the
public checks of the assignment's checks package, worth 0 points; `task("area")` the markdown task cell that
holds one graded area's score in nbgrader's gradebook (its id and points come from the hidden suite at build
time).
The editions share every code cell; what one prints or draws is each edition's own: a code cell says `{{key}}`
where the edition's words go (``PRINTED[key]``, inside an f-string: its `{name}`s are the cell's variables), and a
practice cell's first line is the edition's ``PRACTICE_CHECK``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Cell", "md", "code", "demo", "solution", "test", "practice", "task", "TASK_TEXT"]

TASK_TEXT = "graded_area"  # the key of every edition's text for a task cell (placeholders: area, points, ...)


class Cell(NamedTuple):
    kind: str  # "markdown", "code", "demo", "solution", "test" or "task"
    source: str  # code; for "markdown", the key of the text; for "solution", the class name; for "task", the area
    grade_id: str = ""  # nbgrader's unique id (solution and test cells)
    points: int = 0  # test cells only: what nbgrader's own autograde counts
    group: str = ""  # practice cells only: the group of public checks they run (the <assignment>_checks package)


def md(key: str) -> Cell:
    return Cell("markdown", key)


def code(text: str) -> Cell:
    return Cell("code", text.strip("\n"))


def demo(text: str) -> Cell:
    """A demonstration: run by the notebook and the grader, left out by the self-check while unchanged."""
    return Cell("demo", text.strip("\n"))


def solution(class_name: str) -> Cell:
    return Cell("solution", class_name, grade_id=f"solution_{class_name}")


def test(grade_id: str, source: str, points: int = 0, group: str = "") -> Cell:
    return Cell("test", source.strip("\n"), grade_id=grade_id, points=points, group=group)


def practice(grade_id: str, group: str, *classes: str, package: str) -> Cell:
    """The practice check of one group of the checks package `package` (the pytest self-check runs the same
    checks); its first line, `{{practice_check}}`, says so in the edition's words."""
    given = ", ".join(f"{name}={name}" for name in classes)
    return test(
        grade_id,
        f'# {{{{practice_check}}}}\nfrom {package} import practice\n\npractice("{group}", {given})',
        group=group,
    )


def task(area: str) -> Cell:
    """The gradebook's cell for one graded area of the hidden suite (named exactly as the suite's area marker).

    The kit's grader writes the area's score into it (autograder.outputs.gradebook); nbgrader never
    autogrades a task cell. Its grade_id and points are filled in by the build from the suite.
    """
    return Cell("task", area)
