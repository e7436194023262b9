"""The toy selftest assignment's notebook (built by ``scripts/build_notebook.py --assignment selftest``): the
smallest content an assignment gives the shared build, and what the kit's tests release and self-check.

One English edition (text_en.py); ``CELLS`` in order: what the assignment is and its points, the one import, a
demonstration, the exercise (``add``, from solutions/selftest.py) and its practice check, and the gradebook's
cells, one per graded area of the hidden suite.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..notebook_parts.cells import code, demo, md, solution, task
from ..notebook_parts.cells import practice as _practice
from ..notebook_parts.points import Points
from . import text_en

__all__ = ["CELLS", "EDITIONS", "POINTS", "SOLUTIONS"]

_KIT = Path(__file__).resolve().parents[2]
SOLUTIONS = _KIT / "solutions" / "selftest.py"
POINTS = Points(scheme=_KIT / "autograder" / "graders" / "selftest" / "marking.toml", exercises={1: ("test_",)})
practice = partial(_practice, package="selftest_checks")

CELLS = [
    md("intro"),
    code("import torch"),
    demo("torch.zeros(3, 1) + torch.arange(5.0)  # a column and a row broadcast to a (3, 5) table"),
    md("exercise"),
    solution("add"),
    practice("practice_add", "add", "add"),
    md("grading"),
    task("values"),
    task("broadcasting"),
]

EDITIONS = {text_en.LANGUAGE: text_en}
