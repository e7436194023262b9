"""Trusted: a ``Result`` as Gradescope's results.json (``run_autograder``, ``grade --json``): the only place it is made.

Gradescope shows each entry of ``tests`` with its score and status, and sums nothing itself when the top-level
``score`` is given. The entries are the mark's breakdown, so that they add up and never contradict:

- one entry per passing test (full points, "passed");
- one entry per charge (``marking.breakdown``): a misconception, once per exercise, or a test that costs its
  own points; it holds the tests it covers (their points are its ``max_score``) and keeps what the scheme did
  not charge (``score``), "failed", its message and the tests listed in ``output``.

So the entries' scores sum to the mark, a passing test never shows lost points, and a failing one is never
"passed". Names are the catalog's titles in the submission's language. ``visibility`` is Gradescope's, and it
is everything's: the charges quote expected values, the passing tests' names tell what the hidden suite checks
and the score says whether a trick worked, so anything but ``visible`` (``after_published``, ...) holds back
the top level and every entry alike (Gradescope hides the score while any entry is hidden), and the run's
stdout (``stdout_visibility``) is never shown.
"""

from __future__ import annotations

from typing import Any

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import render
from autograder.grading.editions import charge_title, part_words, test_title
from autograder.grading.marking import breakdown, part_of
from autograder.grading.messages import clean_message
from autograder.grading.result import Result

__all__ = ["gradescope_results", "VISIBILITIES"]

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")  # Gradescope's


def gradescope_results(result: Result, spec: AssignmentSpec | None, *, visibility: str = "visible") -> dict:
    """The results.json dict of `result` (see the module)."""
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility={visibility!r}: Gradescope knows {', '.join(VISIBILITIES)}")
    language = result.language
    if result.grader_error is not None:
        extra: dict[str, Any] = {"grader_error": result.grader_error}
    else:
        extra = {
            "seed": result.seed,
            "areas": {a: [s, m] for a, (s, m) in result.areas.items()},
            "run": result.run.to_dict() if result.run is not None else {},
            "language": language,
        }
    tests = [
        {
            "name": test_title(spec, t.name, language),
            "score": t.points,
            "max_score": t.points,
            "status": "passed",
            "tags": [t.area],
            "visibility": visibility,
        }
        for t in result.tests
        if t.passed
    ]
    by_name = {t.name: t for t in result.tests}
    for charge in breakdown(result.tests, spec.scheme if spec is not None else None):
        covered = [by_name[name] for name, _ in charge.tests]
        lines = [clean_message(covered[0].message(language))]
        lines += [_line(t, p, charge, spec, language) for t, (_, p) in zip(covered, charge.tests, strict=True)]
        top = sum(t.points for t in covered)
        tests.append(
            {
                "name": charge_title(spec, charge, language),
                "score": round(top - charge.points, 6),
                "max_score": top,
                "status": "failed",
                "output": "\n".join(lines),
                "tags": sorted({t.area for t in covered}),
                "visibility": visibility,
            }
        )
    return {
        "score": result.score,
        "max_score": result.max_score,
        "execution_time": round(result.execution_time, 3),
        "output": result.output,
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": extra,
    }


def _line(test, lost: float, charge, spec: AssignmentSpec | None, language: str) -> str:
    """A test under its charge, as the pages say it: what it is worth and costs here, and why only part of it;
    a test the charge covers at no cost of its own is said so, never "-0"."""
    name, points = test_title(spec, test.name, language), _num(test.points)
    if not lost:
        return render("gradescope.covered_test", language, name=name, points=points)
    part = part_of(test, charge.cause, spec.scheme) if charge.misconception and spec is not None else None
    if part is None:
        return render("gradescope.charged_test", language, name=name, lost=_num(lost), points=points)
    words = part_words(spec, part, language)
    return render("gradescope.charged_part", language, name=name, lost=_num(lost), points=points, part=words)


def _num(value: float) -> str:
    return f"{value:g}"
