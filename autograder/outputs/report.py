"""Trusted: the instructor's class report, and one feedback page per student, from a batch folder's manifest.

Reads ``<out>/manifest.json`` and the ``results/<uid>.json`` it names (never a glob of the folder), and
writes ``<out>/report.html`` and ``<out>/feedback/<uid>.html``, each atomically; one page that cannot be
written is a warning, never the end of the others. The report (``templates/report.html.j2``) opens with what
to act on (*Needs a look*: ``attention``), then the class's numbers, pass rates per area and per test
(``passrates``, ``charts``), root-cause misconceptions (``misconceptions``), the slowest submissions, and
every student with their edition, score by area and the one thing to fix first, linked to their page. ::

    python -m autograder.outputs.report graded/          # -> graded/report.html
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.outputs.atomic import write_text
from autograder.outputs.attention import attention
from autograder.outputs.charges import cards
from autograder.outputs.charts import charts
from autograder.outputs.classview import ClassView, Row, load_class
from autograder.outputs.feedback import write_feedback
from autograder.outputs.html import number, render
from autograder.outputs.misconceptions import misconceptions
from autograder.outputs.passrates import area_rates, slowest, test_rates
from autograder.outputs.similarity.pages import section
from autograder.outputs.wording import cell_starts, duration, refused_detail, stopped_at, syntax_errors
from dnnlpy.notebook import CellPlace

__all__ = ["write_report", "write_pages", "main", "report_html"]


def _meta(view: ClassView) -> str:
    m = view.manifest
    counts = view.counts()
    when = (m.finished or m.started or "").replace("T", " ").replace("Z", " UTC")
    kinds = ("timeout", "blank", "refused", "unreadable", "grader error", "missing")
    others = ", ".join(f"{counts[k]} {k}" for k in kinds if counts[k])
    meta = f"{when} · seed {m.seed} · kit {m.kit_version} · {len(view.rows)} submissions, {counts['graded']} graded"
    return meta + (f" ({others})" if others else "")


def _summary(view: ClassView) -> list[tuple[str, object]]:
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
    late = [r.late for r in view.rows if r.late is not None]
    if any(one.due for one in late):
        dues = sorted({one.due for one in late if one.due})
        rows += [
            ("due date", dues[0] if len(dues) == 1 else f"{dues[0]} to {dues[-1]} (extensions, editions)"),
            ("handed in late", sum(1 for one in late if one.seconds > 0)),
            ("late policy", view.manifest.late_policy or "none"),
        ]
    rows += [
        ("timeouts", statuses.count("timeout")),
        ("out of memory", statuses.count("memory")),
        ("crashed or exited early", statuses.count("crashed") + statuses.count("exited")),
        ("grader errors", counts["grader error"]),
        ("no result yet", counts["missing"]),
    ]
    return rows


def _fix_first(row: Row, spec: AssignmentSpec | None, starts: Mapping[int, CellPlace]) -> str:
    """The one thing this student should fix first, in English (the report's language): the charge that costs
    the most (a misconception by its title), or what stopped the run."""
    r = row.result
    if r is None or row.kind in ("grader error", "missing", "unreadable"):
        return row.problem
    if row.kind == "refused" and r.run is not None:
        return "what the sandbox refused it: " + refused_detail(r.run)
    if r.run is not None and r.status == "timeout":
        return "the time limit: stopped " + stopped_at(r.run, kind=row.suffix, starts=starts, spec=spec)
    syntax = syntax_errors(r.run, kind=row.suffix, starts=starts) if r.run is not None else []
    if syntax:
        return "syntax error in " + syntax[0]
    first = next(iter(cards(r, spec, "en")), None)
    if first is None:
        return ""
    if first.misconception:
        return first.title
    # Not a misconception: the test that fails (its message, with the student's code in it, is on their page).
    more = f" (+{len(first.tests) - 1} more)" if len(first.tests) > 1 else ""
    return f"“{first.tests[0]['name']}” fails{more}"


def _status(row: Row) -> str:
    """'graded: ok', 'blank: ok', 'timeout' (not 'timeout: timeout'), 'missing: no result'."""
    status = row.result.status if row.result is not None else "no result"
    return row.kind if status == row.kind else f"{row.kind}: {status}"


def _students(view: ClassView, spec: AssignmentSpec | None, starts: Callable[[Row], Mapping[int, CellPlace]]) -> dict:
    areas: list[str] = []
    for row in view.rows:
        if row.result is not None:
            areas += [a for a in row.result.areas if a not in areas]
    rows = []
    for row in view.rows:
        r = row.result
        scored = r is not None and row.kind != "grader error"
        rows.append(
            {
                "row": row,
                "scored": scored,
                "edition": (r.language or "en") if r is not None else "",
                "score": r.score if scored else 0.0,
                "max_score": r.max_score if scored else 0.0,
                "areas": [r.areas.get(a, (0.0, 0.0))[0] for a in areas] if scored else [],
                "status": _status(row),
                "ok": row.kind == "graded" and r is not None and r.status == "ok",
                "fix_first": _fix_first(row, spec, starts(row)),
                "late": _late(row),
            }
        )
    return {"areas": areas, "rows": rows, "late": any(row.late is not None and row.late.due for row in view.rows)}


def _late(row: Row) -> str:
    """'2 h 5 min (−5)', 'on time', 'unknown' or '': the Students table's lateness column."""
    late = row.late
    if late is None or not late.due:
        return ""
    if late.problem or not late.submitted:
        return "unknown"
    if late.seconds <= 0:
        return "on time"
    return duration(late.seconds) + (f" (−{late.penalty:g})" if late.penalty else "")


def _starts_cache(starts: Callable[[Row], Mapping[int, CellPlace]] | None) -> Callable[[Row], Mapping[int, CellPlace]]:
    found: dict[str, Mapping[int, CellPlace]] = {}

    def get(row: Row) -> Mapping[int, CellPlace]:
        if row.uid not in found:
            found[row.uid] = starts(row) if starts else cell_starts(row.submission)
        return found[row.uid]

    return get


def write_pages(
    view: ClassView, out: Path, *, starts: Callable[[Row], Mapping[int, CellPlace]] | None = None
) -> tuple[list[Path], dict[str, str]]:
    """Every student's feedback page; (pages written, uid -> why a page was not written)."""
    written, failed = [], {}
    assignment = view.manifest.assignment
    first_lines = _starts_cache(starts)
    spec = _spec(assignment)
    words = _names(spec)
    for row in view.rows:
        path = Path(out) / row.feedback_href
        if row.uid in ("", ".", "..") or "/" in row.uid or "\0" in row.uid:  # a tampered manifest: stay inside
            failed[row.uid] = "the manifest gives this student an id that is not a file name: page not written"
            continue
        try:
            graded = row.result is not None and row.kind != "grader error"
            page_path = write_feedback(
                row.result if graded else None,
                path,
                student=row.name,
                assignment=assignment,
                kind=row.suffix,
                starts=first_lines(row) if graded else {},
                graded_at=row.graded_at.replace("T", " ").replace("Z", " UTC"),
                names=words(row.result.language) if graded else None,
                spec=spec,
                late=row.late,
            )
            written.append(page_path)
        except Exception as exc:  # one page must never cost the others theirs
            failed[row.uid] = f"{type(exc).__name__}: {exc}"
    return written, failed


def report_html(
    view: ClassView,
    *,
    failed: dict[str, str] | None = None,
    starts: Callable[[Row], Mapping[int, CellPlace]] | None = None,
) -> str:
    """The report's HTML for a class (see `write_report`)."""
    first_lines = _starts_cache(starts)
    spec = _spec(view.manifest.assignment)
    median, slow = slowest(view)
    return render(
        "report.html.j2",
        lang="en",
        wide=True,  # the Students table has a column per area: a wide screen shows it whole
        title=f"{view.manifest.assignment}: grading report",
        meta=_meta(view),
        attention=attention(view, first_lines, spec=spec),
        summary=_summary(view),
        charts=charts(view),
        judged=len(view.judged),
        area_rates=area_rates(view),
        misconceptions=misconceptions(view, spec),
        test_rates=test_rates(view),
        median_seconds=median,
        slowest=slow,
        students=_students(view, spec, first_lines),
        failed=failed or {},
        similarity=section(view.similarity),  # "Similar hand-ins" (None: no similarity pass in this folder)
    )


def write_report(out: str | Path) -> Path:
    """Write ``<out>/report.html`` and every student's feedback page; returns the report's path."""
    out = Path(out)
    view = load_class(out)
    first_lines = _starts_cache(None)  # one reading of a notebook for its page and the report
    _, failed = write_pages(view, out, starts=first_lines)
    return write_text(out / "report.html", report_html(view, failed=failed, starts=first_lines))


def _spec(assignment: str) -> AssignmentSpec | None:
    """The assignment's grader (None: a grader not installed here: the pages then name things in English)."""
    from autograder.graders import ASSIGNMENTS, get_assignment

    return get_assignment(assignment) if assignment in ASSIGNMENTS else None


def _names(spec: AssignmentSpec | None) -> Callable[[str], Callable[[str], str] | None]:
    """language -> the grader's catalog naming its areas (None: English, or a grader not installed)."""
    from autograder.grading.editions import names

    found: dict[str, Callable[[str], str] | None] = {}

    def get(language: str) -> Callable[[str], str] | None:
        if spec is None:
            return None
        if language not in found:
            found[language] = names(spec, language)
        return found[language]

    return get


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
