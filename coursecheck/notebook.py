"""Both sides: run a notebook's (or a script's) code cells in a fresh namespace, the way a kernel would.

Used by the students' self-check and by the autograder's runner: the classes that exist at the end are the
submission. Differences from a real kernel, on purpose:

- IPython syntax is skipped, not run: ``%%cell`` magics skip the whole cell, except those whose body is
  Python run in the notebook's namespace (``%%time``, ``%%capture``, ``%%prun``), whose body runs;
  ``%line`` magics, ``!shell`` lines and ``obj?`` help become ``pass`` (``x = !ls`` becomes ``x = None``),
  so the rest of the cell runs.
- A cell that raises is recorded in ``errors`` and the next cells still run (a broken scratch cell must
  not hide a later, correct definition). A cell that does not compile is recorded as its SyntaxError with
  the line of the cell it points at (``SyntaxError: invalid syntax (line 3: for i in range(3)``): none of
  it runs, so what it defines is missing, and the NameErrors that follow are its consequence. Where Python
  stopped reading is kept as a value too (``syntax``: a ``SyntaxSpot`` per such cell), for a reader to be told
  in their language.
- ``on_cell(index)``, when given, is called as each cell starts (the grader's runner reports a cell that
  runs for long, so a timeout can say where the time went). ``run_cell(index, run)``, when given, runs each
  cell's compiled code (``run()``) in its place: the grader's runner gives each cell a time budget, and a
  cell it stops raises there, so it is recorded like any cell that raised and the next cells still run.
- nbgrader test cells (metadata ``grade: true, solution: false``) are skipped by default: they check the
  submission, they are not part of it.
  ``skip_cell(index, source, metadata)``, when given, skips every other cell it returns True for; skipped
  cells are listed in ``skipped``.
- ``leave_out_demos=names``, with ``released_demos=digests`` (what the course released: ``coursecheck.cells``),
  leaves out the course's demonstration cells as released that nothing else can need and that bind none of
  ``names`` (``coursecheck.cells.unneeded_demos``: the self-check's rule too); ``released_facts``, the build's
  ``coursecheck.cells.cell_facts`` of the released cells by digest, spares reading those cells again.
- The working directory is not changed, and nothing is displayed.

A cell is named to people by ``cell_places`` and ``name_cell``: JupyterLab shows no cell numbers, so a cell is
its number counted from 1 (text cells included), the heading of the section it sits in and its first line,
worded from templates the caller gives in the reader's language (the self-check and the grader use the same
two functions, so they name a cell alike). ``cell_at(filename)`` gives the place of a traceback's frame in a
cell this module ran.

Example::

    result = load_notebook("weight_tying.ipynb")
    TiedEmbeddingLM = result.namespace["TiedEmbeddingLM"]
    for cell_index, message in result.errors:
        print(f"cell {cell_index}: {message}")
"""

from __future__ import annotations

import builtins
import json
import linecache
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cells import CellFacts, is_test_cell, strip_ipython, unneeded_demos

__all__ = [
    "NotebookNamespace",
    "load_notebook",
    "exec_source",
    "code_cells",
    "strip_ipython",
    "syntax_message",
    "SyntaxSpot",
    "CellPlace",
    "cell_places",
    "name_cell",
    "cell_at",
]

# Jupytext "percent" cells in a .py file: `# %%` or `# %% [markdown]`.
_PY_CELL_MARK = re.compile(r"^# %%")


@dataclass
class NotebookNamespace:
    """What running the cells left behind."""

    namespace: dict[str, Any]  # the module-level names the cells defined
    errors: list[tuple[int, str]] = field(default_factory=list)  # (cell index, "ExcType: message")
    skipped: list[int] = field(default_factory=list)  # cells not run (test cells, %% cell magics)
    # cell index -> where Python stopped reading it, for each cell of `errors` that did not compile
    syntax: dict[int, SyntaxSpot] = field(default_factory=dict)

    def compile_failed(self, index: int, exc: SyntaxError) -> None:
        """Cell `index` did not compile: nothing of it ran."""
        spot = SyntaxSpot.of(exc)
        self.errors.append((index, spot.message))
        self.syntax[index] = spot

    def __contains__(self, name: object) -> bool:
        return name in self.namespace

    def __getitem__(self, name: str) -> Any:
        return self.namespace[name]


@dataclass(frozen=True)
class CellPlace:
    """Where a code cell is, as a reader finds it: its number (from 1 at the top, text cells included), the
    heading of the section it sits in ("" above the first heading) and its first line ("" for an empty cell)."""

    number: int
    heading: str = ""
    first_line: str = ""


_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_MARKUP = re.compile(r"[*`]+")
_SHOWN = 60  # characters of a heading or a first line in a cell's name


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1].rstrip() + "…"


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(line for line in source if isinstance(line, str))
    return source if isinstance(source, str) else ""


def cell_places(nb: Mapping[str, Any]) -> dict[int, CellPlace]:
    """cell index (in nb['cells']) -> the place of each code cell; a malformed cell is passed over."""
    cells = nb.get("cells") if isinstance(nb, Mapping) else None
    places: dict[int, CellPlace] = {}
    heading = ""
    for index, cell in enumerate(cells if isinstance(cells, list) else []):
        if not isinstance(cell, Mapping):
            continue
        source = _source(cell)
        if cell.get("cell_type") == "markdown":
            found = [m.group("text") for m in map(_HEADING.match, source.splitlines()) if m]
            heading = _short(_MARKUP.sub("", found[-1])) if found else heading
        elif cell.get("cell_type") == "code":
            first = next((line for line in source.splitlines() if line.strip()), "")
            places[index] = CellPlace(index + 1, heading, _short(first))
    return places


def name_cell(place: CellPlace, words: Mapping[str, str]) -> str:
    """The cell's name in the reader's language. `words` holds four templates over ``{number}``, ``{heading}``
    and ``{first}``: "full", "no_heading", "no_first" and "bare" (neither), e.g. English::

        {"full": "cell {number} (in “{heading}”, starting “{first}”)", "no_heading": "cell {number} (starting
        “{first}”)", "no_first": "cell {number} (in “{heading}”)", "bare": "cell {number}"}
    """
    key = ("full", "no_heading", "no_first", "bare")[(not place.heading) + 2 * (not place.first_line)]
    return words[key].format(number=place.number, heading=place.heading, first=place.first_line)


_PLACES: dict[str, CellPlace] = {}  # the filename a cell's code was compiled under -> its place


def cell_at(filename: str) -> CellPlace | None:
    """The place of the notebook cell whose code was compiled under `filename` (a traceback frame's), or None
    when it is no cell this module ran."""
    return _PLACES.get(filename)


def _fresh_namespace(filename: str) -> dict[str, Any]:
    # `__main__`, as in a kernel, so that classes defined here look like notebook classes.
    # `display` is a kernel builtin that notebooks call freely; here nothing is displayed, so it does nothing.
    return {"__name__": "__main__", "__builtins__": builtins, "__file__": filename, "display": _no_display}


def _no_display(*objects: Any, **options: Any) -> None:
    """Stands in for IPython's ``display``: the loader shows nothing."""


@dataclass(frozen=True)
class SyntaxSpot:
    """Where Python stopped reading a cell, as a reader is told it: Python's words ("SyntaxError: invalid syntax"),
    the line (counted from the cell's top; 0: none named) and that line's code ("" when none)."""

    error: str
    line: int = 0
    code: str = ""

    @classmethod
    def of(cls, exc: SyntaxError) -> SyntaxSpot:
        text = (exc.text or "").strip()
        return cls(f"{type(exc).__name__}: {exc.msg}", exc.lineno or 0, text if len(text) <= 80 else text[:77] + "...")

    @property
    def message(self) -> str:
        """'SyntaxError: invalid syntax (line 3: for i in range(3)': how the loader records it among the errors."""
        where = f"line {self.line}" + (f": {self.code}" if self.code else "") if self.line else ""
        return self.error + (f" ({where})" if where else "")


def syntax_message(exc: SyntaxError) -> str:
    """'SyntaxError: invalid syntax (line 3: for i in range(3)': what Python could not read, and where."""
    return SyntaxSpot.of(exc).message


RunCell = Callable[[int, Callable[[], None]], None]  # (cell index, run the cell's code)


def _exec(code: Any, namespace: dict[str, Any], index: int, run_cell: RunCell | None) -> None:
    if run_cell is None:
        exec(code, namespace)  # running the submission is the point
    else:
        run_cell(index, lambda: exec(code, namespace))


def _run_cells(
    cells: Iterable[tuple[int, str]],
    filename: str,
    on_cell: Callable[[int], None] | None = None,
    run_cell: RunCell | None = None,
    places: dict[int, CellPlace] | None = None,
) -> NotebookNamespace:
    result = NotebookNamespace(namespace=_fresh_namespace(filename))
    for index, source in cells:
        code_text = strip_ipython(source)
        if code_text is None:
            result.skipped.append(index)
            continue
        if on_cell is not None:
            on_cell(index)
        cell_name = f"{filename} [cell {index}]"
        # Registered like IPython does, so that tracebacks can show the cell's lines.
        linecache.cache[cell_name] = (len(code_text), None, code_text.splitlines(keepends=True), cell_name)
        if places and index in places:
            _PLACES[cell_name] = places[index]
        try:
            code = compile(code_text, cell_name, "exec")
        except SyntaxError as exc:  # nothing of the cell runs: say where Python stopped reading
            result.compile_failed(index, exc)
            continue
        try:
            _exec(code, result.namespace, index, run_cell)
        except (Exception, SystemExit) as exc:  # a kernel survives SystemExit too
            result.errors.append((index, f"{type(exc).__name__}: {exc}"))
    return result


def _as_notebook(path_or_nb: Any) -> tuple[Mapping[str, Any], str]:
    """Accept a path, a notebook's JSON text, or an already parsed notebook (dict / NotebookNode)."""
    if isinstance(path_or_nb, Mapping):
        return path_or_nb, "<notebook>"
    if isinstance(path_or_nb, str) and (path_or_nb.lstrip("\ufeff \t\r\n").startswith("{") or "\n" in path_or_nb):
        try:
            nb = json.loads(path_or_nb.lstrip("\ufeff"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"the notebook text is not valid JSON: {exc}") from exc
        if not isinstance(nb, Mapping):
            raise ValueError(f"a notebook is a JSON object, got a JSON {type(nb).__name__}")
        return nb, "<notebook>"
    if isinstance(path_or_nb, (str, os.PathLike)):
        path = Path(path_or_nb)
        if not path.is_file():
            raise FileNotFoundError(f"no notebook at {str(path)!r}: pass the path of an existing .ipynb file")
        try:
            return json.loads(path.read_text(encoding="utf-8")), str(path)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{str(path)!r} is not a notebook (invalid JSON: {exc}); for a .py file use exec_source()"
            ) from exc
    raise TypeError(
        f"load_notebook expects a path, notebook JSON text or a parsed notebook, got {type(path_or_nb).__name__}"
    )


def code_cells(nb: Mapping[str, Any]) -> list[tuple[int, str, Mapping[str, Any]]]:
    """(index in nb['cells'], source, metadata) of each code cell; source lists are joined."""
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise ValueError("the notebook has no 'cells' list: is it an nbformat 4 notebook?")
    out = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, Mapping):
            raise ValueError(f"cell {index} is a {type(cell).__name__}, not a JSON object: is the notebook corrupt?")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ValueError(f"cell {index}'s source is neither text nor a list of lines: is the notebook corrupt?")
        metadata = cell.get("metadata")
        out.append((index, source, metadata if isinstance(metadata, Mapping) else {}))
    return out


def load_notebook(
    path_or_nb: Any,
    *,
    skip_grade_cells: bool = True,
    on_cell: Callable[[int], None] | None = None,
    run_cell: RunCell | None = None,
    skip_cell: Callable[[int, str, Mapping[str, Any]], bool] | None = None,
    leave_out_demos: Iterable[str] | None = None,
    released_demos: Collection[str] = (),
    released_facts: Mapping[str, CellFacts] | None = None,
) -> NotebookNamespace:
    """Run the code cells of a notebook in order in a fresh namespace; see the module docstring."""
    nb, filename = _as_notebook(path_or_nb)
    cells = code_cells(nb)
    demos = set() if leave_out_demos is None else unneeded_demos(cells, leave_out_demos, released_demos, released_facts)
    to_run, skipped = [], []
    for index, source, metadata in cells:
        if (
            (skip_grade_cells and is_test_cell(metadata))
            or index in demos
            or (skip_cell is not None and skip_cell(index, source, metadata))
        ):
            skipped.append(index)
        else:
            to_run.append((index, source))
    result = _run_cells(to_run, filename, on_cell, run_cell, cell_places(nb))
    result.skipped = sorted(skipped + result.skipped)
    return result


def exec_source(
    source: str,
    filename: str = "<submission>",
    *,
    on_cell: Callable[[int], None] | None = None,
    run_cell: RunCell | None = None,
) -> NotebookNamespace:
    """Run a .py submission. ``# %%`` lines split it into cells that fail independently, as in a notebook."""
    if not isinstance(source, str):
        raise TypeError(f"exec_source expects the file's text as str, got {type(source).__name__}")
    cells: list[tuple[int, str]] = []  # (first line number - 1, text)
    current: list[str] = []
    start = 0
    for number, line in enumerate(source.splitlines(keepends=True)):
        if _PY_CELL_MARK.match(line) and current:
            cells.append((start, "".join(current)))
            current, start = [], number
        current.append(line)
    cells.append((start, "".join(current)))
    result = NotebookNamespace(namespace=_fresh_namespace(str(filename)))
    for index, (offset, text) in enumerate(cells):
        # A .py file holds no IPython syntax, so cells run as they are (no magic stripping); the blank
        # lines in front keep tracebacks' line numbers equal to the file's.
        if on_cell is not None:
            on_cell(index)
        try:
            code = compile("\n" * offset + text, str(filename), "exec")
        except SyntaxError as exc:
            result.compile_failed(index, exc)
            continue
        try:
            _exec(code, result.namespace, index, run_cell)
        except (Exception, SystemExit) as exc:
            result.errors.append((index, f"{type(exc).__name__}: {exc}"))
    return result
