"""The report's charts: SVG drawn by the kit, every student in a bar, every label escaped, no plotting library."""

from __future__ import annotations

import subprocess
import sys
from xml.etree import ElementTree

import pytest

from autograder.outputs.charts import area_svg, bins, histogram_svg

SVG = "{http://www.w3.org/2000/svg}"


def _bars(svg: str) -> list[ElementTree.Element]:
    root = ElementTree.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == f"{SVG}svg" and int(root.get("width")) > 100 and int(root.get("height")) > 100
    return [r for r in root.iter(f"{SVG}rect") if r.get("class") == "bar"]


@pytest.mark.parametrize(
    "scores, top, expected",
    [
        ([0, 100, 40, 39.9], 100, [1, 1, 1, 0, 1]),  # 5 bins of 20: 39.9 in the second, 40 in the third
        ([100] * 3, 100, [0, 0, 0, 0, 3]),  # full marks land in the last bin, not past it
        ([-3, 140, float("nan")], 100, [2, 0, 0, 0, 1]),  # out of range: the bin at its end; NaN: the first
        ([1.0], 0, [0, 0, 0, 0, 1]),  # a class whose top is 0 still gets a chart
    ],
)
def test_bins_hold_every_score_once(scores, top, expected):
    assert bins(scores, top) == expected


def test_bins_are_at_most_twenty_and_at_least_five():
    assert len(bins([50.0] * 3, 100)) == 5 and len(bins([50.0] * 12, 100)) == 12 and len(bins([50.0] * 90, 100)) == 20


def test_the_histogram_draws_a_bar_per_filled_bin_its_height_its_count():
    scores = [10.0, 12.0, 95.0, 100.0, 100.0, 55.0]
    bars = _bars(histogram_svg(scores, 100))
    counts = [int(b.get("data-count")) for b in bars]
    assert sorted(counts) == sorted(n for n in bins(scores, 100) if n) and sum(counts) == len(scores)
    heights = {int(b.get("data-count")): float(b.get("height")) for b in bars}
    assert heights[2] == pytest.approx(2 * heights[1], rel=0.02)  # height in proportion to the count


def test_the_area_chart_has_a_named_bar_per_area_in_order_its_width_its_mean():
    means = {"parameter identity": 100.0, "shape flow": 50.0, "argmax generation": 0.0}
    svg = area_svg(means)
    bars = _bars(svg)
    assert [float(b.get("data-mean")) for b in bars] == [100.0, 50.0, 0.0]
    widths = [float(b.get("width")) for b in bars]
    assert widths[0] == pytest.approx(2 * widths[1], rel=0.01) and widths[2] == 0
    texts = [t.text for t in ElementTree.fromstring(svg).iter(f"{SVG}text")]
    assert texts.index("parameter identity") < texts.index("shape flow") < texts.index("argmax generation")
    assert "100%" in texts and "50%" in texts


def test_labels_are_escaped_and_cannot_reorder_text():
    hostile = '<script>alert(1)</script> & "\u202e'
    svg = area_svg({hostile: 40.0, "x" * 80: 60.0})
    assert "<script>" not in svg and "\u202e" not in svg
    texts = [t.text for t in ElementTree.fromstring(svg).iter(f"{SVG}text")]
    assert '<script>alert(1)</script> & "\\u202e' in texts  # shown as text, the override as an escape
    assert any(t.endswith("…") and len(t) < 40 for t in texts)  # a long name is cut, not run off the chart


def test_the_grid_lies_under_the_bars_and_the_axis_over_them():
    """SVG paints in document order: a bar hides the grid behind it, and the axis shows over the bars' feet."""
    root = ElementTree.fromstring(histogram_svg([10.0, 60.0, 60.0], 100))
    drawn = [(e.tag, e.get("stroke"), e.get("class")) for e in root if e.tag in (f"{SVG}line", f"{SVG}rect")]
    first_bar = next(i for i, (_, _, kind) in enumerate(drawn) if kind == "bar")
    last_bar = max(i for i, (_, _, kind) in enumerate(drawn) if kind == "bar")
    assert {stroke for _, stroke, _ in drawn[:first_bar] if stroke} == {"#e4e4e4"}  # the grid, first
    assert {stroke for _, stroke, kind in drawn[last_bar + 1 :]} == {"#444"}  # the axis and its ticks, last


def test_writing_the_report_imports_no_plotting_library(batch_folder, area_result):
    out = batch_folder({"alice": area_result(seconds=2.0), "bob": area_result(seconds=3.0)})
    probe = (
        "import sys\nfrom autograder.outputs.report import write_report\n"
        f"page = write_report({str(out)!r}).read_text()\n"
        "print('svg+xml' in page, sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True", "[]"]
