"""Trusted: the class report's two charts (score histogram, mean score per area) as base64 SVG images.

Drawn here as a few rectangles, lines and labels, not with a plotting library: matplotlib's import and two PNG
renders cost ~1.5 CPU-s, more than half a bare ``import torch``, at the end of every batch, even one that regraded
nobody. An SVG stays sharp at any zoom and prints cleanly; embedded as an ``<img>`` it stays one self-contained,
inert page (a browser runs nothing inside an image). Here each chart is laid out (positions, labels as text); it
is drawn by ``templates/chart.svg.j2``, autoescaped like every page (``outputs.html``), so a label is shown as text
whatever it holds, its reordering characters made visible first.
"""

from __future__ import annotations

import base64
import math
import statistics
import unicodedata
from collections import defaultdict
from typing import NamedTuple

from autograder.graders.spec import AssignmentSpec
from autograder.grading.rendering import in_scheme_order
from autograder.outputs.classview import ClassView
from autograder.outputs.html import number, render
from autograder.outputs.messages_report import report_words

__all__ = ["charts", "area_means", "histogram_svg", "area_svg", "bins"]

WIDTH = 520
_CHAR = 6.6  # a 12 px sans-serif character's mean advance, for margins
_LONGEST = 34  # an area's name beyond this many characters is cut, with an ellipsis
# Each chart's bars: what their value is called (``data-count``: students in a bin), their fill and outline.
_HISTOGRAM = {"data": "count", "fill": "#4477aa", "outline": "#fff"}
_AREAS = {"data": "mean", "fill": "#66aa55", "outline": None}


def bins(scores: list[float], top: float) -> list[int]:
    """How many scores fall in each of min(20, max(5, n)) equal bins over [0, top]; the last bin holds `top`
    itself, and a score outside the range counts in the bin at its end (nobody disappears from the chart; a score
    that is no number, in the first)."""
    count = min(20, max(5, len(scores)))
    span = top if top > 0 else 1.0
    out = [0] * count
    for score in scores:
        at = 0.0 if math.isnan(score) else min(max(float(score), 0.0), span)
        out[min(count - 1, int(at / span * count))] += 1
    return out


class Text(NamedTuple):
    """A label at (x, y): `anchor` is SVG's text-anchor, `turned` reads it bottom to top (the y axis's)."""

    x: float
    y: float
    label: str
    anchor: str = "middle"
    turned: bool = False


class Line(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float


class Bar(NamedTuple):
    """A bar, with the value it stands for (the chart's `data` attribute: what a test or a reader reads back)."""

    x: float
    y: float
    width: float
    height: float
    value: str


def _svg(height: float, title: str, **chart) -> str:
    """The chart drawn by ``templates/chart.svg.j2``: `grid` lines under the `bars`, `axes` over them, `labels`
    last; every position rounded to 0.1 px."""
    return render(
        "chart.svg.j2",
        width=WIDTH,
        height=round(height),
        title=title,
        heading=Text(WIDTH / 2, 20.0, title),
        **{key: _rounded(value) for key, value in chart.items()},
    )


def _rounded(value):
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    if isinstance(value, tuple):  # a Text, Line or Bar: its positions to 0.1 px
        return type(value)(*(round(v, 1) if isinstance(v, float) else v for v in value))
    return value


def _step(most: int) -> int:
    """A whole tick step that gives at most ~5 ticks up to `most`."""
    return max(1, math.ceil(most / 5))


def histogram_svg(scores: list[float], top: float, words: dict[str, str] | None = None) -> str:
    """The score distribution: students per bin of points, with whole-number counts on the y axis."""
    counts = bins(scores, top)
    left, right, upper, lower = 48, 16, 34, 46
    height = 300
    plot_w, plot_h = WIDTH - left - right, height - upper - lower
    step = _step(max(counts))
    y_top = step * math.ceil(max(max(counts), 1) / step)
    grid, axes, bars, labels = [], [], [], []
    for tick in range(0, y_top + 1, step):
        y = upper + plot_h * (1 - tick / y_top)
        grid.append(Line(left, y, left + plot_w, y))
        labels.append(Text(left - 6, y + 4, str(tick), anchor="end"))
    bar_w = plot_w / len(counts)
    for i, n in enumerate(counts):
        if n:
            h = plot_h * n / y_top
            bars.append(Bar(left + i * bar_w, upper + plot_h - h, bar_w, h, str(n)))
    base = upper + plot_h
    axes.append(Line(left, base, left + plot_w, base))
    for k in range(5):
        x = left + plot_w * k / 4
        axes.append(Line(x, base, x, base + 4))
        labels.append(Text(x, base + 17, number((top if top > 0 else 1.0) * k / 4)))
    w = words or report_words("en")
    labels.append(Text(left + plot_w / 2, height - 8, w["chart.score_axis"].format(top=number(top))))
    labels.append(Text(14, upper + plot_h / 2, w["chart.students_axis"], turned=True))
    return _svg(height, w["chart.histogram_title"], grid=grid, bars=bars, axes=axes, labels=labels, **_HISTOGRAM)


def _cut(name: str) -> str:
    return name if len(name) <= _LONGEST else name[: _LONGEST - 1] + "…"


def area_svg(means: dict[str, float], words: dict[str, str] | None = None) -> str:
    """Mean percent of each area's points, one bar an area in the table's order, its value at its end."""
    names = [_cut(str(name)) for name in means]
    left = 12 + _CHAR * max(_columns(n) for n in names)
    right, upper, row, lower = 44, 34, 26, 40
    height = upper + row * len(names) + lower
    plot_w = WIDTH - left - right
    grid, bars, labels = [], [], []
    for tick in range(0, 101, 20):
        x = left + plot_w * tick / 100
        grid.append(Line(x, upper, x, upper + row * len(names)))
        labels.append(Text(x, upper + row * len(names) + 16, str(tick)))
    for i, (name, mean) in enumerate(zip(names, means.values(), strict=True)):
        y = upper + row * i
        w = plot_w * min(100.0, max(0.0, float(mean))) / 100
        labels.append(Text(left - 8, y + row / 2 + 4, name, anchor="end"))
        bars.append(Bar(left, y + 4, w, row - 8, f"{float(mean):.1f}"))
        labels.append(Text(left + w + 4, y + row / 2 + 4, f"{float(mean):.0f}%", anchor="start"))
    w = words or report_words("en")
    labels.append(Text(left + plot_w / 2, height - 8, w["chart.areas_axis"]))
    return _svg(height, w["chart.areas_title"], grid=grid, bars=bars, axes=[], labels=labels, **_AREAS)


def _data(svg: str) -> str:
    return base64.b64encode(svg.encode("utf-8")).decode("ascii")


def area_means(view: ClassView) -> dict[str, float]:
    """area -> mean percent of its points among judged submissions."""
    sums: dict[str, list[float]] = defaultdict(list)
    for row in view.judged:
        for area, (got, total) in row.result.areas.items():
            if total > 0:
                sums[area].append(100 * got / total)
    return {area: statistics.fmean(values) for area, values in sums.items()}


def charts(view: ClassView, language: str = "en", name=None, spec: AssignmentSpec | None = None) -> list[dict]:
    """[{"alt", "data"}, ...]: the charts there is data for, `data` an SVG in base64, in `language` (`name`: the
    areas' names in it, in the order of `spec`'s marking scheme)."""
    out, w = [], report_words(language)
    judged = view.judged
    if judged:
        top = max(r.result.max_score for r in judged)
        svg = histogram_svg([r.result.score for r in judged], top, w)
        out.append({"alt": w["chart.histogram"], "data": _data(svg)})
    means = area_means(view)
    if means:
        named = {(name or str)(area): means[area] for area in in_scheme_order(means, spec)}
        out.append({"alt": w["chart.areas"], "data": _data(area_svg(named, w))})
    return out


def _columns(text: str) -> int:
    """How many columns `text` takes: a Chinese character two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
