"""Trusted: the class report's tables of numbers: pass rate per area and per test, the slowest submissions.

Rates count judged submissions only (blank and unreadable ones are counted apart). Each function returns
plain rows for ``templates/report.html.j2``.
"""

from __future__ import annotations

import statistics
from collections import Counter

from autograder.graders.spec import AssignmentSpec
from autograder.grading.rendering import in_scheme_order
from autograder.outputs.charts import area_means
from autograder.outputs.classview import ClassView
from autograder.outputs.wording import readable_test

__all__ = ["area_rates", "test_rates", "slowest"]

_SLOWEST = 5  # the report lists at most these many submissions, slowest first
_NEAR = 0.5  # a run that used at least this share of its wall-time limit came near it
_NOTABLE = 2.0  # with no limit known, a run taking at least this many times the median is the one to look at


def area_rates(view: ClassView, spec: AssignmentSpec | None = None) -> list[dict]:
    """[{"area", "points", "mean" (percent), "full" (students with full marks)}, ...] in the order of `spec`'s
    marking scheme (the notebook's), else the suite's."""
    judged = view.judged
    rows = []
    means = area_means(view)
    for area in in_scheme_order(means, spec):
        mean = means[area]
        full = sum(1 for r in judged if area in r.result.areas and r.result.areas[area][0] >= r.result.areas[area][1])
        total = max(r.result.areas.get(area, (0, 0))[1] for r in judged)
        rows.append({"area": area, "points": total, "mean": mean, "full": full})
    return rows


def test_rates(view: ClassView) -> list[dict]:
    """Every test with its pass rate among judged submissions, the least passed first."""
    passed: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    info: dict[str, tuple[str, float]] = {}
    for row in view.judged:
        for test in row.result.tests:
            seen[test.name] += 1
            passed[test.name] += test.passed
            info.setdefault(test.name, (test.area, test.points))
    order = sorted(seen, key=lambda n: (passed[n] / seen[n], info[n][0], n))
    return [
        {
            "test": readable_test(name),
            "area": info[name][0],
            "points": info[name][1],
            "rate": passed[name] / seen[name],
            "failing": seen[name] - passed[name],
        }
        for name in order
    ]


def slowest(view: ClassView) -> tuple[float | None, list]:
    """(median grading time, the rows worth a look) among rows with a timing, slowest first, at most five; (None,
    []) when none has one. Where the runs' wall-time limit is known, those that used at least half of it or were
    stopped at it (none: every run finished well within its limit); where no run's is, those taking at least twice
    the median (not every hand-in of a small class, down to a blank one's 0.1 s) or stopped at the limit."""
    timed = [r for r in view.rows if r.result is not None and r.result.execution_time > 0]
    if not timed:
        return None, []
    timed.sort(key=lambda r: -r.result.execution_time)
    median = statistics.median(r.result.execution_time for r in timed)
    if any(limit_of(r.result) for r in timed):
        return median, [r for r in timed if near_limit(r.result)][:_SLOWEST]
    slow = [r for r in timed if _stopped(r.result) or r.result.execution_time >= _NOTABLE * median]
    return median, slow[:_SLOWEST]


def limit_of(result) -> float:
    """The wall-time limit `result`'s run was given, in seconds (0.0: not known)."""
    limit = result.run.limit if result.run is not None else None
    return float(limit) if isinstance(limit, int | float) and limit > 0 else 0.0


def near_limit(result) -> bool:
    """Whether `result`'s run was stopped at its wall-time limit or used at least half of it."""
    limit = limit_of(result)
    return _stopped(result) or bool(limit) and result.execution_time >= _NEAR * limit


def _stopped(result) -> bool:
    return result.run is not None and result.run.status == "timeout"
