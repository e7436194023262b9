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
from autograder.grading.rendering import in_scheme_order
from autograder.grading.result import Result
from autograder.grading.titles import names
from autograder.outputs.atomic import write_text
from autograder.outputs.attention import attention
from autograder.outputs.charges import cards
from autograder.outputs.charts import charts
from autograder.outputs.classview import ClassView, Row, load_class
from autograder.outputs.feedback import write_feedback
from autograder.outputs.html import number, render
from autograder.outputs.messages_report import report_words
from autograder.outputs.misconceptions import misconceptions
from autograder.outputs.passrates import area_rates, limit_of, slowest, test_rates
from autograder.outputs.similarity.pages import section
from autograder.outputs.wording import (
    budget_stops,
    cell_starts,
    duration,
    refused_detail,
    run_state,
    stopped_checks,
    syntax_errors,
    unwritten_parts,
)
from coursecheck.notebook import CellPlace

__all__ = ["write_report", "write_pages", "main", "report_html"]


def _meta(view: ClassView, w: dict[str, str]) -> dict[str, object]:
    """The report's head line as the template joins it: the line itself, then the counts of the kinds beside the
    graded ones between the words around them (report.meta_others), each count kept with its label on one line
    by the template (round 19: "空白提交" ended a line, "1 份" began the next)."""
    m = view.manifest
    counts = view.counts()
    when = (m.finished or m.started or "").replace("T", " ").replace("Z", " UTC")
    kinds = ("timeout", "blank", "refused", "unreadable", "grader error", "missing")
    others = [w["count_of"].format(n=counts[k], kind=w[f"kind.{k}"]) for k in kinds if counts[k]]
    meta = w["meta"].format(when=when, seed=m.seed, kit=m.kit_version, n=len(view.rows), graded=counts["graded"])
    before, _, after = w["meta_others"].partition("{others}")
    return {"line": meta, "counts": others, "before": before, "after": after}


def _summary(view: ClassView, w: dict[str, str]) -> list[tuple[str, object]]:
    scores = [r.result.score for r in view.judged]
    counts = view.counts()
    statuses = [r.result.status for r in view.rows if r.result is not None]
    rows = [
        (w["sum.submissions"], len(view.rows)),
        # every kind the statistics note leaves out has its row, refused ones too (round 20: the note named them)
        *((w[f"sum.{k}"], counts[k]) for k in ("graded", "blank", "unreadable", "refused")),
    ]
    if scores:
        top = max(r.result.max_score for r in view.judged)
        rows += [
            # a mean or a median with one decimal, as the areas' mean rates (90.8, never 74.67 in another class)
            (w["sum.mean"], f"{statistics.fmean(scores):.1f} / {number(top)}"),
            (w["sum.median"], f"{statistics.median(scores):.1f} / {number(top)}"),
            (w["sum.full"], sum(1 for r in view.judged if r.result.score >= r.result.max_score > 0)),
        ]
    late = [r.late for r in view.rows if r.late is not None]
    if any(one.due for one in late):
        dues = sorted({one.due for one in late if one.due})
        rows += [
            (w["sum.due"], dues[0] if len(dues) == 1 else w["sum.dues"].format(first=dues[0], last=dues[-1])),
            (w["sum.late"], sum(1 for one in late if one.seconds > 0)),
            (w["sum.policy"], _policy(view.manifest, w)),
        ]
    rows += [
        (w["sum.timeouts"], statuses.count("timeout")),
        (w["sum.memory"], statuses.count("memory")),
        (w["sum.ended"], statuses.count("crashed") + statuses.count("exited")),
        (w["sum.grader_errors"], counts["grader error"]),
        (w["sum.missing"], counts["missing"]),
    ]
    return rows


def _policy(manifest, w: dict[str, str]) -> str:
    """The late policy the run applied, worded from its rule's values in the report's language; a manifest an
    older kit wrote kept only English words (``late_policy``): those, as they were."""
    rule = manifest.late_rule or {}
    template = w.get(f"policy.{rule.get('rule')}")
    points = rule.get("points", 0)
    if template is None or type(points) not in (int, float):
        return manifest.late_policy or w["sum.no_policy"]
    return template.format(points=number(points), plugin=rule.get("plugin", ""), settings=rule.get("settings", ""))


NOTHING_FIRST = "—"  # the fix-first cell of a student with nothing to fix (a mark, the same in every language)


def _fix_first(row: Row, starts: Mapping[int, CellPlace], language: str = "en") -> str:
    """The one thing this student should fix first, in the report's language: the charge that costs the most (a
    misconception by its title), or what stopped the run (the result as rendered in that language)."""
    r, w = row.result, report_words(language)
    if r is None or row.kind in ("grader error", "missing", "unreadable"):
        return row.problem_in(language)
    if row.kind == "refused" and r.run is not None:
        return w["fix.refused"].format(detail=refused_detail(r.run, language))
    if row.kind == "blank":
        return w["fix.blank"]
    shown = r.shown_in(language)
    if shown.stopped:
        return w["fix.timeout"].format(where=shown.stopped)
    run = r.run
    # where, by the cell's number only (its section and first line are on the student's page): a short column
    syntax = syntax_errors(run, kind=row.suffix, starts={}, language=language, detail=False) if run else []
    if syntax:
        return w["fix.syntax"].format(where=syntax[0])
    first = next(iter(cards(shown)), None)
    unwritten = unwritten_parts(r)
    if unwritten and (first is None or not first.misconception):  # a part never written, not a test's title
        return w["fix.unwritten"].format(what=w["list"].join(unwritten))
    if first is None:  # nothing to fix: a dash, not a blank cell that reads as a value left out
        return NOTHING_FIRST
    if first.misconception:
        return first.title
    if first.tests[0]["test"] in {t.name for t in stopped_checks(r)}:  # what was stopped, not a test it cost
        return w["fix.stopped"].format(what=budget_stops(r, kind=row.suffix, starts={}, language=language)[-1])
    # Not a misconception: the test that fails (its message, with the student's code in it, is on their page).
    more = w["fix.more"].format(n=len(first.tests) - 1) if len(first.tests) > 1 else ""
    return w["fix.fails"].format(test=first.tests[0]["name"], more=more)


def _status(row: Row, w: dict[str, str] | None = None) -> str:
    """'ok' (a graded row: its score is beside it), 'blank: syntax error', 'timeout' (not 'timeout: timeout'),
    'missing' (not 'missing: no result') (in `w`'s words; how the run went is ``wording.run_state``). The Students
    table's column only: grades.csv and --json keep their own status values."""
    w = w or report_words("en")
    status = run_state(row.result) if row.result is not None else "no result"
    kind, said = w.get(f"kind.{row.kind}", row.kind), w.get(f"kind.{status}", status)
    if status == row.kind or row.kind == "missing":  # "missing: no result" says one thing twice (尚无结果，没有结果)
        return kind
    if row.kind == "graded" and row.result is not None:  # its score stands beside it: "graded" says nothing more
        return said
    return f"{kind}{w['kind_sep']}{said}"


def _students(
    view: ClassView, spec: AssignmentSpec | None, starts: Callable[[Row], Mapping[int, CellPlace]], language: str = "en"
) -> dict:
    areas: list[str] = []
    w = report_words(language)
    for row in view.rows:
        if row.result is not None:
            areas += [a for a in row.result.areas if a not in areas]
    areas = in_scheme_order(areas, spec)  # the notebook's order
    rows = []
    for row in view.rows:
        r = row.result
        scored = r is not None and row.kind != "grader error"
        rows.append(
            {
                "row": row,
                "scored": scored,
                "edition": _edition(r, w),
                "score": r.score if scored else 0.0,
                "max_score": r.max_score if scored else 0.0,
                "areas": [r.areas.get(a, (0.0, 0.0))[0] for a in areas] if scored else [],
                "status": _status(row, w),
                "ok": row.kind == "graded" and r is not None and r.status == "ok",
                "fix_first": _fix_first(row, starts(row), language),
                "late": _late(row, language),
            }
        )
    name = (names(spec, language) if spec is not None else None) or str
    shown = [name(a) for a in areas]
    return {"areas": shown, "rows": rows, "late": any(row.late is not None and row.late.due for row in view.rows)}


def _edition(result: Result | None, w: dict[str, str]) -> str:
    """The edition a student handed in, in `w`'s words: "" without a result, "not said" when the file does not say."""
    if result is None:
        return ""
    if not result.language_declared:
        return w["edition.unknown"]
    return w.get(f"edition.{result.language or 'en'}", result.language)


def _late(row: Row, language: str = "en") -> str:
    """'2 h 5 min (−5)', 'on time', 'unknown' or '': the Students table's lateness column."""
    late, w = row.late, report_words(language)
    if late is None or not late.due:
        return ""
    if late.problem or not late.submitted:
        return w["late.unknown"]
    if late.seconds <= 0:
        return w["late.on_time"]
    return duration(late.seconds, language) + (
        w["late.penalty"].format(points=f"{late.penalty:g}") if late.penalty else ""
    )


def _starts_cache(starts: Callable[[Row], Mapping[int, CellPlace]] | None) -> Callable[[Row], Mapping[int, CellPlace]]:
    found: dict[str, Mapping[int, CellPlace]] = {}

    def get(row: Row) -> Mapping[int, CellPlace]:
        if row.uid not in found:
            found[row.uid] = starts(row) if starts else cell_starts(row.submission)
        return found[row.uid]

    return get


def write_pages(view: ClassView, out: Path, language: str = "en") -> tuple[list[Path], dict[str, str]]:
    """Every student's feedback page (each its result as rendered in the student's language, or in the run's,
    `language`, when the hand-in does not say its own: ``Result.read_in``); (pages written, uid -> why a page
    was not written)."""
    written, failed = [], {}
    assignment = view.manifest.assignment
    spec = _spec(assignment)
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
                assignment=row.edition or assignment,  # the edition the student handed in: weight_tying_zh
                kind=row.suffix,
                graded_at=row.graded_at.replace("T", " ").replace("Z", " UTC"),
                spec=spec,
                late=row.late,
                language=row.result.read_in(language) if graded else language,
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
    language: str = "en",
) -> str:
    """The report's HTML for a class (see `write_report`), in `language` (the instructor's: English by default)."""
    first_lines = _starts_cache(starts)
    spec = _spec(view.manifest.assignment)
    median, slow = slowest(view)
    w = report_words(language)
    name = (names(spec, language) if spec is not None else None) or str  # areas and tests in `language`
    return render(
        "report.html.j2",
        lang=language,
        w=w,
        kind=lambda kind: w.get(f"kind.{kind}", kind),
        todo=lambda problem: (
            w.get(f"todo.{problem.kind}", problem.what_to_do) if language != "en" else problem.what_to_do
        ),
        status_of=lambda result: w.get(f"kind.{run_state(result)}", run_state(result)),
        problem_of=lambda row: row.problem_in(language),  # a name's tooltip in *Needs a look*
        edition_of=lambda edition: w.get(f"edition.{edition}", edition),
        wide=True,  # the Students table has a column per area: a wide screen shows it whole
        title=w["title"].format(assignment=spec.shown_title if spec is not None else view.manifest.assignment),
        meta=_meta(view, w),
        attention=attention(view, first_lines, language=language),
        summary=_summary(view, w),
        charts=charts(view, language, name, spec),
        judged=len(view.judged),
        area_rates=[{**a, "area": name(a["area"])} for a in area_rates(view, spec)],
        misconceptions=misconceptions(view, language),
        test_rates=[{**t, "test": name(t["test"]), "area": name(t["area"])} for t in test_rates(view)],
        timing=_timing(median, view, w, slow=bool(slow)),
        slowest=slow,
        students=_students(view, spec, first_lines, language),
        failed=failed or {},
        similarity=section(view.similarity, language),  # "Similar hand-ins" (None: no similarity pass in this folder)
    )


def _timing(median: float | None, view: ClassView, w: dict[str, str], slow: bool) -> str:
    """What the grading times say, from the median and the wall-time limits the runs were measured against (each
    distinct one). Where a limit is known and no run came near it (`slow` False: ``passrates.slowest``), one line:
    every submission finished within the longest time, and the limit; else the median and the limit, and with no
    limit known and none at twice the median, that said too."""
    if median is None:
        return ""
    seconds = f"{median:.1f}"
    timed = [r.result for r in view.rows if r.result is not None and r.result.execution_time > 0]
    limits = sorted({limit_of(result) for result in timed} - {0.0})
    if not limits:
        said = w["median"].format(seconds=seconds)
        return said if slow else w["two_sentences"].format(first=said, second=w["none_slow"])
    limit = w["list"].join(w["seconds"].format(seconds=f"{value:g}") for value in limits)
    if not slow:
        longest = w["seconds"].format(seconds=f"{max(result.execution_time for result in timed):.1f}")
        return w["all_within"].format(longest=longest, limit=limit)
    return w["median_limit"].format(seconds=seconds, limit=limit)


def write_report(out: str | Path, language: str = "en") -> Path:
    """Write ``<out>/report.html`` (in `language`, the instructor's) and every student's feedback page (each in
    its student's language, or in `language` when the hand-in does not say which); returns the report's path."""
    out = Path(out)
    view = load_class(out)
    _, failed = write_pages(view, out, language)
    return write_text(out / "report.html", report_html(view, failed=failed, language=language))


def _spec(assignment: str) -> AssignmentSpec | None:
    """The assignment's grader (None: a grader not installed here: the pages then name things in English)."""
    from autograder.graders import ASSIGNMENTS, get_assignment

    return get_assignment(assignment) if assignment in ASSIGNMENTS else None


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
