"""Trusted: a ``Result`` as Gradescope's results.json (``run_autograder``, ``grade --json``): the only place it is made.

Gradescope shows each entry of ``tests`` with its score and status, and sums nothing itself when the top-level
``score`` is given. The entries are the mark's breakdown, so that they add up and never contradict:

- one entry per passing test (full points, "passed");
- one entry per charge (``marking.breakdown``): a misconception, once per exercise, or a test that costs its
  own points; it holds the tests it covers (their points are its ``max_score``) and keeps what the scheme did
  not charge (``score``), "failed", its message and the tests listed in ``output``.

So the entries' scores sum to the mark, a passing test never shows lost points, and a failing one is never
"passed". Names and messages are the result's as rendered in the submission's language when it was graded
(``Result.shown_in``): nothing here marks or words anything. ``visibility`` is Gradescope's, and it is
everything's: the charges quote expected values, the passing tests' names tell what the hidden suite checks
and the score says whether a trick worked, so anything but ``visible`` (``after_published``, ...) holds back
the top level and every entry alike (Gradescope hides the score while any entry is hidden), and the run's
stdout (``stdout_visibility``) is never shown.
"""

from __future__ import annotations

from typing import Any

from autograder.grading.result import Result
from autograder.protocol.said import Said, ended, render

__all__ = ["gradescope_results", "VISIBILITIES"]

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")  # Gradescope's


def gradescope_results(result: Result, *, visibility: str = "visible") -> dict:
    """The results.json dict of `result`, as rendered in its language when graded (see the module)."""
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility={visibility!r}: Gradescope knows {', '.join(VISIBILITIES)}")
    shown, score, top_score = result.shown_in(), result.score, result.max_score
    language = shown.language
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
            "name": t.title,
            "score": t.points,
            "max_score": t.points,
            "status": "passed",
            "tags": [t.area],
            "visibility": visibility,
        }
        for t in shown.tests
        if t.passed
    ]
    by_id = {t.test: t for t in shown.tests}
    for charge in shown.charges:
        covered = [(by_id[name], lost, part) for name, lost, part in charge.tests]
        lines = [by_id[charge.lead].message]  # the test that says it, as the pages open the charge
        for t, lost, part in covered:  # each test under the charge, as the pages say it (gradescope.messages)
            # in an area whose cap sentence below says the cost, a test is said by its worth alone
            cost = "capped" if t.area in charge.cap_areas else "free" if t.test in charge.free else bool(lost)
            key = _LINES[cost, bool(part)]  # a template fills in the parameters it names
            lines.append(render(Said(key, name=t.title, points=f"{t.points:g}", lost=f"{lost:g}", part=part), language))
        # where the misconception's cost leaves the rest uncharged: once per area, a sentence each
        lines += [ended(cap) if language == "zh" else f"{cap}." for cap in charge.caps]
        top = sum(t.points for t, _, _ in covered)
        tests.append(
            {
                "name": charge.title,
                "score": round(top - charge.points, 6),
                "max_score": top,
                "status": "failed",
                "output": "\n".join(lines),
                "tags": sorted({t.area for t, _, _ in covered}),
                "visibility": visibility,
            }
        )
    return {
        "score": score,
        "max_score": top_score,
        "execution_time": round(result.execution_time, 3),
        "output": shown.summary,
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": extra,
    }


# What a test under a charge says, by (it costs something here, it carries only part of its points): what it is
# worth and costs, and why only part; a test the charge covers at no cost of its own says so, never "-0"
_LINES = {
    (False, False): "gradescope.covered_test",
    (False, True): "gradescope.covered_part",
    (True, False): "gradescope.charged_test",
    (True, True): "gradescope.charged_part",
    ("free", False): "gradescope.free_test",  # it costs nothing at all (ShownCharge.free)
    ("free", True): "gradescope.free_part",
    ("capped", False): "gradescope.worth_test",  # its area's cap sentence says what the area costs
    ("capped", True): "gradescope.worth_part",
}
