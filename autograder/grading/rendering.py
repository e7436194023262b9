"""Trusted: step 8's second half: a marked result in the language its submission is written in.

Nothing here translates: every student-facing message is a catalog id with its parameters. ``localize``
records the result's language and renders the engine's own words (the run summary, a refusal, the judge's
limits: ``autograder.grading.catalog``) in it.
"""

from __future__ import annotations

from dataclasses import replace

from autograder.grading.catalog import LANGUAGES
from autograder.grading.language import DEFAULT_LANGUAGE
from autograder.grading.result import Result

__all__ = ["localize"]


def localize(result: Result, language: str) -> Result:
    """`result` read in `language`: its run summary (the engine's catalog) rendered in it, and the language
    recorded for whoever renders its tests' findings. A language the engine does not speak is English.

    The tests keep their names, points, areas, findings and charges (a class report may mix languages).
    """
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    output = result.run.summary(language) if result.run is not None and result.grader_error is None else result.output
    return replace(result, output=output, language=language)
