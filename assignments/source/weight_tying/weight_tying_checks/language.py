"""Which language the checks speak: the edition's (edition.py, written by the build), or $WEIGHT_TYING_LANG.

Every word the self-check says comes from the grader's message catalog (messages.py, a copy of
autograder/graders/weight_tying/messages.py), rendered in the student's language where it is built (``tell``;
``unloadable`` for why the submission could not be found or loaded); so the self-check, the notebook's
practice cells and the grader's feedback use the same words. Nothing is translated.
"""

from __future__ import annotations

import linecache
import os
import sys

from coursecheck.notebook import CellPlace, name_cell

from .edition import LANGUAGE as EDITION_LANGUAGE
from .messages import CATALOG, render, render_said

__all__ = ["ENV_VAR", "LANGUAGES", "language", "tell", "shown", "unloadable", "cell_name", "kernel_cell"]

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
    grader's pages name it (both word it with ``coursecheck.notebook.name_cell``)."""
    forms = ("full", "no_heading", "no_first", "bare")
    return name_cell(place, {form: CATALOG[f"check.place.{form}"].template(language()) for form in forms})


def kernel_cell(filename: str) -> str:
    """The name of a cell the notebook's IPython kernel ran under `filename` (a traceback's file for a cell, such
    as ``/tmp/ipykernel_7/2576366449.py``): the execution count Jupyter shows beside it ("[5]") and its first
    line, in the student's language. "" outside a kernel, or for a file the kernel did not run."""
    ipython = sys.modules.get("IPython")  # only a kernel has imported it: never imported here
    try:
        shell = ipython.get_ipython() if ipython is not None else None
        label = shell.compile.format_code_name(filename) if shell is not None else None  # ("Cell", "In[5]")
    except Exception:  # another IPython: the file's own name is said instead
        return ""
    if not label or not isinstance(label[1], str):
        return ""
    count = label[1].removeprefix("In").strip("[] ")
    first = next((line.strip() for line in linecache.getlines(filename) if line.strip()), "")
    first = first if len(first) <= 60 else first[:59] + "…"
    return tell("check.place.kernel" if first else "check.place.kernel_bare", count=count, first=first)


def unloadable(error: Exception) -> str:
    """Why the submission could not be found or loaded, in the student's language: coursecheck.selfcheck gives each
    error a language-free ``reason`` and its ``params``; anything else is quoted as it is."""
    reason, params = getattr(error, "reason", ""), getattr(error, "params", None)
    if isinstance(reason, str) and isinstance(params, dict) and f"checkfail.load.{reason}" in CATALOG:
        try:
            return tell(f"checkfail.load.{reason}", **params)
        except (KeyError, IndexError):  # an older dnnlpy with other values: its own words
            pass
    return tell("checkfail.load.unreadable", error=str(error))
