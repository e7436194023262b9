"""Trusted: which language a submission is written in, and its feedback in that language, from catalogs.

The edition is read from the file itself, never from anything the runner reports: a notebook built by
scripts/build_notebook.py says ``metadata.course_kit.language``; a .py file may say ``# language: zh`` on one
of its first lines. Anything else (an unreadable or refused file too) is English.

Nothing here translates: every student-facing message is rendered from a catalog in the student's language
where it is built. The judge renders each test's message (``TestOutcome.localized``) while the marking scheme
reads the English (``output``); ``localize``, after marking, puts the rendered text in place and renders the
engine's own words (the run summary, a refusal, the judge's limits: ``autograder.grading.catalog``) in the
same language. A grader names its areas and tests through its catalog (``AssignmentSpec.catalog``), which
``names`` reaches for the feedback pages and the report.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import LANGUAGES, render
from autograder.grading.result import Result, TestOutcome

__all__ = ["DEFAULT_LANGUAGE", "submission_language", "text_language", "localize", "names", "stopped_words"]

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


def names(spec: AssignmentSpec, language: str) -> Callable[[str], str] | None:
    """A function naming a graded area, or a test by its readable name, in `language` from the grader's
    catalog (a name the catalog lacks stays as it is); None for English, a grader without a catalog, or a
    catalog that cannot be loaded (the pages then name things in English: feedback is never lost)."""
    if language == DEFAULT_LANGUAGE or not spec.catalog:
        return None
    try:
        catalog = importlib.import_module(spec.catalog)
        title, area_name = catalog.title, catalog.area_name
    except Exception:  # a broken catalog is the grader's bug: English names are still names
        return None

    def name(text: str) -> str:
        try:
            found = title(text, language)
            found = area_name(text, language) if found is None else found
        except Exception:
            return text
        return found if isinstance(found, str) else text

    return name


def stopped_words(stop: dict, language: str) -> str:
    """Where the judge stopped ({"id", "params"} or {"words"}, ``pipeline.judge_stop``), in `language`."""
    if stop.get("id"):
        return render(stop["id"], language, **stop.get("params", {}))
    return str(stop.get("words", ""))


def _not_judged(test: TestOutcome, stop: dict, language: str) -> str:
    """The not-judged message in `language` for a test the judge's limit cut off, else ""."""
    if not stop.get("id") or test.passed:
        return ""
    if test.output != render("judge.not_judged", DEFAULT_LANGUAGE, where=stopped_words(stop, DEFAULT_LANGUAGE)):
        return ""
    return render("judge.not_judged", language, where=stopped_words(stop, language))


def localize(result: Result, language: str) -> Result:
    """`result` with its student-facing text in `language`, after marking (which reads the English): each
    test's ``localized`` message (when the judge rendered one) in place of its ``output``, and the engine's
    words (the run summary, the judge's limits) rendered from its catalog. English, or a language the engine
    does not speak, leaves `result` as it is.

    The tests keep their names, points, areas and charges (a class report may mix languages); only what the
    student reads changes. Nothing is translated: every text is rendered from a catalog.
    """
    if language == DEFAULT_LANGUAGE or language not in LANGUAGES:
        return result
    stop = result.run.judge_stop if result.run is not None and isinstance(result.run.judge_stop, dict) else {}
    tests = [
        replace(t, output=t.localized or _not_judged(t, stop, language) or t.output, localized="") for t in result.tests
    ]
    output = result.run.summary(language) if result.run is not None and result.grader_error is None else result.output
    return replace(result, tests=tests, output=output, language=language)
