"""Trusted: a batch's progress in its output folder, and the one line ``python -m autograder status OUT`` prints.

    <out>/progress.json   {"pid", "started", "updated", "finished", "total", "reused", "todo", "done",
                           "grader_errors", "timeouts"}: rewritten as each result arrives (a few hundred bytes,
                           renamed into place: a reader never sees half of it)

Whether a run holds the folder is read from the kernel's table of file locks (``/proc/locks``), never by taking
the lock (a ``grade`` starting at that moment would find the folder busy), nor from a pid that a killed run
left behind and another process may have since. So the line tells a running batch (done of total, failures,
elapsed, time left at this run's pace), a finished one, and one stopped part-way (kill -9, a reboot)::

    running (pid 4242): 7 of 9 graded (2 up to date before), 1 grader error; 1 min 12 s elapsed, about 20 s left
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.atomic import write_text

__all__ = ["Progress", "status_line", "PROGRESS"]

PROGRESS = "progress.json"


def _write(path: Path, data: dict) -> None:
    """Rename a whole file into place (no fsync: a progress line lost to a power cut costs nothing)."""
    with contextlib.suppress(OSError):  # progress is for reading: a full disk must not stop the grading
        write_text(path, json.dumps(data) + "\n", durable=False)


class Progress:
    """What a class run has done so far, in ``<out>/progress.json``."""

    def __init__(self, out: Path, *, total: int, reused: int, todo: int) -> None:
        self.path = Path(out) / PROGRESS
        now = time.time()
        self.data = {
            "pid": os.getpid(),
            "started": now,
            "updated": now,
            "finished": None,
            "total": total,
            "reused": reused,
            "todo": todo,
            "done": 0,
            "grader_errors": 0,
            "timeouts": 0,
        }
        _write(self.path, self.data)

    def add(self, result: Result) -> None:
        self.data["done"] += 1
        self.data["grader_errors"] += result.status == GRADER_ERROR
        self.data["timeouts"] += result.status == "timeout"
        self.data["updated"] = time.time()
        _write(self.path, self.data)

    def finish(self) -> None:
        self.data["finished"] = self.data["updated"] = time.time()
        _write(self.path, self.data)


def _held(lock: Path) -> bool | None:
    """Whether some process holds `lock` (an flock), from /proc/locks; None when that table cannot be read."""
    try:
        info = os.stat(lock)
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return False if not lock.exists() else None
    except OSError:
        return None
    wanted = (os.major(info.st_dev), os.minor(info.st_dev), info.st_ino)
    for line in table.splitlines():
        fields = line.split()
        if "FLOCK" not in fields or len(fields) < 6:
            continue
        try:  # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2151738 0 EOF": device (hex) and inode
            major, minor, inode = fields[5].split(":")
            if (int(major, 16), int(minor, 16), int(inode)) == wanted:
                return True
        except ValueError:
            continue
    return False


def _span(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def _failures(data: dict) -> str:
    said = [f"{data['grader_errors']} grader error{'s' * (data['grader_errors'] != 1)}"] * bool(data["grader_errors"])
    said += [f"{data['timeouts']} timeout{'s' * (data['timeouts'] != 1)}"] * bool(data["timeouts"])
    return (", " + ", ".join(said)) if said else ""


def _read(out: Path) -> dict | None:
    try:
        data = json.loads((out / PROGRESS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    keys = ("started", "updated", "total", "reused", "todo", "done", "grader_errors", "timeouts")
    ok = isinstance(data, dict) and all(isinstance(data.get(k), int | float) for k in keys)
    return data if ok else None


def status_line(out: str | Path, *, now: float | None = None) -> str:
    """One line on the batch in `out` (see the module's docstring); FileNotFoundError when it holds none."""
    from autograder.outputs.folder import OutputFolder

    out = Path(out)
    manifest = OutputFolder(out).read_manifest()
    if manifest is None:
        raise FileNotFoundError(
            f"{str(out / 'manifest.json')!r} is missing or not a grading manifest: give the --out folder of a "
            "class run (python -m autograder grade ... --out FOLDER)"
        )
    now = time.time() if now is None else now
    data = _read(out)
    held = _held(out / ".lock")
    if data is None:  # a folder an older kit wrote: the manifest alone
        states = [s.get("state") for s in manifest.students]
        done = sum(state in ("graded", "up to date", "grader error") for state in states)
        when = (manifest.finished or "").replace("T", " ").replace("Z", " UTC")
        state = "running" if held else (f"finished {when}" if when else "stopped before it finished")
        return f"{state}: {done} of {len(states)} students graded (no progress.json: an older kit's folder)"
    counts = f"{data['done']} of {data['todo']} graded" + (
        f" ({data['reused']} up to date before)" if data["reused"] else ""
    )
    counts += _failures(data)
    if held or (held is None and data["finished"] is None and _alive(data.get("pid"))):
        elapsed = now - data["started"]
        left = ""
        if data["done"]:  # this run's pace so far, waiting included: a slow student makes the estimate grow
            left = f", about {_span(elapsed / data['done'] * (data['todo'] - data['done']))} left"
        return f"running (pid {data.get('pid')}): {counts}; {_span(elapsed)} elapsed{left}"
    if data["finished"] is not None and manifest.finished:
        when = datetime.fromtimestamp(data["finished"], UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        took = _span(data["finished"] - data["started"])
        graded = f"{data['done']} graded this run" + (f", {data['reused']} up to date" if data["reused"] else "")
        return (
            f"finished {when}: {data['total']} students, {graded}{_failures(data)}; took {took}; "
            f"report: {out / 'report.html'}"
        )
    return (
        f"stopped before it finished (killed?): {counts}, {data['todo'] - data['done']} left; run the same grade "
        "command again to grade the rest (the folder keeps its options)"
    )


def _alive(pid: object) -> bool:
    """Only where the lock table cannot be read: whether a process with that pid exists."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
