"""Trusted: one student's feedback page: score, run status, per-area points, every test with its message."""

from __future__ import annotations

from pathlib import Path

from autograder.outputs.html import escape, number, page, table
from autograder.result import Result

__all__ = ["write_feedback"]


def write_feedback(result: Result, path: Path, *, student: str = "") -> Path:
    """Write the page to `path` (folders created); returns it."""
    if not isinstance(result, Result):
        raise TypeError(f"result must be an autograder.result.Result, got {type(result).__name__}")
    path = Path(path)
    student = student or path.stem
    parts = [
        f"<h1>Feedback for {escape(student)}</h1>",
        f"<p><b>Score: {number(result.score)} / {number(result.max_score)}</b> &mdash; "
        f"status: {escape(result.status)}</p>",
    ]
    if result.output:
        parts.append(f"<h2>Run</h2><pre>{escape(result.output)}</pre>")
    if result.areas:
        rows = [
            f'<tr><td>{escape(a)}</td><td class="num">{number(s)} / {number(m)}</td></tr>'
            for a, (s, m) in result.areas.items()
        ]
        parts.append("<h2>Areas</h2>" + table(["area", "points"], rows))
    rows = []
    for test in sorted(result.tests, key=lambda t: t.area):  # stable: suite order inside each area
        verdict = "passed" if test.passed else "failed"
        rows.append(
            f'<tr class="{verdict}"><td>{escape(test.area)}</td><td>{escape(test.name)}</td>'
            f'<td class="num">{number(test.score)} / {number(test.points)}</td>'
            f"<td>{verdict}</td><td><pre>{escape(test.output)}</pre></td></tr>"
        )
    header = ["area", "test", "points", "result", "message"]
    parts.append("<h2>Tests</h2>" + (table(header, rows) if rows else "<p>No tests were run for this submission.</p>"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page(f"Feedback: {student}", "\n".join(parts)), encoding="utf-8")
    return path
