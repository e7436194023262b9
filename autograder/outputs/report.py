"""Trusted: the instructor's class report for a graded batch, one self-contained HTML page.

Reads what ``autograder.outputs.grades.write_outputs`` wrote (``<out>/results/<student>.json``) and writes
``<out>/report.html`` and ``<out>/feedback/<student>.html``. Charts are PNGs drawn with matplotlib's Agg
renderer and embedded as base64, so the page can be mailed or uploaded as a single file. Results are read
through ``Result.from_gradescope``, which trusts no field; test messages are partly student-controlled
text, so everything shown is HTML-escaped. ::

    python -m autograder.outputs.report graded/          # -> graded/report.html
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from autograder.outputs.feedback import write_feedback
from autograder.outputs.html import escape, img, number, page, png, table
from autograder.result import GRADER_ERROR, Result

__all__ = ["load_results", "write_report"]

_TOP_FAILING = 15  # rows in the "most common failing tests" table
_SAMPLE_CHARS = 300  # a sample failure message is cut to this many characters


def load_results(out: Path) -> tuple[dict[str, Result], dict[str, str]]:
    """(student -> Result, unreadable file name -> reason) from ``<out>/results/*.json``."""
    folder = Path(out) / "results"
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{str(folder)!r} does not exist: pass the --out folder of a batch grading run "
            "(it holds results/<student>.json)"
        )
    results: dict[str, Result] = {}
    unreadable: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            results[path.stem] = Result.from_gradescope(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            unreadable[path.name] = f"{type(exc).__name__}: {exc}"
    return results, unreadable


def _feedback_href(student: str) -> str:
    return "feedback/" + quote(f"{student}.html")


# ---------------------------------------------------------------- charts (Agg, no pyplot global state)


def _histogram(scores: list[float], maxima: list[float]) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(5.5, 3.2))
    ax = fig.subplots()
    top = max(maxima) if maxima else 0.0
    if len(set(maxima)) == 1 and top > 0:  # one max for everyone: points are what the instructor knows
        ax.hist(scores, bins=min(20, max(5, len(scores))), range=(0, top), color="#4477aa", edgecolor="white")
        ax.set_xlabel(f"score (points out of {number(top)})")
    else:
        pct = [100 * s / m if m > 0 else 0.0 for s, m in zip(scores, maxima, strict=True)]
        ax.hist(pct, bins=10, range=(0, 100), color="#4477aa", edgecolor="white")
        ax.set_xlabel("score (% of max)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("students")
    ax.set_title("Score distribution")
    return png(fig)


def _area_chart(area_means: dict[str, float]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 0.6 + 0.45 * len(area_means)))
    ax = fig.subplots()
    names = list(area_means)[::-1]  # barh draws bottom-up; keep the table's order top-down
    ax.barh(names, [area_means[n] for n in names], color="#66aa55")
    ax.set_xlim(0, 100)
    ax.set_xlabel("mean % of the area's points")
    ax.set_title("Mean score per area")
    return png(fig)


# ---------------------------------------------------------------- class report


def _summary(results: dict[str, Result], unreadable: dict[str, str]) -> tuple[str, list[float], list[float]]:
    graded = [r for r in results.values() if r.status != GRADER_ERROR]
    scores = [r.score for r in graded]
    maxima = [r.max_score for r in graded]
    statuses = Counter(r.status for r in results.values())
    rows = [("submissions", len(results) + len(unreadable)), ("graded", len(graded))]
    if scores:
        rows += [
            ("mean score", number(statistics.fmean(scores))),
            ("median score", number(statistics.median(scores))),
            ("min score", number(min(scores))),
            ("max score", number(max(scores))),
            ("max possible", number(max(maxima))),
        ]
    rows += [
        ("grader errors", statuses.get(GRADER_ERROR, 0)),
        ("timeouts", statuses.get("timeout", 0)),
        ("out of memory", statuses.get("memory", 0)),
        ("crashed / exited early", statuses.get("crashed", 0) + statuses.get("exited", 0)),
        ("unreadable result files", len(unreadable)),
    ]
    body = table(["", "value"], [f'<tr><th>{escape(k)}</th><td class="num">{escape(v)}</td></tr>' for k, v in rows])
    note = "<p>Score statistics exclude grader errors (those submissions were not graded).</p>"
    return body + note, scores, maxima


def _area_means(results: dict[str, Result]) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for result in results.values():
        if result.status == GRADER_ERROR:
            continue
        for area, (got, total) in result.areas.items():
            if total > 0:
                sums.setdefault(area, []).append(100 * got / total)
    return {area: statistics.fmean(values) for area, values in sums.items()}


def _failing(results: dict[str, Result]) -> str:
    """Tests ranked by how many students with a clean run failed them: those point at misconceptions,
    while a timeout or crash fails every later test for reasons the run status already gives."""
    total: Counter[str] = Counter()
    clean: Counter[str] = Counter()
    sample: dict[str, tuple[bool, str]] = {}  # name -> (from a clean run, message)
    area: dict[str, str] = {}
    for result in results.values():
        ok = result.status == "ok"
        for test in result.failing():
            total[test.name] += 1
            clean[test.name] += ok
            area.setdefault(test.name, test.area)
            message = test.output
            if message and (test.name not in sample or (ok and not sample[test.name][0])):
                short = message if len(message) <= _SAMPLE_CHARS else message[:_SAMPLE_CHARS] + " ..."
                sample[test.name] = (ok, short)
    if not total:
        return "<p>No failing tests.</p>"
    ranked = sorted(total, key=lambda n: (-clean[n], -total[n], n))[:_TOP_FAILING]
    rows = [
        f'<tr><td>{escape(name)}</td><td>{escape(area[name])}</td><td class="num">{clean[name]}</td>'
        f'<td class="num">{total[name]}</td><td><pre>{escape(sample.get(name, (0, ""))[1])}</pre></td></tr>'
        for name in ranked
    ]
    header = ["test", "area", "students failing (run ok)", "students failing (all)", "sample message"]
    return table(header, rows)


def write_report(out: Path) -> Path:
    """Write ``<out>/report.html`` and ``<out>/feedback/<student>.html``; returns the report's path."""
    out = Path(out)
    results, unreadable = load_results(out)
    for student, result in results.items():
        write_feedback(result, out / "feedback" / f"{student}.html", student=student)
    summary, scores, maxima = _summary(results, unreadable)
    parts = [f"<h1>Grading report: {escape(out.resolve().name)}</h1>", "<h2>Class summary</h2>", summary]
    means = _area_means(results)
    charts = []
    if scores:
        charts.append(img("histogram of scores", _histogram(scores, maxima)))
    if means:
        charts.append(img("mean percent per area", _area_chart(means)))
    if charts:
        parts.append('<div class="charts">' + "".join(charts) + "</div>")
    if means:
        rows = [f'<tr><td>{escape(a)}</td><td class="num">{m:.1f}</td></tr>' for a, m in means.items()]
        parts.append(table(["area", "mean %"], rows))
    parts += ["<h2>Most common failing tests</h2>", _failing(results)]
    rows = []
    for student, result in results.items():
        pct = f"{100 * result.score / result.max_score:.0f}%" if result.max_score > 0 else "-"
        cls = ' class="bad"' if result.status != "ok" else ""
        rows.append(
            f'<tr><td><a href="{escape(_feedback_href(student))}">{escape(student)}</a></td>'
            f'<td class="num">{number(result.score)} / {number(result.max_score)}</td><td class="num">{pct}</td>'
            f"<td{cls}>{escape(result.status)}</td></tr>"
        )
    parts += [
        "<h2>Students</h2>",
        table(["student", "score", "%", "status"], rows) if rows else "<p>No readable results.</p>",
    ]
    if unreadable:
        bad = [f'<tr><td>{escape(n)}</td><td class="bad">{escape(why)}</td></tr>' for n, why in unreadable.items()]
        parts += ["<h2>Unreadable result files</h2>", table(["file", "problem"], bad)]
    path = out / "report.html"
    path.write_text(page(f"Grading report: {out.resolve().name}", "\n".join(parts)), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(
            "usage: python -m autograder.outputs.report OUT_DIR   (the --out folder of a batch grading run)",
            file=sys.stderr,
        )
        return 2
    try:
        path = write_report(Path(args[0]))
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
