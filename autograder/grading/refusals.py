"""Trusted: what a run tried that its sandbox refused, as values (``RunFacts.refused``): what a TA is told.

Each is ``[kind, what]``, from the producer that saw it, never from text a submission wrote:

- ``["output", "stdout"]``: the sandbox stopped reading a channel the run flooded (``SandboxResult.flooded``:
  stdout, stderr, or the evidence pipe past its cap);
- ``["files", "/path"]``: a file the run tried to open, list or enter (the runner's ``__refused__`` record) that
  exists on this machine but is not in the run's view: the sandbox hid it. A path that exists nowhere was not
  refused, and one in the run's own folders (``/tmp``, ``/proc``, ``/dev``) is the run's own;
- ``["call", "ptrace"]``: a kernel call the seccomp profile refuses, reached by name through ``ctypes``, or a
  socket of a family it does not give (``"socket:AF_INET"``).

The runner's record is its word: a submission can erase it (the label is then missing), never use it (it moves
no mark: the report and the pages only say it). ``refused_lines`` says it to the student, in their language.
"""

from __future__ import annotations

import os
from typing import Any

from autograder.graders.kit import KIT_ROOT
from autograder.grading.catalog import render
from autograder.protocol.run_records import read_refused

__all__ = ["refused", "refused_lines", "KINDS", "PRIVATE"]

KINDS = ("output", "files", "call")
PRIVATE = ("/tmp", "/var/tmp", "/dev", "/proc")  # the run's own folders: what it misses there, it never had
MAX_SHOWN = 12  # of each kind
_KIT = os.path.normpath(str(KIT_ROOT))


def refused(flooded: list[str], record: Any) -> list[list[str]]:
    """[kind, what] for what the sandbox refused, from the channels it stopped reading and the runner's
    ``__refused__`` record (any shape)."""
    files, calls = read_refused(record)
    out = [["output", name] for name in flooded if name in ("stdout", "stderr", "evidence")]
    out += [["files", path] for path in [p for p in files if _hidden(p)][:MAX_SHOWN]]
    out += [["call", name] for name in _refused_calls(calls)[:MAX_SHOWN]]
    return out


def _hidden(path: str) -> bool:
    """Whether `path` (as the run saw it: absolute) is a file of this machine the run could not see. In the run's
    own folders that is only the kit's own files (a kit checked out under /tmp, as a CI machine may): anything
    else there is what the run never had."""
    path = os.path.normpath(path)
    if not os.path.isabs(path) or "\0" in path:
        return False
    private = any(path == p or path.startswith(p + "/") for p in PRIVATE)
    if private and not (path == _KIT or path.startswith(_KIT + "/")):
        return False
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _refused_calls(calls: list[str]) -> list[str]:
    """The calls of `calls` the sandbox refuses: by name, or a socket family it does not give."""
    if not calls:
        return []
    from autograder.sandbox.seccomp import ENOSYS_CALLS, REFUSED  # here: it loads libseccomp

    names = set(REFUSED) | set(ENOSYS_CALLS)
    kept = [c for c in calls if c in names or c.startswith("socket:") and len(c) > len("socket:")]
    return list(dict.fromkeys(kept))


def refused_lines(entries: Any, language: str = "en") -> list[str]:
    """What the sandbox refused a run (``RunFacts.refused``), one sentence per kind, in `language` ([] when
    nothing was): the calls and channels named, the files not (which of a student's guessed paths exist is not
    theirs to learn; *Needs a look* names them)."""
    entries = entries if isinstance(entries, list) else []
    pairs = [e for e in entries if isinstance(e, (list, tuple)) and len(e) == 2]  # a results file's, any shape
    out = []
    for kind in ("files", "call", "output"):
        what = [str(w)[:200] for k, w in pairs if k == kind]
        if what:
            more = f" (+{len(what) - 6})" if len(what) > 6 else ""
            shown = render("run.names_sep", language).join(what[:6]) + more
            out.append(render(f"run.refused.{kind}", language, what=shown))
    return out
