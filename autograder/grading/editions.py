"""Trusted: which language a submission is written in, and its feedback rendered in that language.

The edition is read from the file itself, never from anything the runner reports: a notebook built by
scripts/build_notebook.py says ``metadata.course_kit.language``; a .py file may say ``# language: zh`` on one
of its first lines. Anything else is English. A grader offers other languages through
``AssignmentSpec.translations`` (language -> "module:function" that renders its English text); the engine
applies it to a Result's student-facing text: every test's message and the run summary.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.grading.result import Result

__all__ = ["DEFAULT_LANGUAGE", "submission_language", "text_language", "localize", "translator"]

DEFAULT_LANGUAGE = "en"
_PY_MARK = re.compile(r"^#\s*language:\s*([A-Za-z-]+)\s*$")
_PY_LINES = 5  # the mark counts only near the top, where a header belongs


def submission_language(path: str | Path) -> str:
    """'en', or the language the file declares (lower case); unreadable or unmarked files are English."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return DEFAULT_LANGUAGE
    return text_language("ipynb" if path.suffix == ".ipynb" else "py", text)


def text_language(kind: str, text: str) -> str:
    """The same, for a submission already read (``kind`` "py" or "ipynb", as submissions.read_submission gives)."""
    if kind == "ipynb":
        try:
            kit = json.loads(text).get("metadata", {}).get("course_kit", {})
            language = kit.get("language") if isinstance(kit, dict) else None
        except (ValueError, AttributeError, RecursionError):  # not a notebook, or one nested deep: English
            return DEFAULT_LANGUAGE
        return language.lower() if isinstance(language, str) and language.strip() else DEFAULT_LANGUAGE
    for line in text.splitlines()[:_PY_LINES]:
        match = _PY_MARK.match(line.strip())
        if match:
            return match.group(1).lower()
    return DEFAULT_LANGUAGE


def translator(spec: AssignmentSpec, language: str) -> Callable[[str], str] | None:
    """The grader's function rendering its English text in `language`; None for English, a language the
    grader does not offer, or a translation module that cannot be loaded."""
    target = spec.translations.get(language)
    if language == DEFAULT_LANGUAGE or target is None:
        return None
    module, _, name = target.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except Exception:  # a broken translation table is the grader's bug: English is still feedback
        return None


def localize(result: Result, spec: AssignmentSpec, language: str) -> Result:
    """`result` with its student-facing text in `language`, when the grader offers it; else unchanged.

    The tests keep their names, points and areas (a class report may mix languages); only what the student
    reads changes. A translation that fails leaves the English text: feedback must never be lost.
    """
    translate = translator(spec, language)
    if translate is None:
        return result
    try:
        tests = [replace(t, output=translate(t.output)) for t in result.tests]
        output = translate(result.output)
    except Exception:  # a broken translation table is the grader's bug; English feedback is still feedback
        return result
    return replace(result, tests=tests, output=output, language=language)
