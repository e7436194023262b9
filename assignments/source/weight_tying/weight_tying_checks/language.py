"""Which language the checks speak: the edition's (edition.py, written by the build), or $WEIGHT_TYING_LANG.

Every word the self-check says comes from the grader's message catalog (messages.py, a copy of
autograder/graders/weight_tying/messages.py), rendered in the student's language where it is built (``tell``;
``unloadable`` for why the submission could not be found or loaded); so the self-check, the notebook's
practice cells and the grader's feedback use the same words. Nothing is translated.
"""

from __future__ import annotations

import os

from dnnlpy.notebook import CellPlace, name_cell

from .edition import LANGUAGE as EDITION_LANGUAGE
from .messages import CATALOG, render, render_said

__all__ = ["ENV_VAR", "LANGUAGES", "language", "tell", "shown", "unloadable", "cell_name"]

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


def tell(key: str, **params: object) -> str:
    """The catalog's message `key` in the student's language."""
    return render(key, language(), **params)


def shown(problem) -> str | None:
    """What the diagnosis found (a message as a value, or None), in the student's language."""
    return None if problem is None else render_said(problem, language())


def cell_name(place: CellPlace) -> str:
    """A cell's name in the student's language: its number, its section's heading and its first line, as the
    grader's pages name it (both word it with ``dnnlpy.notebook.name_cell``)."""
    forms = ("full", "no_heading", "no_first", "bare")
    return name_cell(place, {form: CATALOG[f"check.place.{form}"].template(language()) for form in forms})


def unloadable(error: Exception) -> str:
    """Why the submission could not be found or loaded, in the student's language: dnnlpy.selfcheck gives each
    error a language-free ``reason`` and its ``params``; anything else is quoted as it is."""
    reason, params = getattr(error, "reason", ""), getattr(error, "params", None)
    if isinstance(reason, str) and isinstance(params, dict) and f"checkfail.load.{reason}" in CATALOG:
        try:
            return tell(f"checkfail.load.{reason}", **params)
        except (KeyError, IndexError):  # an older dnnlpy with other values: its own words
            pass
    return tell("checkfail.load.unreadable", error=str(error))
