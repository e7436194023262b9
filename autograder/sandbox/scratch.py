"""Trusted: the sandbox's scratch folders (``<tmp>/autograder-run-*``) and the sweep of those a killed grader left.

A run removes its own folder when it ends; a grader killed mid-run (Ctrl-C twice, OOM, SIGKILL) cannot. The
next grader process removes such leftovers once, at its first run.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["WORKDIR_PREFIX", "clean_stale_workdirs"]

WORKDIR_PREFIX = "autograder-run-"
_cleaned = False


def clean_stale_workdirs(wall_seconds: float, *, sandbox_uids: range = range(0)) -> list[str]:
    """Remove leftover work folders (once per process); returns those removed.

    Stale means all of: ours (or, as root, a sandbox uid's), untouched for longer than any run here could
    take (10 min, or twice this run's time limit), and no process working inside it (a live run's sandbox
    keeps its folder as working directory for the whole run).
    """
    global _cleaned
    if _cleaned:
        return []
    _cleaned = True
    cutoff = time.time() - max(600.0, 2 * wall_seconds + 60)
    owners = {os.geteuid()} | (set(sandbox_uids) if os.geteuid() == 0 else set())
    candidates = []
    for path in Path(tempfile.gettempdir()).glob(WORKDIR_PREFIX + "*"):
        try:
            st = path.lstat()
        except OSError:
            continue
        if path.is_dir() and not path.is_symlink() and st.st_uid in owners and st.st_mtime < cutoff:
            candidates.append(str(path))
    if not candidates:
        return []
    busy = _folders_in_use()
    removed = []
    for path in candidates:
        if not any(used == path or used.startswith(path + "/") for used in busy):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _folders_in_use() -> set[str]:
    """Working and root folders of every process we may look at."""
    used = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            for link in ("cwd", "root"):
                try:
                    used.add(os.readlink(f"/proc/{entry}/{link}"))
                except OSError:
                    continue
    return used
