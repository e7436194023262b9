"""Trusted: the class report's two charts (score histogram, mean score per area) as base64 PNGs.

Drawn with matplotlib's Agg renderer through ``Figure`` (no pyplot global state), embedded in the page so it
stays one self-contained file.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from autograder.outputs.classview import ClassView
from autograder.outputs.html import number, png

__all__ = ["charts", "area_means"]


def _histogram(scores: list[float], top: float) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(5.5, 3.2))
    ax = fig.subplots()
    ax.hist(scores, bins=min(20, max(5, len(scores))), range=(0, top or 1), color="#4477aa", edgecolor="white")
    ax.set_xlabel(f"score (points out of {number(top)})")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("students")
    ax.set_title("Score distribution (judged submissions)")
    return png(fig)


def _area_chart(means: dict[str, float]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 0.8 + 0.45 * len(means)))
    ax = fig.subplots()
    names = list(means)[::-1]  # barh draws bottom-up; keep the table's order top-down
    ax.barh(names, [means[n] for n in names], color="#66aa55")
    ax.set_xlim(0, 100)
    ax.set_xlabel("mean % of the area's points")
    ax.set_title("Mean score per area")
    return png(fig)


def area_means(view: ClassView) -> dict[str, float]:
    """area -> mean percent of its points among judged submissions."""
    sums: dict[str, list[float]] = defaultdict(list)
    for row in view.judged:
        for area, (got, total) in row.result.areas.items():
            if total > 0:
                sums[area].append(100 * got / total)
    return {area: statistics.fmean(values) for area, values in sums.items()}


def charts(view: ClassView) -> list[dict]:
    """[{"alt", "data"}, ...]: the charts there is data for."""
    out = []
    judged = view.judged
    if judged:
        top = max(r.result.max_score for r in judged)
        out.append({"alt": "histogram of scores", "data": _histogram([r.result.score for r in judged], top)})
    means = area_means(view)
    if means:
        out.append({"alt": "mean percent per area", "data": _area_chart(means)})
    return out
