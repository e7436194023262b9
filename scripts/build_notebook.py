"""Build the weight-tying source notebook from scripts/weight_tying_notebook/ and solutions/weight_tying.py.

    python scripts/build_notebook.py            # (re)write assignments/source/weight_tying/weight_tying.ipynb
    python scripts/build_notebook.py --check    # exit 1 if the committed notebook differs from a fresh build

The solution cells are the classes of solutions/weight_tying.py copied verbatim, so the reference answer has
one source of truth; tests/assignment/test_notebook_build.py runs the --check.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from pathlib import Path

import nbformat

__all__ = ["ROOT", "NOTEBOOK", "SOLUTIONS", "solution_class_source", "build_notebook", "main"]

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb"
SOLUTIONS = ROOT / "solutions" / "weight_tying.py"
CELLS_PACKAGE = Path(__file__).resolve().with_name("weight_tying_notebook")

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _load_cells() -> list:
    # scripts/ is not on sys.path: load the content package by path (registered so its relative imports work).
    name = "_weight_tying_notebook_cells"
    spec = importlib.util.spec_from_file_location(name, CELLS_PACKAGE / "__init__.py",
                                                  submodule_search_locations=[str(CELLS_PACKAGE)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module.CELLS


def solution_class_source(class_name: str, path: Path = SOLUTIONS) -> str:
    """The exact text of `class class_name` in the solutions file (decorators included)."""
    text = path.read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            lines = text.splitlines()
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            # ast's end_lineno stops at the last statement; the class really ends before the next
            # top-level line, so a trailing `### END SOLUTION` comment is kept.
            last = node.end_lineno
            while last < len(lines) and (not lines[last].strip() or lines[last][0] in " \t"):
                last += 1
            return "\n".join(lines[first - 1 : last]).rstrip()
    raise ValueError(f"no class {class_name!r} in {path}: add it there, or fix the name in {CELLS_PACKAGE.name}/")


def _nbgrader(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: int = 0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if grade:
        meta["points"] = points
    return meta


def build_notebook() -> nbformat.NotebookNode:
    """The instructor's notebook: solutions and hidden tests included."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    seen_ids: set[str] = set()
    for index, cell in enumerate(_load_cells()):
        if cell.kind == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        elif cell.kind == "code":
            new = nbformat.v4.new_code_cell(cell.source)
        elif cell.kind == "solution":
            new = nbformat.v4.new_code_cell(solution_class_source(cell.source))
            new.metadata["nbgrader"] = _nbgrader(cell.grade_id, grade=False, solution=True, locked=False)
        elif cell.kind == "test":
            source = cell.source
            if cell.hidden:
                source += "\n\n### BEGIN HIDDEN TESTS\n" + cell.hidden + "\n### END HIDDEN TESTS"
            new = nbformat.v4.new_code_cell(source)
            new.metadata["nbgrader"] = _nbgrader(cell.grade_id, grade=True, solution=False, locked=True,
                                                 points=cell.points)
        else:
            raise ValueError(f"cell {index} has unknown kind {cell.kind!r}")
        # Stable ids (nbformat makes random ones) so that a rebuild is byte-for-byte identical.
        new.id = cell.grade_id or f"cell-{index:02d}"
        if new.id in seen_ids:
            raise ValueError(f"duplicate grade_id {new.id!r}: nbgrader needs unique ids")
        seen_ids.add(new.id)
        nb.cells.append(new)
    nbformat.validate(nb)
    return nb


def render() -> str:
    return nbformat.writes(build_notebook()) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed notebook, write nothing")
    parser.add_argument("--output", type=Path, default=NOTEBOOK, help=f"default: {NOTEBOOK.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.is_file() else ""
        if current != text:
            print(f"{args.output} is out of date: run python scripts/build_notebook.py", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
