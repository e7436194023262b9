"""Trusted: the course's guard on nbgrader's ``generate_assignment``: a kit assignment is released only as the
build makes it.

Both editions' source folders hold files that ``scripts/build_notebook.py`` writes and the repository never
commits (the notebooks, the release's catalog and diagnosis): in a fresh clone they are missing, and after an
edit of their sources they are stale. The course's ``nbgrader_config.py`` makes ``built_first(SOURCE)`` the
GenerateAssignment converter's pre-convert hook, so a release of a kit assignment stops, naming the build
command, unless its source folder is what a fresh build makes.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from autograder.graders.kit import KIT_ROOT

__all__ = ["built_first", "BUILD_COMMAND"]

BUILD_COMMAND = "python scripts/build_notebook.py"


def built_first(source: str | Path) -> Callable[..., None]:
    """nbgrader's pre-convert hook for the course whose source folder is `source`: SystemExit, with the build
    command, for a kit assignment whose own source folder is missing a built file or holds a stale one (nbgrader
    logs and ignores any Exception a hook raises, and would release what is there)."""
    root = Path(source)

    def hook(*, assignment: str, student: str, notebooks: list) -> None:
        from autograder.graders import ASSIGNMENTS

        if assignment not in ASSIGNMENTS:  # an assignment of the course's own: nbgrader's business
            return
        check = [sys.executable, str(KIT_ROOT / "scripts" / "build_notebook.py"), "--check", "--copy", str(root)]
        proc = subprocess.run(check, capture_output=True, text=True, timeout=600)
        folder = f"{root / assignment}/"  # the build writes other folders too: this release needs its own
        stale = [line for line in proc.stderr.splitlines() if line.startswith(folder)]
        if stale or proc.returncode not in (0, 1):
            raise SystemExit(
                f"{assignment!r} is not released: its source folder is not what the build makes "
                f"({len(stale)} file(s) missing or out of date, first {stale[0] if stale else proc.stderr[-300:]}). "
                f"Run `{BUILD_COMMAND}` in the kit ({KIT_ROOT}), then release again."
            )

    return hook
