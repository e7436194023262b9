"""Trusted: the instructor's class report, and one feedback page per student, from a batch folder's manifest.

Reads ``<out>/manifest.json`` and the ``results/<uid>.json`` it names (never a glob of the folder), and
writes ``<out>/report.html`` and ``<out>/feedback/<uid>.html``, each atomically; one page that cannot be
written is a warning, never the end of the others. The report opens with what to act on (students who need
a look), then the class's numbers, pass rates per area and per test, misconceptions ranked with example
students, the slowest submissions, and every student linked to their page. ::

    python -m autograder.outputs.report graded/          # -> graded/report.html
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from autograder.outputs.atomic import write_text
from autograder.outputs.classview import FLAGS, ClassView, Row, load_class, read_keywords
from autograder.outputs.feedback import write_feedback
from autograder.outputs.html import escape, number, page, table
from autograder.outputs.report_parts import area_rates, charts, misconceptions, slowest, student_link, test_rates
from autograder.outputs.wording import cell_starts

__all__ = ["write_report", "write_pages", "main"]

_ATTENTION = {
    "grader error": "the grader failed, not the student: regrade with --student NAME",
    "missing": "no result yet (the run was stopped): run the same command again",
    "unreadable": "the file is not a readable submission: ask the student for a working copy",
    "blank": "nothing written beyond the starter code",
    **FLAGS,  # look-alike names, other files in a student's folder (classview)
}
_RUN_PROBLEMS = {"timeout", "memory", "crashed", "exited"}


def _title(view: ClassView) -> tuple[str, str]:
    m = view.manifest
    counts = view.counts()
    when = (m.finished or m.started or "").replace("T", " ").replace("Z", " UTC")
    title = f"{m.assignment}: grading report"
    others = ", ".join(f"{counts[k]} {k}" for k in ("blank", "unreadable", "grader error", "missing") if counts[k])
    meta = f"{when} · seed {m.seed} · kit {m.kit_version} · {len(view.rows)} submissions, {counts['graded']} graded" + (
        f" ({others})" if others else ""
    )
    return title, meta


def _summary(view: ClassView) -> str:
    scores = [r.result.score for r in view.judged]
    counts = view.counts()
    statuses = [r.result.status for r in view.rows if r.result is not None]
    rows = [("submissions", len(view.rows)), *((k, counts[k]) for k in ("graded", "blank", "unreadable"))]
    if scores:
        top = max(r.result.max_score for r in view.judged)
        rows += [
            ("mean score", f"{number(statistics.fmean(scores))} / {number(top)}"),
            ("median score", f"{number(statistics.median(scores))} / {number(top)}"),
            ("full marks", sum(1 for r in view.judged if r.result.score >= r.result.max_score > 0)),
        ]
    rows += [
        ("timeouts", statuses.count("timeout")),
        ("out of memory", statuses.count("memory")),
        ("crashed or exited early", statuses.count("crashed") + statuses.count("exited")),
        ("grader errors", counts["grader error"]),
        ("no result yet", counts["missing"]),
    ]
    body = [f'<tr><th>{escape(k)}</th><td class="num">{escape(v)}</td></tr>' for k, v in rows]
    return table(None, body) + "<p>Score statistics count graded submissions only (not blank or unreadable).</p>"


def _attention(view: ClassView) -> str:
    """One row per kind of problem, with every student it concerns and what to do (a class of 300 stays short)."""
    groups: dict[str, list[Row]] = {}
    for row in view.rows:
        if row.kind in _ATTENTION:
            groups.setdefault(row.kind, []).append(row)
        elif row.result is not None and row.result.status in _RUN_PROBLEMS:
            groups.setdefault(f"run ended: {row.result.status}", []).append(row)
    groups.update(view.flagged())  # after every kind in the order below
    if not groups:
        return "<p>Nothing: every submission was graded and ran to the end.</p>"
    order = ["grader error", "missing", "unreadable", *(f"run ended: {s}" for s in sorted(_RUN_PROBLEMS)), "blank"]
    body = []
    for kind in (k for k in [*order, *FLAGS] if k in groups):
        what = _ATTENTION.get(kind, "look at its feedback page: the run explains the lost points")
        links = ", ".join(_titled_link(r) for r in groups[kind])
        count = f'<td class="num">{len(groups[kind])}</td>'
        body.append(f"<tr><td>{escape(kind)}</td>{count}<td>{links}</td><td>{escape(what)}</td></tr>")
    return table(["problem", "students", "who", "what to do"], body, numeric=(1,))


def _titled_link(row: Row) -> str:
    title = f' title="{escape(row.problem[:300])}"' if row.problem else ""
    return f'<a href="{escape(row.feedback_href)}"{title}>{escape(row.name)}</a>'


def _students(view: ClassView) -> str:
    areas: list[str] = []
    for row in view.rows:
        if row.result is not None:
            areas += [a for a in row.result.areas if a not in areas]
    body = []
    for row in view.rows:
        r = row.result
        if r is None or row.kind == "grader error":
            cells = '<td class="num">–</td><td class="num">–</td>' + '<td class="num">–</td>' * len(areas)
        else:
            pct = f"{100 * r.score / r.max_score:.0f}%" if r.max_score > 0 else "–"
            per = "".join(f'<td class="num">{number(r.areas.get(a, (0, 0))[0])}</td>' for a in areas)
            cells = f'<td class="num">{number(r.score)} / {number(r.max_score)}</td><td class="num">{pct}</td>{per}'
        status = r.status if r is not None else "no result"
        cls = "" if row.kind == "graded" and status == "ok" else ' class="bad"'
        body.append(f"<tr><td>{student_link(row)}</td>{cells}<td{cls}>{escape(row.kind)}: {escape(status)}</td></tr>")
    header = ["student", "score", "%", *areas, "kind: run"]
    return table(header, body, numeric=tuple(range(1, 3 + len(areas))))


def _placeholder(row: Row, path: Path, assignment: str) -> Path:
    text = (
        f"<h1>{escape(assignment)}: feedback for {escape(row.name)}</h1>"
        "<p>This submission has not been graded yet. Your instructor will grade it again; nothing is lost.</p>"
    )
    return write_text(path, page(f"{assignment}: feedback for {row.name}", text))


def write_pages(
    view: ClassView, out: Path, *, starts: Callable[[Row], dict[int, str]] | None = None
) -> tuple[list[Path], dict[str, str]]:
    """Every student's feedback page; (pages written, uid -> why a page was not written)."""
    written, failed = [], {}
    assignment = view.manifest.assignment
    for row in view.rows:
        path = Path(out) / row.feedback_href
        try:
            if row.result is None or row.kind == "grader error":
                written.append(_placeholder(row, path, assignment))
                continue
            found = starts(row) if starts else cell_starts(row.submission)
            page_path = write_feedback(
                row.result,
                path,
                student=row.name,
                assignment=assignment,
                kind=row.suffix,
                starts=found,
                graded_at=row.graded_at.replace("T", " ").replace("Z", " UTC"),
            )
            written.append(page_path)
        except Exception as exc:  # one page must never cost the others theirs
            failed[row.uid] = f"{type(exc).__name__}: {exc}"
    return written, failed


def write_report(out: str | Path, *, keywords: list[str] | None = None) -> Path:
    """Write ``<out>/report.html`` and every student's feedback page; returns the report's path.

    `keywords`: the grader's misconception keywords (default: read from the assignment's MISCONCEPTIONS.md).
    """
    out = Path(out)
    view = load_class(out)
    if keywords is None:
        keywords = _grader_keywords(view.manifest.assignment)
    _, failed = write_pages(view, out)
    title, meta = _title(view)
    parts = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="meta">{escape(meta)}</p>',
        "<h2>Needs a look</h2>",
        _attention(view),
        "<h2>Class summary</h2>",
        _summary(view),
        charts(view),
        "<h2>Pass rate per area</h2>",
        area_rates(view),
        "<h2>Misconceptions, most common first</h2>",
        misconceptions(view, keywords),
        "<h2>Pass rate per test, least passed first</h2>",
        test_rates(view),
        "<h2>Slowest submissions</h2>",
        slowest(view),
        "<h2>Students</h2>",
        _students(view) if view.rows else "<p>No students in this run.</p>",
    ]
    if failed:
        rows = [f"<tr><td>{escape(uid)}</td><td class='bad'>{escape(why)}</td></tr>" for uid, why in failed.items()]
        parts += ["<h2>Feedback pages not written</h2>", table(["student id", "problem"], rows)]
    return write_text(out / "report.html", page(title, "\n".join(parts)))


def _grader_keywords(assignment: str) -> list[str]:
    from autograder.graders import ASSIGNMENTS, get_assignment

    if assignment not in ASSIGNMENTS:
        return []
    return read_keywords(Path(get_assignment(assignment).judge_dir).parent / "MISCONCEPTIONS.md")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m autograder.outputs.report OUT_DIR   (the --out folder of a batch run)", file=sys.stderr)
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
