"""Trusted: which language a submission is written in, and its feedback in that language, from catalogs.

The edition is read from the file itself, never from anything the runner reports: a notebook built by
scripts/build_notebook.py says ``metadata.course_kit.language``; a .py file may say ``# language: zh`` on one
of its first lines. Anything else (an unreadable or refused file too) is English.

Nothing here translates: every student-facing message is a catalog id with its parameters, rendered in the
reader's language where it is shown. ``localize`` records the result's language and renders the engine's own
words (the run summary, a refusal, the judge's limits: ``autograder.grading.catalog``) in it; each test's
message is its finding, rendered by whoever shows it. A grader names its areas, tests and misconceptions
through its catalog (``AssignmentSpec.catalog``), which ``names`` reaches for the feedback pages and the report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import LANGUAGES, render
from autograder.grading.marking import Part
from autograder.grading.result import Result
from autograder.protocol.said import Said, Text, verbatim

__all__ = [
    "DEFAULT_LANGUAGE",
    "submission_language",
    "text_language",
    "localize",
    "names",
    "readable_test",
    "test_title",
    "charge_title",
    "part_words",
    "experiment_title",
    "stopped_said",
]

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
    catalog (a name the catalog lacks stays as it is); None for English or a grader without a catalog."""
    if language == DEFAULT_LANGUAGE or spec.catalog is None or language not in spec.languages:
        return None
    catalog = spec.catalog

    def name(text: str) -> str:
        found = catalog.title(text, language)
        return catalog.area_name(text, language) if found is None else found

    return name


def readable_test(test_id: str) -> str:
    """'test_generation.py::test_generate_respects_block_size[2]' -> 'generate respects block size [2]'."""
    func = str(test_id).rpartition("::")[2] or str(test_id)
    base, bracket, params = func.partition("[")
    base = base[5:] if base.startswith("test_") else base
    return base.replace("_", " ").strip() + (f" [{params}" if bracket else "")


def test_title(spec: AssignmentSpec | None, test_id: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A suite test as students read it: its catalog title in `language` (its readable name without one)."""
    readable = readable_test(test_id)
    if spec is None or spec.catalog is None or language not in spec.languages:
        return readable
    return spec.catalog.title(readable, language) or readable


def experiment_title(spec: AssignmentSpec | None, name: str, language: str = DEFAULT_LANGUAGE) -> str | None:
    """What the grader's runner was doing in its experiment `name`, in `language` (its catalog's title); None for
    a name the catalog does not know (the runner's word is the student's to forge: never looked up elsewhere)."""
    titled = getattr(spec.catalog, "experiment_title", None) if spec is not None else None
    if titled is None:
        return None
    return titled(name, language if language in spec.languages else DEFAULT_LANGUAGE)


def charge_title(spec: AssignmentSpec | None, charge, language: str = DEFAULT_LANGUAGE) -> str:
    """What a charge (``marking.Charge``) is for, in `language`: its misconception's title, or the test's."""
    if charge.misconception and spec is not None and spec.catalog is not None:
        return spec.catalog.misconception_title(charge.cause, language if language in spec.languages else "en")
    return charge.cause if charge.misconception else test_title(spec, charge.cause, language)


def part_words(spec: AssignmentSpec | None, part: Part, language: str = DEFAULT_LANGUAGE) -> str:
    """Why a test carries only part of its points in a charge (``marking.Part``), in `language`: "the other 3
    not charged: this mistake costs at most 6 points in this area of the exercise" (the misconceptions that take
    the rest named by their titles)."""
    language = language if spec is None or language in spec.languages else DEFAULT_LANGUAGE
    catalog = spec.catalog if spec is not None else None
    said = [
        render(
            "charge.part.others",
            language,
            points=f"{points:g}",
            title=catalog.misconception_title(cause, language) if catalog is not None else cause,
        )
        for cause, points in part.others
    ]
    if part.free > 0:
        said.append(render("charge.part.free", language, points=f"{part.free:g}", cap=f"{part.cap:g}"))
    return render("charge.part.sep", language).join(said)


def stopped_said(stop: dict) -> Text:
    """Where the judge stopped ({"id", "params"} or {"words"}, ``pipeline.judge_stop``), as a message."""
    if stop.get("id"):
        return Said(stop["id"], **stop.get("params", {}))
    return verbatim(str(stop.get("words", "")))


def localize(result: Result, language: str) -> Result:
    """`result` read in `language`: its run summary (the engine's catalog) rendered in it, and the language
    recorded for whoever renders its tests' findings. A language the engine does not speak is English.

    The tests keep their names, points, areas, findings and charges (a class report may mix languages).
    """
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    run, blank = result.run, result.blank
    output = run.summary(language, blank=blank) if run is not None and result.grader_error is None else result.output
    return replace(result, output=output, language=language)
