"""The weight-tying notebook's cell constructors: every assignment's (scripts/notebook_parts/cells.py), its practice
cells running the checks of weight_tying_checks."""

from __future__ import annotations

from functools import partial

from ..notebook_parts.cells import Cell, code, demo, md, solution, task, test
from ..notebook_parts.cells import practice as _practice

__all__ = ["Cell", "md", "code", "demo", "solution", "test", "practice", "task"]

practice = partial(_practice, package="weight_tying_checks")
