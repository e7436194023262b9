"""One grade followed call by call: which of the kit's modules it visits, and how often it climbs back up.

    .venv/bin/python scripts/trace_grade.py                                  # the solution notebook
    .venv/bin/python scripts/trace_grade.py FILE --assignment weight_tying --list
    .venv/bin/python scripts/trace_grade.py FILE -- --executor fresh        # after --: options for `grade`

It runs ``python -m autograder grade --assignment NAME FILE`` in this process under ``sys.setprofile`` and
records, from the moment ``autograder/cli/grade.py``'s ``run`` is called until it returns, every call that
enters a module of the kit (``autograder``, ``coursecheck``, ``dnnlpy``), in the thread that runs ``run`` (the
pool's worker threads and the sandbox's and judge's processes are not followed; ``--executor fresh`` grades in
this thread).
Code run by an import (a module's body) is left out: it is loading, not the grade's path.

How to read it:
- a **visit** begins at each call into a module other than the one the previous call entered (calls within
  one module, or one module called a thousand times in a row, are one visit). A return is no visit, nor is a
  comprehension (its function's own code: Python 3.12 inlines it) or a generator taken up again where it
  paused (its frame was entered once);
- a visit **goes back up** when the module it enters is higher than the module the previous visit was in:
  one that imports it, directly or through others (the layering is the import graph of the kit's source,
  imports inside functions included). A path that reads top to bottom goes down, returns to its caller, and
  goes on down from there; one that goes back up calls a module above one it has just called (a caller
  calling in turn into several layers, or a lower module calling back up);
- **steps** counts the different steps back up (module left, module entered) once each: a loop that goes back
  up on every item (rendering each test, say) is one step there, however many items;
- **while grading** ends when ``grading.executors.grade_file`` (or ``outputs.classrun.grade_class``) returns;
  what follows is **showing the result** (the terminal table, the Gradescope JSON, the gradebook);
- the last line says whether showing the result calls into ``autograder/grading/marking.py``: the marks
  and charges are made once, while grading; showing only reads them.

``--list`` prints every visit, ``^`` marking one that goes back up.
"""

from __future__ import annotations

import argparse
import ast
import dis
import functools
import importlib.util
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KIT = ("autograder", "coursecheck", "dnnlpy")  # the kit's own packages: what a visit is counted in
START = ("autograder.cli.grade", "run")  # the call followed
GRADED = {("autograder.grading.executors", "grade_file"), ("autograder.outputs.classrun", "grade_class")}
MARKING = "autograder.grading.marking"
SOLUTION = ROOT / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb"
PHASES = ("grading", "showing")


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, module: str) -> set[str]:
    """The dotted names `path`'s source imports anywhere in it (functions too), relative ones resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            relative = "." * node.level + (node.module or "")
            base = importlib.util.resolve_name(relative, package) if node.level else relative
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the kit's modules it imports (``from pkg import name`` is ``pkg.name`` when that is a module)."""
    paths = {
        _module_of(p): p
        for package in KIT
        for p in sorted((root / package).rglob("*.py"))
        if "__pycache__" not in p.parts and "calibration" not in p.parts  # calibration files are submissions
    }

    def resolve(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    return {m: {resolve(n) for n in _imported(p, m)} - {None, m} for m, p in paths.items()}


def above(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """module -> every module that imports it, directly or through others (the modules higher than it)."""
    below: dict[str, set[str]] = {}
    for module in graph:
        seen, stack = set(), [module]
        while stack:
            for nxt in graph.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        below[module] = seen
    higher: dict[str, set[str]] = {m: set() for m in graph}
    for module, lower in below.items():
        for low in lower:
            higher.setdefault(low, set()).add(module)
    return higher


_PAUSES = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR: frames taken up again
_COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})  # their function's own code


@functools.cache
def _entry(code) -> int:
    """The offset a paused kind of frame starts at (its first RESUME): a later one is it taken up again."""
    return next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), 0)


@dataclass(frozen=True)
class Visit:
    module: str
    function: str  # the function whose call began the visit
    phase: str  # "grading" or "showing"
    up: bool  # the module is higher than the previous visit's
    left: str | None = None  # the previous visit's module


@dataclass
class Trace:
    visits: list[Visit] = field(default_factory=list)

    def of(self, phase: str | None = None) -> list[Visit]:
        return [v for v in self.visits if phase is None or v.phase == phase]

    def figures(self, phase: str | None = None) -> tuple[int, int, int]:
        """(visits, distinct modules, visits going back up), in `phase` or in all."""
        visits = self.of(phase)
        return len(visits), len({v.module for v in visits}), sum(v.up for v in visits)

    def steps_up(self, phase: str | None = None) -> int:
        """How many different steps (module left, module entered) the visits going back up take: a loop that goes
        back up on every item counts once here."""
        return len({(v.left, v.module) for v in self.of(phase) if v.up})

    def marking_when_showing(self) -> list[str]:
        """The functions of ``grading/marking.py`` that showing the result called ([]: none)."""
        return [v.function for v in self.of("showing") if v.module == MARKING]


def follow(
    call: Callable[[], object], *, start: tuple[str, str] | None = START, phase: str = PHASES[0]
) -> tuple[object, Trace]:
    """Run `call` and follow it in this thread: from the call of `start` (module, function) until it returns, or
    the whole call when `start` is None, counting its visits in `phase` until what grades returns. Returns what
    `call` returned, and the visits."""
    if phase not in PHASES:
        raise ValueError(f"phase {phase!r}: follow counts visits in one of {PHASES}")
    higher = above(import_graph())
    trace = Trace()
    state = {"on": start is None, "root": None, "phase": phase, "imports": 0, "last": None}

    def hook(frame, event, arg):
        if event not in ("call", "return"):
            return
        module, name = frame.f_globals.get("__name__"), frame.f_code.co_name
        if not state["on"]:
            if event == "call" and (module, name) == start:
                state["on"], state["root"] = True, frame
            else:
                return
        if name == "<module>":  # an import running a module's body: loading, not the grade's path
            state["imports"] += 1 if event == "call" else -1
            return
        if event == "return":
            if frame is state["root"]:
                state["on"] = False
            elif (module, name) in GRADED:
                state["phase"] = PHASES[1]
            return
        if state["imports"] or not isinstance(module, str) or module.split(".")[0] not in KIT:
            return
        if name in _COMPREHENSIONS or (frame.f_code.co_flags & _PAUSES and frame.f_lasti > _entry(frame.f_code)):
            return  # its function's own code, or a generator (or coroutine) taken up again where it paused
        if module != state["last"]:
            up = state["last"] is not None and module in higher.get(state["last"], ())
            trace.visits.append(Visit(module, name, state["phase"], up, state["last"]))
            state["last"] = module

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        out = call()
    finally:
        sys.setprofile(previous)
    return out, trace


def follow_grade(path: Path, assignment: str = "weight_tying", options: list[str] | None = None) -> tuple[int, Trace]:
    """``python -m autograder grade --assignment ASSIGNMENT PATH [options]``, followed from ``cli.grade.run``.

    The sandbox's probe (which mode starts here: one sandboxed run, made once per process and kept) is made
    before the trace starts, so that what is followed is the grade alone, the same whatever this process ran
    before (the test that holds the figure runs after others in a suite, or alone)."""
    from autograder.cli.main import main
    from autograder.sandbox.launch import probe_isolation

    probe_isolation()
    argv = ["grade", "--assignment", assignment, str(path), *(options or [])]
    return follow(lambda: main(argv))


def report(trace: Trace, path: Path, *, listing: bool = False) -> str:
    lines = [f"one grade of {path}, followed from autograder.cli.grade.run in {threading.current_thread().name}:"]
    if listing:
        lines += [f"  {'^' if v.up else ' '} {v.phase:<8} {v.module}.{v.function}" for v in trace.visits]
    lines.append(f"  {'':<20} {'visits':>7} {'modules':>8} {'back up':>8} {'steps':>6}")
    for label, phase in (("while grading", "grading"), ("showing the result", "showing"), ("in all", None)):
        visits, modules, up = trace.figures(phase)
        lines.append(f"  {label:<20} {visits:>7} {modules:>8} {up:>8} {trace.steps_up(phase):>6}")
    called = trace.marking_when_showing()
    lines.append(
        "  showing the result calls into autograder/grading/marking.py: "
        + (f"yes ({', '.join(sorted(set(called)))})" if called else "no")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=SOLUTION, help="the submission (default: solution)")
    parser.add_argument("--assignment", default="weight_tying")
    parser.add_argument("--list", action="store_true", help="print every visit (^: it goes back up)")
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    args, options = parser.parse_args(argv[:cut]), argv[cut + 1 :]  # after --: `grade`'s (--executor fresh)
    status, trace = follow_grade(args.file, args.assignment, options)
    print(report(trace, args.file, listing=args.list), file=sys.stderr)
    return int(status or 0)


if __name__ == "__main__":
    raise SystemExit(main())
