"""Both sides: a notebook cell's code as it runs, and what it binds and reads: for ``coursecheck.notebook``, the
self-check and the grader's runner.

- ``strip_ipython``: IPython syntax made plain Python (see ``coursecheck.notebook`` for what runs of it).
- ``is_test_cell``: an nbgrader test cell (metadata ``grade: true, solution: false``), which no one runs.
- ``bound_names`` / ``read_names``: the notebook names a cell binds, and the ones its code uses in any scope
  (read from its symbol table: a function's own locals and arguments are not the notebook's).
- ``unneeded_demos``: the course's demonstration cells as released (``is_released_demo``: their text, digest
  for digest, one of the texts the course released, which the build records: ``released`` is those digests)
  that no other cell can need. What a demonstration shows is not part of the submission, and leaving it out is
  what deleting it would do: the grader's runner and the self-check leave out the same cells. A cell of the
  student's own is never one, whatever its tags or metadata say, and no demonstration is left out when a cell
  can reach names without naming them (``coursecheck.reach``).
- ``cell_facts``: what ``unneeded_demos`` reads of one cell, as plain data: the build records it for every cell
  the course released (``known``), so that a run reads only the cells the student wrote or changed.
"""

from __future__ import annotations

import ast
import hashlib
import re
import symtable
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from .reach import reaches, spelled_names

__all__ = [
    "strip_ipython",
    "is_test_cell",
    "DEMO_TAG",
    "demo_digest",
    "is_released_demo",
    "bound_names",
    "read_names",
    "unneeded_demos",
    "cell_facts",
    "CellFacts",
    "facts_table",
]

# `%magic ...`, `!cmd ...`, and `name = %magic` / `name = !cmd` (IPython's assignment forms).
_MAGIC_LINE = re.compile(r"^(?P<indent>\s*)[%!]")
_MAGIC_ASSIGN = re.compile(r"^(?P<indent>\s*)(?P<target>[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[%!]")
# `%time stmt` / `%prun stmt`: the statement runs in the user namespace.
_TIMED_LINE = re.compile(r"^(?P<indent>\s*)%(?:time|prun)\s+(?P<stmt>\S.*)$")
# `obj?` / `obj??` help lookups.
_HELP_LINE = re.compile(r"^(?P<indent>\s*)[A-Za-z_][\w.]*\?\??\s*$")
# Cell magics whose body a kernel runs as ordinary Python in the user namespace (definitions persist).
_PYTHON_CELL_MAGICS = frozenset({"time", "capture", "prun"})


def strip_ipython(source: str) -> str | None:
    """Return the cell as plain Python, or None for a ``%%`` cell magic whose body is not Python.

    A cell that already compiles is returned unchanged: magic lines never compile, so this keeps a ``%`` or
    ``!`` that starts a line inside a multi-line string intact.
    """
    stripped = source.lstrip()
    if stripped.startswith("%%"):
        first, _, body = stripped.partition("\n")
        name = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if name not in _PYTHON_CELL_MAGICS:
            return None
        source = body
    try:
        compile(source, "<cell>", "exec")
        return source
    except SyntaxError:
        pass
    lines = []
    for line in source.splitlines():
        timed = _TIMED_LINE.match(line)
        if timed:  # `%time stmt` runs stmt in the namespace, as a kernel would
            lines.append(timed.group("indent") + timed.group("stmt"))
            continue
        assign = _MAGIC_ASSIGN.match(line)
        magic = _MAGIC_LINE.match(line) or _HELP_LINE.match(line)
        if assign:
            targets = [t.strip() for t in assign.group("target").split(",")]
            lines.append(assign.group("indent") + ", ".join(targets) + " = " + ", ".join(["None"] * len(targets)))
        elif magic:
            lines.append(magic.group("indent") + "pass")
        else:
            lines.append(line)
    return "\n".join(lines)


def is_test_cell(metadata: Mapping[str, Any]) -> bool:
    """An nbgrader test cell: it checks the submission, it is not part of it."""
    nbg = metadata.get("nbgrader")
    if not isinstance(nbg, Mapping):
        return False
    return bool(nbg.get("grade")) and not bool(nbg.get("solution"))


DEMO_TAG = "demo"  # a code cell that only shows: the course's build tags it, for the reader (it decides nothing)


def demo_digest(source: str) -> str:
    """The digest the build records of a demonstration's text as released (SHA-256 of its UTF-8 bytes)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def is_released_demo(source: str, released: Collection[str]) -> bool:
    """A demonstration cell as the course released it: its text's digest (``demo_digest``) is one of `released`,
    the digests the build recorded of the released notebooks' demonstrations. Tags and metadata are the
    student's to write and count for nothing: a cell whose text was changed, or a cell of the student's own
    tagged ``demo``, runs."""
    return bool(released) and demo_digest(source) in released


_UNREADABLE = (SyntaxError, ValueError, RecursionError, MemoryError)  # too deep to read is too deep to run


def _table(source: str) -> tuple[symtable.SymbolTable, str] | None:
    """(the cell's symbol table, the code it was read from) as the cell runs (``strip_ipython``: a cell magic
    that is not Python runs nothing); None when the cell does not compile. Most cells are plain Python: they
    are read as they are, without compiling them once more to find out."""
    try:
        return symtable.symtable(source, "<cell>", "exec"), source
    except _UNREADABLE:
        pass
    try:
        code = strip_ipython(source) or ""
        return symtable.symtable(code, "<cell>", "exec"), code
    except _UNREADABLE:
        return None


def _bound(top: symtable.SymbolTable) -> set[str]:
    names = {sym.get_name() for sym in top.get_symbols() if sym.is_assigned() or sym.is_imported()}
    todo = list(top.get_children())
    while todo:
        table = todo.pop()
        names.update(sym.get_name() for sym in table.get_symbols() if sym.is_declared_global() and sym.is_assigned())
        todo.extend(table.get_children())
    return names


def bound_names(source: str) -> set[str] | None:
    """The notebook names a cell binds (assignments, imports, defs, loop targets, and what its functions declare
    ``global`` and assign); None when it cannot be read."""
    read = _table(source)
    return None if read is None else _bound(read[0])


def _global_names(table: symtable.SymbolTable) -> set[str]:
    """The notebook names a scope and the scopes inside it use: read at the top level, global in a function or
    class body (not bound there, or declared ``global``)."""
    if table.get_type() == "module":
        found = {sym.get_name() for sym in table.get_symbols() if sym.is_referenced()}
    else:
        found = {sym.get_name() for sym in table.get_symbols() if sym.is_global()}
    for child in table.get_children():
        found |= _global_names(child)
    return found


def read_names(source: str) -> set[str] | None:
    """The notebook names a cell's code uses, in any scope: what its top level reads, and what its functions
    and classes look up as globals (a function's own locals and arguments are not); None when it cannot be
    read."""
    read = _table(source)
    return None if read is None else _global_names(read[0])


# What unneeded_demos reads of a cell that compiles: the names it binds, the names its scopes use as globals,
# the names spelled in its strings, and whether it can reach names without naming them (or ast cannot read it).
CellFacts = tuple[frozenset[str], frozenset[str], frozenset[str], bool]


def cell_facts(source: str) -> CellFacts | None:
    """(bound, used as globals, spelled in strings, reaches) of a cell's code as it runs; None when it does not
    compile (it runs nothing, so it needs nothing). The same text always gives the same facts."""
    read = _table(source)
    if read is None:
        return None
    bound, used = frozenset(_bound(read[0])), frozenset(_global_names(read[0]))
    try:
        tree = ast.parse(read[1], "<cell>", "exec")
    except _UNREADABLE:  # read by symtable, not by ast: it rules nothing out, as a cell that reaches
        return bound, used, frozenset(), True
    return bound, used, frozenset(spelled_names(tree)), reaches(tree)


def facts_table(cells: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, list]:
    """{digest: [bound, used, spelled, reaches]} (sorted lists: plain data for a file or a job) of the cells a
    course releases, given as (source, metadata), but the exercises (nbgrader solution cells: the student's to
    write) and the tests (never run): what ``unneeded_demos`` takes as `known`, once made frozensets again."""
    table = {}
    for source, metadata in cells:
        if metadata.get("nbgrader", {}).get("solution") or is_test_cell(metadata):
            continue
        facts = cell_facts(source)
        if facts is not None:
            table[demo_digest(source)] = [sorted(names) for names in facts[:3]] + [facts[3]]
    return dict(sorted(table.items()))


def unneeded_demos(
    cells: Iterable[tuple[int, str, Mapping[str, Any]]],
    keep: Iterable[str] = (),
    released: Collection[str] = (),
    known: Mapping[str, CellFacts] | None = None,
) -> set[int]:
    """Indices of the released demonstration cells (``is_released_demo``: their text one of the `released`
    digests) among `cells` (``code_cells``) that no other cell can need: none of the names one binds is in
    `keep` or used by a cell that runs (``read_names``, or spelled in its strings), and no cell that runs can
    reach names without naming them (``coursecheck.reach``: ``globals()``, ``sys.modules``, a frame's locals,
    ``gc``, ...). A demonstration that is needed runs, and what it uses is needed in turn. Cells that do not
    compile, and nbgrader test cells, never run: they need nothing. No `released` digests: none is left out.
    `known`: ``cell_facts`` by the digest of the text they were read from (the build's, for the released
    cells); any other cell is read here."""
    if not released:
        return set()
    known = known or {}
    demos: dict[int, tuple[frozenset[str], Any]] = {}  # index: (bound, the names it uses or its symbol table)
    mentioned = set(keep)
    for index, source, metadata in cells:
        if is_test_cell(metadata):
            continue  # never run
        digest = demo_digest(source)
        facts = known.get(digest)
        if facts is not None:
            bound, used, spelled, reaching = facts
            if digest in released:
                demos[index] = (bound, used)
            elif reaching:
                return set()
            else:
                mentioned |= used | spelled
            continue
        read = _table(source)
        if read is None:  # it does not compile, so it does not run: it needs nothing (a demo: it is not run)
            continue
        if digest in released:
            demos[index] = (frozenset(_bound(read[0])), read[0])
            continue
        try:
            tree = ast.parse(read[1], "<cell>", "exec")
        except _UNREADABLE:
            return set()  # read by symtable, not by ast: nothing is ruled out
        if reaches(tree):
            return set()
        mentioned |= _global_names(read[0]) | spelled_names(tree)
    needed: set[int] = set()
    grew = True
    while grew:
        grew = False
        for index, (binds, uses) in demos.items():
            if index not in needed and binds & mentioned:
                needed.add(index)
                mentioned |= uses if isinstance(uses, frozenset) else _global_names(uses)
                grew = True
    return set(demos) - needed
