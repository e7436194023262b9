"""Which language the checks speak: the edition's (edition.py, written by the build), or $WEIGHT_TYING_LANG.

The self-check's own words and the diagnosis come from the grader's message catalog (messages.py, a copy of
autograder/graders/weight_tying/messages.py), rendered in the student's language where they are built
(``tell``); so the self-check, the notebook's practice cells and the grader's feedback use the same words.
The checks' remaining English sentences still go through the grader's translation rules (``say``).
"""

from __future__ import annotations

import os

from .edition import LANGUAGE as EDITION_LANGUAGE
from .messages import render

__all__ = ["ENV_VAR", "LANGUAGES", "language", "say", "tell"]

ENV_VAR = "WEIGHT_TYING_LANG"
LANGUAGES = ("en", "zh")


def language() -> str:
    """'en' or 'zh': $WEIGHT_TYING_LANG when set, else this edition's language."""
    chosen = os.environ.get(ENV_VAR, "").strip().lower() or EDITION_LANGUAGE
    if chosen not in LANGUAGES:
        raise ValueError(
            f"{ENV_VAR}={chosen!r} is not a language of this assignment: use one of {', '.join(LANGUAGES)}"
        )
    return chosen


def say(text: str) -> str:
    """`text` (English) in the student's language (the Chinese rules are compiled only when a run needs them)."""
    if language() != "zh":
        return text
    from .translate_zh import translate

    return translate(text)


def tell(key: str, **params: object) -> str:
    """The catalog's message `key` in the student's language."""
    return render(key, language(), **params)
