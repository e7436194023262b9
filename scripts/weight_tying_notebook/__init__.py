"""The weight-tying notebook's content (built by ``scripts/build_notebook.py``), for every edition.

`CELLS` is the one list of cells both editions share: code, solution and test cells are written once, and
each markdown cell is a key that every edition's `TEXT` must define (text_en.py, text_zh.py). Add a cell by
adding it to the list below (and, for markdown, its text to every edition). What the build reads of an
assignment's content: ``CELLS``, ``EDITIONS``, ``POINTS`` and ``SOLUTIONS``; it builds the notebook with the parts
every assignment shares (``scripts/notebook_parts/``).
"""

from __future__ import annotations

from pathlib import Path

from ..notebook_parts.points import Points
from . import text_en, text_zh
from .cells import Cell
from .lessons import (
    EXERCISE_1,
    EXERCISE_2,
    GRADE_CELLS,
    GRADIENTS,
    IMPORTS,
    INTRO,
    LOGITS,
    LOOKUP,
    POSITIONS,
    SAVINGS,
    SHAPES,
    TOKENIZER,
    TRY_IT,
)

__all__ = ["CELLS", "EDITIONS", "POINTS", "SOLUTIONS"]

_KIT = Path(__file__).resolve().parents[2]
SOLUTIONS = _KIT / "solutions" / "weight_tying.py"  # the solution cells' classes, their regions verbatim
# The hidden suite's points (its marking scheme): a test's name says its exercise; the table lists the areas in the
# order the notebook teaches them.
POINTS = Points(
    scheme=_KIT / "autograder" / "graders" / "weight_tying" / "marking.toml",
    exercises={1: ("test_tied_",), 2: ("test_wrapper_", "test_generate_")},
    order=("parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation"),
)

CELLS: list[Cell] = [
    INTRO,
    IMPORTS,
    *SHAPES,
    *LOOKUP,
    *TOKENIZER,
    *POSITIONS,
    *LOGITS,
    *EXERCISE_1,
    *GRADIENTS,
    *SAVINGS,
    *EXERCISE_2,
    *TRY_IT,
    *GRADE_CELLS,
]

# language -> the module holding that edition's prose (TEXT, AREA_NAMES, TABLE_HEADER)
EDITIONS = {module.LANGUAGE: module for module in (text_en, text_zh)}
