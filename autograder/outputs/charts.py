"""Trusted: the class report's two charts (score histogram, mean score per area) as base64 SVG images.

Drawn here as a few rectangles, lines and labels, not with a plotting library: matplotlib's import and two PNG
renders cost ~1.5 CPU-s, more than half a bare ``import torch``, at the end of every batch, even one that regraded
nobody. An SVG stays sharp at any zoom and prints cleanly; embedded as an ``<img>`` it stays one self-contained,
inert page (a browser runs nothing inside an image). Every label is escaped as XML, after ``html.visible``.
"""

from __future__ import annotations

import base64
import math
import statistics
import unicodedata
from collections import defaultdict
from xml.sax.saxutils import escape

from autograder.graders.spec import AssignmentSpec
from autograder.grading.rendering import in_scheme_order
from autograder.outputs.classview import ClassView
from autograder.outputs.html import number, visible
from autograder.outputs.messages_report import report_words

__all__ = ["charts", "area_means", "histogram_svg", "area_svg", "bins"]

WIDTH = 520
_FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="12" fill="#222"'
_CHAR = 6.6  # a 12 px sans-serif character's mean advance, for margins
_LONGEST = 34  # an area's name beyond this many characters is cut, with an ellipsis


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


def _text(x: float, y: float, label: str, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(str(visible(label)))}</text>'


def _svg(height: float, title: str, body: list[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" {_FONT}>'
        f"<title>{escape(str(visible(title)))}</title>"
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="#fff"/>'
        + _text(WIDTH / 2, 20, title, extra=' font-size="14" font-weight="600"')
    )
    return head + "".join(body) + "</svg>"


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
    body = []
    for tick in range(0, y_top + 1, step):
        y = upper + plot_h * (1 - tick / y_top)
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        body.append(_text(left - 6, y + 4, str(tick), anchor="end"))
    bar_w = plot_w / len(counts)
    for i, n in enumerate(counts):
        if n:
            h = plot_h * n / y_top
            x, y = left + i * bar_w, upper + plot_h - h
            body.append(
                f'<rect class="bar" data-count="{n}" x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                f'fill="#4477aa" stroke="#fff"/>'
            )
    base = upper + plot_h
    body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{base}" y2="{base}" stroke="#444"/>')
    for k in range(5):
        x = left + plot_w * k / 4
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base}" y2="{base + 4}" stroke="#444"/>')
        body.append(_text(x, base + 17, number((top if top > 0 else 1.0) * k / 4)))
    w = words or report_words("en")
    body.append(_text(left + plot_w / 2, height - 8, w["chart.score_axis"].format(top=number(top))))
    middle = upper + plot_h / 2
    body.append(_text(14, middle, w["chart.students_axis"], extra=f' transform="rotate(-90 14 {middle:.1f})"'))
    return _svg(height, w["chart.histogram_title"], body)


def _cut(name: str) -> str:
    return name if len(name) <= _LONGEST else name[: _LONGEST - 1] + "…"


def area_svg(means: dict[str, float], words: dict[str, str] | None = None) -> str:
    """Mean percent of each area's points, one bar an area in the table's order, its value at its end."""
    names = [_cut(str(name)) for name in means]
    left = 12 + _CHAR * max(_columns(n) for n in names)
    right, upper, row, lower = 44, 34, 26, 40
    height = upper + row * len(names) + lower
    plot_w = WIDTH - left - right
    body = []
    for tick in range(0, 101, 20):
        x = left + plot_w * tick / 100
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{upper}" y2="{upper + row * len(names)}" stroke="#e4e4e4"/>')
        body.append(_text(x, upper + row * len(names) + 16, str(tick)))
    for i, (name, mean) in enumerate(zip(names, means.values(), strict=True)):
        y = upper + row * i
        w = plot_w * min(100.0, max(0.0, float(mean))) / 100
        body.append(_text(left - 8, y + row / 2 + 4, name, anchor="end"))
        body.append(
            f'<rect class="bar" data-mean="{float(mean):.1f}" x="{left}" y="{y + 4}" width="{w:.1f}" '
            f'height="{row - 8}" fill="#66aa55"/>'
        )
        body.append(_text(left + w + 4, y + row / 2 + 4, f"{float(mean):.0f}%", anchor="start"))
    w = words or report_words("en")
    body.append(_text(left + plot_w / 2, height - 8, w["chart.areas_axis"]))
    return _svg(height, w["chart.areas_title"], body)


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
