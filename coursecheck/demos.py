"""Untrusted: which cells of your notebook the self-check runs: every cell but the course's demonstrations as
released.

A demonstration cell (tagged ``demo``: the worked examples, the plot, the try-it cell) shows something and
defines nothing the exercises use. While its text is the one released (its digest one of those the course
recorded, the release's ``released_demos.DIGESTS``) and none of your cells uses a name it defines, the self-check
leaves it out, as the grader does (the same rule: ``coursecheck.cells.unneeded_demos``): no plotting or tokenizer
library to import, no demo to run. A demo cell you changed runs, as does every cell you added, whatever its tags.

The run without them is trusted only when it is clean. When a cell raised, a class is missing, one of your
names is also one a left-out cell defines, or your code raised while a check ran, your code may rely on what
a left-out cell does: the self-check then runs the whole notebook, as the grader does, and reports that run.
A cell the first run stopped at its time budget (``budget``) is not run again: it is reported as stopped.
Each function takes the assignment's ``SelfCheck`` first (``coursecheck.assignment``, which calls them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coursecheck.cells import DEMO_TAG, bound_names, is_released_demo, unneeded_demos
from coursecheck.notebook import CellPlace, cell_places, code_cells
from coursecheck.selfcheck import load_submission

from .budget import Clock, stopped_cells
from .checks import Session

__all__ = ["TAG", "Loaded", "is_demo", "defined_names", "cell_names", "load", "settle"]

TAG = DEMO_TAG


@dataclass
class Loaded:
    """A submission as the checks see it: its classes' session, the cells that raised, and whether every cell
    ran (``whole``) or the demonstrations were left out; `names`: cell index -> the cell's name."""

    path: Path
    session: Session
    errors: list[tuple[int, str]]
    whole: bool
    names: dict[int, str] = field(default_factory=dict)
    clock: Clock | None = None

    def cell(self, index: int) -> str:
        """Cell `index`'s name in the student's language (a .py file's part: its number)."""
        return self.names.get(index) or self.session.checks.words.cell_name(CellPlace(index + 1))


defined_names = bound_names  # the names a (course-written) cell binds, or None when it cannot be read


def is_demo(checks, source: str) -> bool:
    """Whether a cell's text is one of the course's demonstrations, as released."""
    return is_released_demo(source, checks.assignment.released_demos)


class _LeftOut:
    """`skip_cell` for coursecheck's loader: leaves out the demonstrations nothing else needs in notebook `nb` (None:
    a .py file, or no notebook), and remembers their text."""

    def __init__(self, checks, nb: Mapping | None) -> None:
        self.sources: list[str] = []
        self._left: set[int] = set()
        if nb is not None:
            try:
                self._left = unneeded_demos(code_cells(nb), checks.assignment.names, checks.assignment.released_demos)
            except (ValueError, TypeError, AttributeError):
                pass  # the loader says what is wrong with the file

    def __call__(self, index: int, source: str, metadata: Mapping) -> bool:
        if index in self._left:
            self.sources.append(source)
            return True
        return False

    def names(self) -> set[str] | None:
        found: set[str] = set()
        for source in self.sources:
            names = defined_names(source)
            if names is None:
                return None
            found |= names
        return found


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


def _loaded(checks, path: Path, result, whole: bool, names: dict[int, str], clock: Clock | None) -> Loaded:
    tell = checks.words.tell
    loaded = Loaded(path, Session(checks, {}), result.errors, whole, names, clock)
    missing = {}
    for name in checks.assignment.names:
        if name not in result.namespace:
            raised = "".join("\n" + tell("check.cell", place=loaded.cell(i), message=m) for i, m in result.errors)
            missing[name] = tell("check.not_defined", file=path.name, cls=name) + (
                tell("check.cells_raised") + raised if raised else tell("check.no_cell_raised")
            )
    classes = {name: result.namespace.get(name) for name in checks.assignment.names}
    loaded.session = Session(checks, classes, missing, clock)
    return loaded


def _whole(checks, path: Path, first, names: dict[int, str], clock: Clock | None) -> Loaded:
    """Every cell run, but those `first` (an earlier run) stopped at their time budget: they stay stopped."""
    stopped = {index: message for index, message in first.errors if index in stopped_cells(first.errors)}
    run_cell = clock.cells(names) if clock is not None else None
    result = load_submission(path, skip_cell=lambda index, *_: index in stopped, run_cell=run_cell)
    result.errors = sorted([*result.errors, *stopped.items()])
    return _loaded(checks, path, result, True, names, clock)


def load(checks, path: Path, clock: Clock | None = None) -> Loaded:
    """Run the submission without its demonstrations, or whole when that run is not clean (see above); each
    cell within its time budget when there is a `clock`.

    Raises what ``coursecheck.selfcheck.load_submission`` raises for a file it cannot read.
    """
    nb = _notebook(path)  # read once, for the cells' names and the demonstrations to leave out
    names = _cell_names(checks, nb)
    left_out = _LeftOut(checks, nb)
    result = load_submission(path, skip_cell=left_out, run_cell=clock.cells(names) if clock is not None else None)
    if not left_out.sources:
        return _loaded(checks, path, result, True, names, clock)
    defined = left_out.names()
    if (
        result.errors
        or any(c not in result.namespace for c in checks.assignment.names)
        or defined is None
        or defined & set(result.namespace)
    ):
        return _whole(checks, path, result, names, clock)
    return _loaded(checks, path, result, False, names, clock)


def settle(loaded: Loaded) -> Loaded:
    """Run every check on a run without demonstrations; when the student's code raised in any, run the whole
    notebook instead (its checks then run as pytest asks for them)."""
    if loaded.whole:
        return loaded
    checks = loaded.session.checks
    try:
        raised = any(loaded.session.outcome(name).raised for name in checks.checks)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - whatever escaped a check: the whole run will show it as before
        raised = True
    return _whole(checks, loaded.path, loaded, loaded.names, loaded.clock) if raised else loaded
