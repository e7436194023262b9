"""Untrusted: which cells of your notebook the self-check runs: the grader's cells, every one but the course's
demonstrations as released that nothing else needs.

A demonstration cell (tagged ``demo``: the worked examples, the plot, the try-it cell) shows something and
defines nothing the exercises use. While its text is the one released (its digest one of those the course
recorded, the release's ``released_demos.DIGESTS``) and no cell that runs can need it, the grader's runner
leaves it out, and so does the self-check: the same rule, ``coursecheck.cells.unneeded_demos``, on the same
cells. So a demonstration that would fail on your code (the try-it cell calling a ``generate`` that does not
crop, say) is reported by neither: what your code does wrong is what the checks report. A demo cell you changed
runs, as does every cell you added, whatever its tags, and one that raises is reported by both. No plotting or
tokenizer library to import, no demo to run.

Each function takes the assignment's ``SelfCheck`` first (``coursecheck.assignment``, which calls them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coursecheck.cells import DEMO_TAG, is_released_demo, unneeded_demos
from coursecheck.notebook import CellPlace, SyntaxSpot, cell_places, code_cells
from coursecheck.selfcheck import load_submission

from .budget import Clock
from .checks import Session

__all__ = ["TAG", "Loaded", "is_demo", "cell_names", "load"]

TAG = DEMO_TAG


@dataclass
class Loaded:
    """A submission as the checks see it: its classes' session, the cells that raised, and the demonstrations
    left out (``left_out``: their indices, as the grader leaves them out); `names`: cell index -> the cell's
    name."""

    path: Path
    session: Session
    errors: list[tuple[int, str]]
    left_out: frozenset[int] = frozenset()
    names: dict[int, str] = field(default_factory=dict)
    clock: Clock | None = None
    syntax: dict[int, SyntaxSpot] = field(default_factory=dict)  # the cells Python could not read, and where

    def cell(self, index: int) -> str:
        """Cell `index`'s name in the student's language (a .py file's part: its number)."""
        return self.names.get(index) or self.session.checks.words.cell_name(CellPlace(index + 1))

    def raised(self, index: int, message: str) -> str:
        """One line on cell `index`, which did not finish with `message`: a syntax error as the grader says it (the
        line, its code, then Python's words), anything else quoted as it was raised."""
        tell, spot = self.session.checks.words.tell, self.syntax.get(index)
        if spot is None:
            return tell("check.cell", place=self.cell(index), message=message.rstrip(": ")[:160])
        if spot.line and spot.code:
            before = tell("check.syntax_before") if spot.line > 1 else ""
            return tell(
                "check.syntax", place=self.cell(index), line=spot.line, before=before, code=spot.code, error=spot.error
            )
        return tell("check.syntax_bare", place=self.cell(index), error=spot.error)


def is_demo(checks, source: str) -> bool:
    """Whether a cell's text is one of the course's demonstrations, as released."""
    return is_released_demo(source, checks.assignment.released_demos)


def _left_out(checks, nb: Mapping | None) -> frozenset[int]:
    """The demonstrations the grader leaves out of notebook `nb` (none for a .py file, or a file that is no
    notebook: the loader then says what is wrong with it)."""
    if nb is None:
        return frozenset()
    try:
        return frozenset(unneeded_demos(code_cells(nb), checks.assignment.names, checks.assignment.released_demos))
    except (ValueError, TypeError, AttributeError):
        return frozenset()  # the loader says what is wrong with the file


def _notebook(path: Path) -> Mapping | None:
    """The notebook at `path`, parsed; None for a .py file or a file that is no notebook (the loader then says
    what is wrong with it)."""
    if path.suffix != ".ipynb":
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _cell_names(checks, nb: Mapping | None) -> dict[int, str]:
    return {} if nb is None else {index: checks.words.cell_name(place) for index, place in cell_places(nb).items()}


def cell_names(checks, path: Path) -> dict[int, str]:
    """cell index -> its name (number, section, first line) for a notebook; {} for a .py file or a file that
    is no notebook (the loader then says what is wrong with it)."""
    return _cell_names(checks, _notebook(path))


def load(checks, path: Path, clock: Clock | None = None) -> Loaded:
    """Run the submission as the grader runs it, without the demonstrations nothing needs (see above); each cell
    within its time budget when there is a `clock`.

    Raises what ``coursecheck.selfcheck.load_submission`` raises for a file it cannot read.
    """
    nb = _notebook(path)  # read once, for the cells' names and the demonstrations to leave out
    names = _cell_names(checks, nb)
    left_out = _left_out(checks, nb)
    result = load_submission(
        path,
        skip_cell=lambda index, *_: index in left_out,
        run_cell=clock.cells(names) if clock is not None else None,
    )
    tell = checks.words.tell
    loaded = Loaded(path, Session(checks, {}), result.errors, left_out, names, clock, result.syntax)
    missing = {}
    for name in checks.assignment.names:
        if name not in result.namespace:
            raised = "".join("\n" + loaded.raised(i, m) for i, m in result.errors)
            missing[name] = tell("check.not_defined", file=path.name, cls=name) + (
                tell("check.cells_raised") + raised + "\n" + tell("check.cells_counted")
                if raised
                else tell("check.no_cell_raised")
            )
    classes = {name: result.namespace.get(name) for name in checks.assignment.names}
    loaded.session = Session(checks, classes, missing, clock)
    return loaded
