"""Untrusted: helpers for a released assignment's local self-check (``pytest`` in the assignment's folder).

They find the file to check and load it the way the grader does (a fresh namespace, cells top to bottom, test
cells skipped), and say plainly which names are missing. What a wrong answer means is the assignment's own
business: each release ships its diagnosis next to its tests.

The library speaks no language of its own to a self-check: each error ``find_submission`` and
``load_submission`` raise carries ``reason`` (a short, language-free name) and ``params`` (its values), so that
an assignment's self-check can word it in the student's language; ``str(error)`` stays a plain English sentence.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from coursecheck.notebook import NotebookNamespace, RunCell, exec_source, load_notebook

__all__ = ["find_submission", "load_submission", "missing_names_message", "calls_into"]


def find_submission(folder: str | os.PathLike, *, default_name: str, env_var: str) -> Path:
    """The file to check: ``$env_var`` if set (a .ipynb or .py), else ``folder/default_name``."""
    override = os.environ.get(env_var, "").strip()
    path = Path(override).expanduser() if override else Path(folder) / default_name
    if not path.is_file():
        if override:
            error = FileNotFoundError(
                f"no file at {override!r}, the path {env_var} names: set it to your notebook's path (.ipynb or .py)"
            )
            raise _reason(error, "no_submission_env", var=env_var, value=repr(override))
        error = FileNotFoundError(
            f"no submission at the default {str(path)!r}: set {env_var}=path/to/your.ipynb (or .py)"
        )
        raise _reason(error, "no_submission_default", var=env_var, path=repr(str(path)))
    if path.suffix not in (".ipynb", ".py"):
        error = ValueError(f"{str(path)!r} is neither a .ipynb nor a .py file: point {env_var} at your notebook")
        raise _reason(error, "not_notebook_or_py", var=env_var, path=repr(str(path)))
    return path


def _reason(exc: Exception, reason: str, **params: str) -> Exception:
    """`exc` with its language-free reason and values (see the module's docstring)."""
    exc.reason, exc.params = reason, params
    return exc


def load_submission(
    path: str | os.PathLike,
    *,
    quiet: bool = True,
    skip_cell: Callable[[int, str, Mapping], bool] | None = None,
    run_cell: RunCell | None = None,
) -> NotebookNamespace:
    """Run a .ipynb or .py submission and return what it defined (plus the errors of failing cells).

    With ``quiet``, what the cells print is discarded: the self-check's report is about the checks.
    ``skip_cell(index, source, metadata)`` leaves out the notebook cells it returns True for (a .py file runs
    whole); ``run_cell(index, run)`` runs each cell's code (a time budget per cell); see
    ``coursecheck.notebook.load_notebook``.
    """
    path = Path(path)
    if path.suffix not in (".py", ".ipynb"):
        error = ValueError(f"cannot load {str(path)!r}: expected a .ipynb or .py file")
        raise _reason(error, "unreadable", error=str(error))
    # A notebook's plt.show() must not open a window (and block) on a desktop: draw off-screen.
    os.environ.setdefault("MPLBACKEND", "Agg")
    sink = io.StringIO()
    with (
        contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext(),
        contextlib.redirect_stderr(sink) if quiet else contextlib.nullcontext(),
    ):
        try:
            if path.suffix == ".py":
                return exec_source(path.read_text(encoding="utf-8"), str(path), run_cell=run_cell)
            return load_notebook(path, skip_cell=skip_cell, run_cell=run_cell)
        except (OSError, ValueError) as error:  # not a notebook, unreadable, gone: said as it is
            raise _reason(error, "unreadable", error=str(error)) from error.__cause__


def missing_names_message(result: NotebookNamespace, names: Iterable[str], source: str) -> str | None:
    """None if every name is defined, else what is missing and which cells raised."""
    missing = [name for name in names if name not in result.namespace]
    if not missing:
        return None
    lines = [f"{source} does not define {', '.join(missing)} after running all its cells."]
    if result.errors:
        lines.append("Cells that raised (counted from 1 at the top, markdown included, as the grader counts):")
        lines += [f"  cell {index + 1}: {message}" for index, message in result.errors]
    else:
        lines.append("No cell raised: check the class names (they must be spelt exactly like this).")
    return "\n".join(lines)


@contextlib.contextmanager
def calls_into(functions: Iterable[Callable]) -> Iterator[list[str]]:
    """Record which of ``functions`` run while the block runs, however they are reached.

    Yields a list that fills with the qualified names of the functions called (each once, in call order).
    The match is on the function's code object, so an alias (``from m import f as g``), a bound method or
    a call from inside another library function is seen too; decorators are looked through. Only the
    calling thread is watched, and any profiler already installed is put back afterwards.

    Example::

        with calls_into([MiniGPT.generate]) as called:
            model.generate(prompt, 5)
        if called:
            print("delegated to", called)
    """
    watched = {}
    for function in functions:
        code = getattr(inspect.unwrap(function), "__code__", None)
        if code is None:
            raise TypeError(f"calls_into watches Python functions, got {function!r}: pass the function itself")
        watched[code] = getattr(function, "__qualname__", code.co_name)
    called: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in watched:
            name = watched[frame.f_code]
            if name not in called:
                called.append(name)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield called
    finally:
        sys.setprofile(previous)
