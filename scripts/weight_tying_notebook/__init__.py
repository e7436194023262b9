"""The weight-tying notebook's content (built by scripts/build_notebook.py), for every edition.

`CELLS` is the one list of cells both editions share: code, solution and test cells are written once, and
each markdown cell is a key that every edition's `TEXT` must define (text_en.py, text_zh.py). Add a cell by
adding it to the list below (and, for markdown, its text to every edition).
"""

from __future__ import annotations

from . import printed, readme, released, text_en, text_zh
from .cells import TASK_TEXT, Cell
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
from .points import area_split, by_area, by_exercise, suite_tests
from .wrapping import join_wrapped_lines

__all__ = [
    "Cell",
    "CELLS",
    "TASK_TEXT",
    "EDITIONS",
    "printed",
    "readme",
    "released",
    "by_area",
    "by_exercise",
    "suite_tests",
    "area_split",
    "join_wrapped_lines",
]

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
