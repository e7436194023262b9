"""Instructor report for a graded batch: one self-contained HTML page plus one feedback page per student.

Reads what ``autograder.batch.write_outputs`` wrote (``<out>/results/<student>.json``) and writes
``<out>/report.html`` and ``<out>/feedback/<student>.html``. Charts are PNGs drawn with matplotlib's Agg
renderer and embedded as base64, so the page can be mailed or uploaded as a single file.

Every field is read defensively: a grader-error result has no tests and no run info, and test messages are
partly student-controlled text, so everything shown is HTML-escaped. ::

    python -m autograder.report graded/          # -> graded/report.html
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

__all__ = ["load_results", "write_report", "write_feedback", "student_status"]

_TOP_FAILING = 15  # rows in the "most common failing tests" table
_SAMPLE_CHARS = 300  # a sample failure message is cut to this many characters

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;
vertical-align:top}th{background:#f3f3f3}td.num{text-align:right}tr.failed td{background:#fff3f3}
tr.passed td{background:#f3fff3}pre{white-space:pre-wrap;margin:0;font-size:90%}.bad{color:#a00}
img{max-width:100%}.charts{display:flex;flex-wrap:wrap;gap:1em}
"""


# ---------------------------------------------------------------- reading results (never trusting fields)

def load_results(out: Path) -> tuple[dict[str, dict], dict[str, str]]:
    """(student -> result dict, unreadable file name -> reason) from ``<out>/results/*.json``."""
    folder = Path(out) / "results"
    if not folder.is_dir():
        raise FileNotFoundError(f"{str(folder)!r} does not exist: pass the --out folder of a batch grading run "
                                "(it holds results/<student>.json)")
    results: dict[str, dict] = {}
    unreadable: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            unreadable[path.name] = f"{type(exc).__name__}: {exc}"
            continue
        if not isinstance(data, dict):
            unreadable[path.name] = f"expected a JSON object, found {type(data).__name__}"
            continue
        results[path.stem] = data
    return results, unreadable


def _num(value: Any) -> float:
    """A finite float from a JSON field, 0.0 for anything else (missing, text, NaN, bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0.0
    return float(value)


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _tests(result: dict) -> list[dict]:
    tests = result.get("tests")
    return [t for t in tests if isinstance(t, dict)] if isinstance(tests, list) else []


def _area(test: dict) -> str:
    tags = test.get("tags")
    return str(tags[0]) if isinstance(tags, list) and tags else "other"


def _passed(test: dict) -> bool:
    return test.get("status") == "passed"


def student_status(result: dict) -> str:
    """The run status ("ok", "timeout", "memory", ...), "grader error", or "unknown"."""
    extra = _dict(result.get("extra_data"))
    if "grader_error" in extra:
        return "grader error"
    status = _dict(extra.get("run")).get("status")
    return str(status) if status else "unknown"


def _areas(result: dict) -> dict[str, tuple[float, float]]:
    """area -> (score, max) from extra_data.areas, else summed from the tests' tags."""
    raw = _dict(_dict(result.get("extra_data")).get("areas"))
    out: dict[str, tuple[float, float]] = {}
    for area, pair in raw.items():
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            out[str(area)] = (_num(pair[0]), _num(pair[1]))
    if out:
        return out
    for test in _tests(result):
        got, total = out.get(_area(test), (0.0, 0.0))
        out[_area(test)] = (got + _num(test.get("score")), total + _num(test.get("max_score")))
    return out


# ---------------------------------------------------------------- small HTML helpers

def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _g(value: float) -> str:
    return f"{value:.4g}"


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f"<style>{_CSS}</style></head><body>\n{body}\n</body></html>\n")


def _table(header: list[str], rows: list[str]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>"


def _feedback_href(student: str) -> str:
    return "feedback/" + quote(f"{student}.html")


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _img(alt: str, png: str) -> str:
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{png}">'


# ---------------------------------------------------------------- charts (Agg, no pyplot global state)

def _histogram(scores: list[float], maxima: list[float]) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(5.5, 3.2))
    ax = fig.subplots()
    top = max(maxima) if maxima else 0.0
    if len(set(maxima)) == 1 and top > 0:  # one max for everyone: points are what the instructor knows
        ax.hist(scores, bins=min(20, max(5, len(scores))), range=(0, top), color="#4477aa", edgecolor="white")
        ax.set_xlabel(f"score (points out of {_g(top)})")
    else:
        pct = [100 * s / m if m > 0 else 0.0 for s, m in zip(scores, maxima)]
        ax.hist(pct, bins=10, range=(0, 100), color="#4477aa", edgecolor="white")
        ax.set_xlabel("score (% of max)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("students")
    ax.set_title("Score distribution")
    return _png(fig)


def _area_chart(area_means: dict[str, float]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 0.6 + 0.45 * len(area_means)))
    ax = fig.subplots()
    names = list(area_means)[::-1]  # barh draws bottom-up; keep the table's order top-down
    ax.barh(names, [area_means[n] for n in names], color="#66aa55")
    ax.set_xlim(0, 100)
    ax.set_xlabel("mean % of the area's points")
    ax.set_title("Mean score per area")
    return _png(fig)


# ---------------------------------------------------------------- per-student feedback

def write_feedback(result: dict, path: Path, *, student: str = "") -> Path:
    """One student's page: score, run status, per-area points, and every test with its message."""
    if not isinstance(result, dict):
        raise TypeError(f"result must be a results dict, got {type(result).__name__}")
    path = Path(path)
    student = student or path.stem
    score, max_score = _num(result.get("score")), _num(result.get("max_score"))
    parts = [f"<h1>Feedback for {_e(student)}</h1>",
             f"<p><b>Score: {_g(score)} / {_g(max_score)}</b> &mdash; status: {_e(student_status(result))}</p>"]
    if result.get("output"):
        parts.append(f"<h2>Run</h2><pre>{_e(result['output'])}</pre>")
    areas = _areas(result)
    if areas:
        parts.append("<h2>Areas</h2>" + _table(["area", "points"], [
            f'<tr><td>{_e(a)}</td><td class="num">{_g(s)} / {_g(m)}</td></tr>' for a, (s, m) in areas.items()]))
    tests = sorted(_tests(result), key=_area)  # stable: suite order inside each area
    rows = []
    for test in tests:
        verdict = "passed" if _passed(test) else "failed"
        rows.append(f'<tr class="{verdict}"><td>{_e(_area(test))}</td><td>{_e(test.get("name", "?"))}</td>'
                    f'<td class="num">{_g(_num(test.get("score")))} / {_g(_num(test.get("max_score")))}</td>'
                    f"<td>{verdict}</td><td><pre>{_e(test.get('output') or '')}</pre></td></tr>")
    parts.append("<h2>Tests</h2>" + (_table(["area", "test", "points", "result", "message"], rows) if rows
                                     else "<p>No tests were run for this submission.</p>"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_page(f"Feedback: {student}", "\n".join(parts)), encoding="utf-8")
    return path


# ---------------------------------------------------------------- class report

def _summary(results: dict[str, dict], unreadable: dict[str, str]) -> tuple[str, list[float], list[float]]:
    graded = {s: r for s, r in results.items() if student_status(r) != "grader error"}
    scores = [_num(r.get("score")) for r in graded.values()]
    maxima = [_num(r.get("max_score")) for r in graded.values()]
    statuses = Counter(student_status(r) for r in results.values())
    rows = [("submissions", len(results) + len(unreadable)), ("graded", len(graded))]
    if scores:
        rows += [("mean score", _g(statistics.fmean(scores))), ("median score", _g(statistics.median(scores))),
                 ("min score", _g(min(scores))), ("max score", _g(max(scores))),
                 ("max possible", _g(max(maxima)))]
    rows += [("grader errors", statuses.get("grader error", 0)), ("timeouts", statuses.get("timeout", 0)),
             ("out of memory", statuses.get("memory", 0)),
             ("crashed / exited early", statuses.get("crashed", 0) + statuses.get("exited", 0)),
             ("unreadable result files", len(unreadable))]
    table = _table(["", "value"], [f'<tr><th>{_e(k)}</th><td class="num">{_e(v)}</td></tr>' for k, v in rows])
    note = "<p>Score statistics exclude grader errors (those submissions were not graded).</p>"
    return table + note, scores, maxima


def _area_means(results: dict[str, dict]) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for result in results.values():
        if student_status(result) == "grader error":
            continue
        for area, (got, total) in _areas(result).items():
            if total > 0:
                sums.setdefault(area, []).append(100 * got / total)
    return {area: statistics.fmean(values) for area, values in sums.items()}


def _failing(results: dict[str, dict]) -> str:
    """Tests ranked by how many students with a clean run failed them: those point at misconceptions,
    while a timeout or crash fails every later test for reasons the run status already gives."""
    total: Counter[str] = Counter()
    clean: Counter[str] = Counter()
    sample: dict[str, tuple[bool, str]] = {}  # name -> (from a clean run, message)
    area: dict[str, str] = {}
    for result in results.values():
        ok = student_status(result) == "ok"
        for test in _tests(result):
            if _passed(test):
                continue
            name = str(test.get("name", "?"))
            total[name] += 1
            clean[name] += ok
            area.setdefault(name, _area(test))
            message = str(test.get("output") or "")
            if message and (name not in sample or (ok and not sample[name][0])):
                sample[name] = (ok, message if len(message) <= _SAMPLE_CHARS else message[:_SAMPLE_CHARS] + " ...")
    if not total:
        return "<p>No failing tests.</p>"
    ranked = sorted(total, key=lambda n: (-clean[n], -total[n], n))[:_TOP_FAILING]
    rows = [f'<tr><td>{_e(name)}</td><td>{_e(area[name])}</td><td class="num">{clean[name]}</td>'
            f'<td class="num">{total[name]}</td><td><pre>{_e(sample.get(name, (0, ""))[1])}</pre></td></tr>'
            for name in ranked]
    return _table(["test", "area", "students failing (run ok)", "students failing (all)", "sample message"], rows)


def write_report(out: Path) -> Path:
    """Write ``<out>/report.html`` and ``<out>/feedback/<student>.html``; returns the report's path."""
    out = Path(out)
    results, unreadable = load_results(out)
    for student, result in results.items():
        write_feedback(result, out / "feedback" / f"{student}.html", student=student)
    summary, scores, maxima = _summary(results, unreadable)
    parts = [f"<h1>Grading report: {_e(out.resolve().name)}</h1>", "<h2>Class summary</h2>", summary]
    means = _area_means(results)
    charts = []
    if scores:
        charts.append(_img("histogram of scores", _histogram(scores, maxima)))
    if means:
        charts.append(_img("mean percent per area", _area_chart(means)))
    if charts:
        parts.append('<div class="charts">' + "".join(charts) + "</div>")
    if means:
        parts.append(_table(["area", "mean %"], [f'<tr><td>{_e(a)}</td><td class="num">{m:.1f}</td></tr>'
                                                 for a, m in means.items()]))
    parts += ["<h2>Most common failing tests</h2>", _failing(results)]
    rows = []
    for student, result in results.items():
        score, max_score = _num(result.get("score")), _num(result.get("max_score"))
        pct = f"{100 * score / max_score:.0f}%" if max_score > 0 else "-"
        status = student_status(result)
        cls = ' class="bad"' if status != "ok" else ""
        rows.append(f'<tr><td><a href="{_e(_feedback_href(student))}">{_e(student)}</a></td>'
                    f'<td class="num">{_g(score)} / {_g(max_score)}</td><td class="num">{pct}</td>'
                    f"<td{cls}>{_e(status)}</td></tr>")
    parts += ["<h2>Students</h2>", _table(["student", "score", "%", "status"], rows) if rows
              else "<p>No readable results.</p>"]
    if unreadable:
        parts += ["<h2>Unreadable result files</h2>", _table(["file", "problem"], [
            f'<tr><td>{_e(name)}</td><td class="bad">{_e(why)}</td></tr>' for name, why in unreadable.items()])]
    path = out / "report.html"
    path.write_text(_page(f"Grading report: {out.resolve().name}", "\n".join(parts)), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m autograder.report OUT_DIR   (the --out folder of a batch grading run)",
              file=sys.stderr)
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
