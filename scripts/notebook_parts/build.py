"""One edition's notebook, assembled from an assignment's content (its cells, each edition's words, its solutions
file, the hidden suite's points) and the parts every assignment shares.

``notebook(side, language)`` is the instructor's notebook, solutions included: the markdown in the edition's words
with its placeholders filled (the points, the self-check's time budgets), code cells in the edition's words, the
solution cells copied from the solutions file (their solution regions verbatim), nbgrader's metadata on solution,
test and task cells, each demo cell tagged ``demo``, and notebook metadata naming the grader and the edition's
language (``course_kit.language``: how the grader knows which language to give feedback in). Cell ids are stable,
so a rebuild is identical.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat

from . import printed
from .cells import TASK_TEXT
from .wrapping import join_wrapped_lines

__all__ = [
    "DEMO_TAG",
    "KERNELSPEC",
    "solution_source",
    "demo_metadata",
    "points_table",
    "task_cells",
    "task_metadata",
    "budget",
    "notebook",
]

DEMO_TAG = "demo"  # a code cell that only shows: nothing the exercises use is defined there
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
BUDGET = Path(__file__).resolve().parents[2] / "coursecheck" / "budget.py"  # the self-check's time budgets


def solution_source(name: str, path: Path) -> str:
    """The exact text of class or function `name` in the solutions file at `path` (decorators included)."""
    text = path.read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == name:
            lines = text.splitlines()
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            # ast's end_lineno stops at the last statement; the definition really ends before the next
            # top-level line, so a trailing `### END SOLUTION` comment is kept.
            last = node.end_lineno
            while last < len(lines) and (not lines[last].strip() or lines[last][0] in " \t"):
                last += 1
            return "\n".join(lines[first - 1 : last]).rstrip()
    raise ValueError(f"no class {name!r} in {path}: add it there, or fix the name in the notebook's cells")


def _nbgrader(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: int = 0) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


def demo_metadata() -> dict:
    """A demo cell's metadata: the tag, for the reader. What decides that a cell is the released demonstration
    is its text, against the digests the build records, never what a notebook's metadata says."""
    return {"tags": [DEMO_TAG]}


def _n(points: float) -> str:
    return f"{points:g}"


def points_table(points, edition) -> str:
    """The grader's points per area and exercise, as a markdown table in the edition's language."""
    areas = points.by_area(points.suite_tests())
    head = edition.TABLE_HEADER
    rows = [f"| {' | '.join(head)} |", "|---|" + "--:|" * (len(points.exercises) + 1)]
    for area, per in areas.items():
        name = edition.AREA_NAMES.get(area) or area  # an edition names the areas in its own words only
        rows.append(f"| {name} | {' | '.join(_n(p) for p in per.values())} | {_n(sum(per.values()))} |")
    totals = points.by_exercise(points.suite_tests())
    cells = " | ".join(f"**{_n(p)}**" for p in (*totals.values(), sum(totals.values())))
    rows.append(f"| **{head[-1]}** | {cells} |")
    return "\n".join(rows)


def task_cells(content) -> dict:
    """area -> the gradebook's KitCell for it (grade_id, points), exactly as autograder.outputs.gradebook
    expects; ValueError when the notebook's task cells and the hidden suite's areas differ."""
    from autograder.outputs.gradebook import kit_cells

    points = content.POINTS
    areas = {area: sum(per.values()) for area, per in points.by_area(points.suite_tests()).items()}
    in_notebook = [c.source for c in content.CELLS if c.kind == "task"]
    if sorted(in_notebook) != sorted(areas):
        raise ValueError(
            f"the notebook's task cells {in_notebook} must be the hidden suite's areas {sorted(areas)}, one "
            f"each: add or remove task(...) cells in {content.__name__.rpartition('.')[2]}/"
        )
    return {cell.area: cell for cell in kit_cells(areas)}


def task_metadata(kit) -> dict:
    """nbgrader's metadata of a task cell: the gradebook's own definition, points written as integers if whole."""
    meta = kit.metadata()
    meta["points"] = int(kit.points) if float(kit.points).is_integer() else kit.points
    return meta


def _task_text(kit, content, edition, values: dict[str, str]) -> str:
    per = content.POINTS.by_area(content.POINTS.suite_tests())[kit.area]
    local = edition.AREA_NAMES.get(kit.area, kit.area)
    fill = {**values, "area": kit.area, "area_name": local, "points": _n(kit.points)}
    fill.update({f"area_ex{n}": _n(points) for n, points in per.items()})
    fill["area_split"] = content.POINTS.area_split(per, edition)
    return _markdown(TASK_TEXT, edition, fill)


def budget(name: str) -> float:
    """A time budget of the self-check (coursecheck/budget.py's constant `name`), which the notebook states: read
    from the file, so that the notebook says what the self-check keeps."""
    for node in ast.parse(BUDGET.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return float(ast.literal_eval(node.value))
    raise ValueError(f"{BUDGET} sets no {name} = <number>: the notebook states it, so keep it a plain constant there")


def _markdown(key: str, edition, values: dict[str, str]) -> str:
    if key not in edition.TEXT:
        raise ValueError(
            f"the {edition.LANGUAGE} edition has no text for markdown cell {key!r}: add it to {edition.__name__}"
        )
    text = edition.TEXT[key].strip("\n")
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", value)
    left = re.findall(r"\{\{(\w+)\}\}", text)
    if left:
        raise ValueError(
            f"{edition.LANGUAGE} text {key!r} uses unknown placeholders {left}: known are {sorted(values)}"
        )
    return join_wrapped_lines(text) if edition.JOIN_WRAPPED_LINES else text


def notebook(side, language: str) -> nbformat.NotebookNode:
    """The instructor's notebook of `side`'s (an assignment's student side) edition in `language`: solutions
    included."""
    content = side.content
    edition = content.EDITIONS[language]
    used = {c.source for c in content.CELLS if c.kind == "markdown"} | {TASK_TEXT}
    unused = set(edition.TEXT) - used
    if unused:
        raise ValueError(f"{edition.__name__} has texts no cell uses: {sorted(unused)}")
    totals = content.POINTS.by_exercise(content.POINTS.suite_tests())
    values = {
        "total": _n(sum(totals.values())),
        **{f"ex{n}": _n(points) for n, points in totals.items()},
        "points_table": points_table(content.POINTS, edition),
        "step_seconds": _n(budget("STEP_SECONDS")),
        "run_minutes": _n(budget("RUN_SECONDS") / 60),
    }
    tasks = task_cells(content)
    printed.check(content.EDITIONS, content.CELLS)
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "course_kit": {
            "assignment": side.grader,
            "language": language,
            "generated_by": f"scripts/build_notebook.py (edit scripts/{side.content_name}/ and solutions/)",
        },
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    seen_ids: set[str] = set()
    for index, cell in enumerate(content.CELLS):
        if cell.kind == "markdown":
            new = nbformat.v4.new_markdown_cell(_markdown(cell.source, edition, values))
        elif cell.kind == "code":
            new = nbformat.v4.new_code_cell(printed.code(cell, edition))
        elif cell.kind == "demo":
            new = nbformat.v4.new_code_cell(printed.code(cell, edition))
            new.metadata.update(demo_metadata())
        elif cell.kind == "solution":
            source = solution_source(cell.source, content.SOLUTIONS)  # its docstring and comments in the edition's
            new = nbformat.v4.new_code_cell(printed.code(cell._replace(source=source), edition))
            new.metadata["nbgrader"] = _nbgrader(cell.grade_id, grade=False, solution=True, locked=False)
        elif cell.kind == "test":
            new = nbformat.v4.new_code_cell(printed.code(cell, edition, side.group_name))
            new.metadata["nbgrader"] = _nbgrader(
                cell.grade_id, grade=True, solution=False, locked=True, points=cell.points
            )
        elif cell.kind == "task":
            kit = tasks[cell.source]
            new = nbformat.v4.new_markdown_cell(_task_text(kit, content, edition, values))
            new.metadata["nbgrader"] = task_metadata(kit)
            cell = cell._replace(grade_id=kit.grade_id)
        else:
            raise ValueError(f"cell {index} has unknown kind {cell.kind!r}")
        new.id = cell.grade_id or f"cell-{index:02d}"  # stable (nbformat's are random): rebuilds are identical
        if new.id in seen_ids:
            raise ValueError(f"duplicate grade_id {new.id!r}: nbgrader needs unique ids")
        seen_ids.add(new.id)
        nb.cells.append(new)
    nbformat.validate(nb)
    return nb
