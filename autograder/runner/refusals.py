"""Untrusted: what the run tried that its sandbox may have refused, as the runner saw it (``__refused__``).

A sandbox refuses without a word: a file outside its view is simply not there (or an unreadable mount stands in
for it), a refused system call fails with ``EPERM``, a socket of a family it does not give fails with
``EAFNOSUPPORT``. So the runner watches, with an audit hook (PEP 578: installed before the submission's code
runs, it cannot be removed from Python), for

- files the run tried to open, list or enter that were not there to be read (``files``: absolute paths);
- kernel calls reached by name through ``ctypes`` (``libc.ptrace``: ``calls``, "ptrace") and sockets of any
  family but ``AF_UNIX`` ("socket:AF_INET"). A call made by its number (``libc.syscall(248, ...)``) raises no
  event that says which: it is not seen.

It records what it saw, at most ``MAX_EACH`` of each, and sends it once, before ``__done__``. The source files of
the modules already loaded when it starts are not counted: a traceback shown for the run reads them (the warm
path's fork server was imported from files the run's view does not hold). The warm path's fork server names
them once, before it forks (``remember_loaded``): a forked run that walked ``sys.modules`` itself would touch
~1,100 module objects, and so copy a page for each (~8 ms of CPU a run). It decides
nothing: the judge keeps only what the sandbox did refuse (a path that exists on the grading machine, a call on
the seccomp profile's list: ``autograder.grading.refusals``). It is the runner's word: a submission that hides
what it tried loses the label, and one that forges it gains nothing (it moves no mark).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

__all__ = ["Attempts", "watch", "remember_loaded", "MAX_EACH"]

MAX_EACH = 32  # paths, and calls, recorded at most
_MAX_PATH = 512  # characters of a path kept
# Audit events that name a path, and the argument that holds it.
_PATH_EVENTS = {"open": 0, "os.listdir": 0, "os.scandir": 0, "os.chdir": 0, "glob.glob": 0, "shutil.copyfile": 0}
# Every event the hook looks at: any other returns at once (a graded run raises thousands: builtins.id, ...).
_WATCHED = frozenset({*_PATH_EVENTS, "socket.__new__", "ctypes.dlsym"})


class Attempts:
    """The audit hook and what it saw (``record``: the ``__refused__`` record's fields)."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.calls: list[str] = []
        # The modules' files as loaded now, read back by tracebacks (linecache), by the runner, not the
        # submission: their names kept now (or as the fork server remembered them), made absolute only when a path
        # is missing (~1,100 modules: 3 ms a run for a set most runs never consult).
        self._module_paths = _REMEMBERED if _REMEMBERED is not None else _module_paths()
        self._cwd = _cwd()  # a relative one is read from here
        self._loaded: frozenset[str] | None = None
        self._inside = False  # the hook's own work raises no event of its own worth watching: no re-entry

    def __call__(self, event: str, args: tuple) -> None:
        if event not in _WATCHED or self._inside:
            return
        self._inside = True
        try:
            self._see(event, args)
        except Exception:  # noqa: BLE001 - a watch must never change what the run does
            pass
        finally:
            self._inside = False

    def _see(self, event: str, args: tuple) -> None:
        where = _PATH_EVENTS.get(event)
        if where is not None:
            self._path(args[where] if len(args) > where else None)
        elif event == "socket.__new__" and len(args) > 1 and args[1] not in (socket.AF_UNIX, -1):
            self._call(f"socket:{_family(args[1])}")
        elif event == "ctypes.dlsym" and len(args) > 1 and isinstance(args[1], str):
            self._call(args[1][:80])

    def _path(self, path: Any) -> None:
        if len(self.files) >= MAX_EACH or path is None or isinstance(path, int):
            return
        text = os.path.abspath(os.fsdecode(path))
        if text in self.files or os.access(text, os.R_OK):
            return
        if self._loaded is None:
            self._loaded = frozenset(os.path.normpath(os.path.join(self._cwd, p)) for p in self._module_paths)
        if text not in self._loaded:
            self.files.append(text[:_MAX_PATH])

    def _call(self, name: str) -> None:
        if len(self.calls) < MAX_EACH and name not in self.calls:
            self.calls.append(name)

    def record(self) -> dict[str, list[str]]:
        return {"files": list(self.files), "calls": list(self.calls)}


_REMEMBERED: list[str] | None = None  # the fork server's modules' files (``remember_loaded``)


def remember_loaded() -> None:
    """Name the files of the modules loaded now as the ones every later ``Attempts`` does not count: for a warm
    process that imports what its runs need and then forks them, called after the last import, before the first
    fork. A run that loads a module later loads it from its own view, where the file is there to be read."""
    global _REMEMBERED
    _REMEMBERED = _module_paths()


def _module_paths() -> list[str]:
    """The ``__file__`` of every module loaded now, as each module states it."""
    found = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            found.append(path)
    return found


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the directory is gone: a relative module path then names nothing here
        return os.sep


def _family(number: int) -> str:
    try:
        return socket.AddressFamily(number).name
    except ValueError:
        return str(number)


def watch() -> Attempts:
    """Start watching this process (for good: an audit hook stays until the process ends)."""
    attempts = Attempts()
    see, watched = attempts.__call__, _WATCHED

    def hook(event: str, args: tuple) -> None:  # a plain function: a third cheaper a call than the instance
        if event in watched:  # (a run raises thousands of events: builtins.id, object.__getattr__, ...)
            see(event, args)

    sys.addaudithook(hook)
    return attempts
