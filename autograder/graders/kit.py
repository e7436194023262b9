"""Trusted: where the kit lives on disk, computed once (the kit root, its course and solution folders)."""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["KIT_ROOT", "COURSE_DIR", "SOLUTIONS_DIR", "kit_version"]

KIT_ROOT = Path(__file__).resolve().parents[2]  # the repository (or install) holding autograder/ and dnnlpy/
COURSE_DIR = KIT_ROOT / "assignments"  # the nbgrader course directory shipped with the kit
SOLUTIONS_DIR = KIT_ROOT / "solutions"  # reference answers (never shown to a sandbox)


@functools.cache  # read once: the installed metadata does not change under a running command (~2 ms a read)
def kit_version() -> str:
    """The installed kit's version (pyproject's), or "unknown" when it is run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("weight-tying-kit")
    except PackageNotFoundError:
        return "unknown"
