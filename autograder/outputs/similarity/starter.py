"""Trusted: the code every hand-in starts from, which is never evidence that two students shared their work.

- ``released_cells``: each edition's code cells as nbgrader released them (stubs, practice checks, demonstrations,
  imports): the course's ``release/<edition>/<notebook>.ipynb`` where nbgrader wrote one, else the source notebook
  (``source/<edition>/``, built by ``scripts/build_notebook.py``) with its solution regions replaced as nbgrader's
  ``ClearSolutions`` replaces them (``cleared``). Every edition counts: a student who moves their code from the
  English notebook to the Chinese one shares none of either's starter code with anyone.
- ``expected_code``: what this exercise makes students write alike, set aside as common: the reference solution
  (the chapter's own way) and the grader's calibration corpus, correct and wrong files in many styles. On a class
  too small for its own counts to tell what is common, these stand in for "many hand-ins" (``engine``).

The courses looked in: the one given (``--nbgrader-course``), the one whose ``submitted/`` folder is being read,
and the kit's own. Missing files are said, never fatal: the pass then sets aside only what the class shares.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.graders.spec import AssignmentSpec

__all__ = ["Starter", "released_cells", "cleared", "expected_code", "code_cells", "CODE_STUB", "same_cell"]

# nbgrader's default ClearSolutions.code_stub for Python, and its delimiters.
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
_BEGIN, _END = "### BEGIN SOLUTION", "### END SOLUTION"
_MAX_NOTEBOOK_BYTES = 8 << 20  # a released notebook is ~60 KiB; anything far larger is not one
_CORPUS = ("correct", "wrong")  # the calibration folders of plain submissions (not attacks nor tricks)


@dataclass
class Starter:
    cells: list[str] = field(default_factory=list)  # released code cells, every edition
    expected: list[str] = field(default_factory=list)  # reference and corpus files: what is alike by nature
    found: list[Path] = field(default_factory=list)  # the notebooks read
    problems: list[str] = field(default_factory=list)  # what could not be read, and the fix


def cleared(source: str, *, solution: bool) -> str:
    """`source` as nbgrader's ClearSolutions releases it: each BEGIN/END SOLUTION region becomes the code stub at
    the region's indentation; a solution cell without a region becomes the stub whole."""
    lines, kept, inside, replaced = source.split("\n"), [], False, False
    for line in lines:
        if _BEGIN in line:
            inside = replaced = True
            indent = re.match(r"\s*", line).group(0)
            kept += [indent + stub for stub in CODE_STUB.split("\n")]
        elif _END in line:
            inside = False
        elif not inside:
            kept.append(line)
    if solution and not replaced:
        return CODE_STUB
    return "\n".join(kept)


def same_cell(text: str) -> str:
    """A cell's text compared as a cell: line endings and trailing spaces aside."""
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip("\n")


def code_cells(nb: object) -> list[tuple[int, str, dict]]:
    """(1-based cell number, source, metadata) of each code cell of a parsed notebook (odd cells skipped)."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    found = []
    for number, cell in enumerate(cells if isinstance(cells, list) else [], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        if isinstance(source, str):
            found.append((number, source, metadata))
    return found


def _read_notebook(path: Path) -> dict | None:
    if not path.is_file() or path.stat().st_size > _MAX_NOTEBOOK_BYTES:
        return None
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return nb if isinstance(nb, dict) else None


def released_cells(editions: tuple[str, ...], notebook: str, courses: list[Path]) -> Starter:
    """Every edition's released code cells, from the first course in `courses` that has each edition."""
    starter = Starter()
    for edition in editions:
        for course in courses:
            released = _read_notebook(course / "release" / edition / f"{notebook}.ipynb")
            source = _read_notebook(course / "source" / edition / f"{notebook}.ipynb")
            if released is None and source is None:
                continue
            if released is not None:
                starter.cells += [text for _, text, _ in code_cells(released)]
                starter.found.append(course / "release" / edition / f"{notebook}.ipynb")
            if source is not None:
                for _, text, metadata in code_cells(source):
                    kit = metadata.get("nbgrader") if isinstance(metadata.get("nbgrader"), dict) else {}
                    starter.cells.append(cleared(text, solution=bool(kit.get("solution"))))
                starter.found.append(course / "source" / edition / f"{notebook}.ipynb")
            break
        else:
            where = " or ".join(str(c / "source" / edition / f"{notebook}.ipynb") for c in courses) or "no course"
            starter.problems.append(
                f"the released {edition} notebook was not found ({where}): its starter code is set aside only where "
                f"the class shares it; build it (python scripts/build_notebook.py --assignment {edition}) or give "
                "--nbgrader-course COURSE"
            )
    starter.cells = list(dict.fromkeys(starter.cells))
    return starter


def expected_code(spec: AssignmentSpec) -> list[str]:
    """The reference solution and the grader's correct and wrong calibration files (a notebook's code cells)."""
    paths = [Path(spec.solution_path)]
    for folder in _CORPUS:
        paths += sorted((Path(spec.calibration_dir) / folder).glob("*"))
    texts = []
    for path in paths:
        if path.suffix == ".py" and path.is_file():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        elif path.suffix == ".ipynb":
            nb = _read_notebook(path)
            texts.append("\n\n".join(text for _, text, _ in code_cells(nb)) if nb is not None else "")
    return [text for text in texts if text.strip()]
