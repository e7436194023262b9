"""The cells of assignments/source/weight_tying/weight_tying.ipynb, in order (built by build_notebook.py)."""

from __future__ import annotations

from .cells import Cell
from .graded import GPT_TESTS, TIED_TESTS
from .lessons import (
    EXERCISE_1,
    EXERCISE_2,
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

__all__ = ["Cell", "CELLS"]

CELLS: list[Cell] = [
    INTRO,
    IMPORTS,
    *SHAPES,
    *LOOKUP,
    *TOKENIZER,
    *POSITIONS,
    *LOGITS,
    *EXERCISE_1,
    *TIED_TESTS,
    *GRADIENTS,
    *SAVINGS,
    *EXERCISE_2,
    *GPT_TESTS,
    *TRY_IT,
]
