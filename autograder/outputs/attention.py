"""Trusted: the report's *Needs a look* list: the students a TA must act on, each with what went wrong where.

One group per kind of problem, in the order a TA acts on them; every student of a group is listed with the
detail that tells them where to look (the cell that was running when the time ran out, the line of a syntax
error, why a file was refused, what the grader's own error was). A class of 300 stays a short table.

    timeout        the run hit the time limit: the cell (code cell, first line) or the check that was running
    time budget    a cell or a check ran past its own time budget and was stopped; the rest was graded
    syntax error   a cell Python could not compile: its line; nothing it defines exists afterwards
    cells raised   a cell raised while the notebook loaded (not blank, not a call to what the grader withholds):
                   each such cell and what it raised
    unreadable     the file was refused: why
    evidence       a record the runner owed was missing, refused, sent twice or malformed while the run ended
                   well (a submission that wrote on the grader's channel, or a broken runner): its tests cost
                   their points; the judge's own error on a test is listed here too
    sandbox refused  what the run tried that the sandbox refused (``RunFacts.refused``): files outside its view,
                   a refused call, a flood of output; whatever it scored, with what it tried
    grader error   the grader failed, not the student: regrade
    missing        no result yet: run the command again
    run ended      out of memory, crashed, exited early
    blank          nothing written beyond the starter code
    flags          beside any of these: a look-alike name, other files in the student's folder (``FLAGS``)
    similar        a pair of hand-ins sharing code (``outputs.similarity``), linking its side-by-side page
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.graders.spec import AssignmentSpec
from autograder.outputs.classview import FLAGS, ClassView, Row
from autograder.outputs.similarity.pages import SIMILAR, TO_DO, needs_a_look
from autograder.outputs.wording import (
    budget_stops,
    duration,
    raised_cells,
    readable_test,
    refused_detail,
    stopped_at,
    syntax_errors,
)

__all__ = ["attention", "Problem"]

_WHAT_TO_DO = {
    "timeout": "open the cell named: an endless loop or a very slow call; tests that needed it scored 0",
    "time budget": "stopped at its own time budget (an endless loop?): what finished was graded, the tests that "
    "needed what was stopped scored 0",
    "syntax error": "the cell did not run at all, so what it defines is missing: the student fixes the line",
    "cells raised": "the rest of the notebook ran, but what the cell would have made is missing; its feedback "
    "page tells the student the cell and the error",
    "unreadable": "the file is not a readable submission: ask the student for a working copy",
    "evidence": "the grader did not receive what the runner owes for these tests (tampered with, or the judge's "
    "own failure): they cost their points; read the run's notes in results/<id>.json before releasing the mark",
    "sandbox refused": "the submission tried what the sandbox refuses (files outside its view, a refused call, a "
    "flood of output): it earned nothing by it, and its page tells the student so; read the run in "
    "results/<id>.json and talk to the student",
    "grader error": "the grader failed, not the student: regrade with --student NAME",
    "missing": "no result yet (the run was stopped): run the same command again",
    "blank": "nothing written beyond the starter code",
    **FLAGS,  # look-alike names, other files in a student's folder (classview)
}
_RUN_ENDED = {"memory": "out of memory", "crashed": "crashed", "exited": "exited early"}
_ORDER = [
    "timeout",
    "time budget",
    "syntax error",
    "cells raised",
    "unreadable",
    "evidence",
    "sandbox refused",
    "grader error",
    "missing",
    *_RUN_ENDED.values(),
    "blank",
    *FLAGS,
    SIMILAR,
]


@dataclass
class Problem:
    kind: str
    what_to_do: str
    students: list[tuple[Row, str]] = field(default_factory=list)  # (row, the detail for this student)


def _problems(row: Row, starts, spec: AssignmentSpec | None) -> list[tuple[str, str]]:
    """[(kind, detail), ...] for one student (a timeout with a syntax error is in both groups)."""
    out = []
    result = row.result
    if row.kind in ("unreadable", "grader error", "missing"):
        out.append((row.kind, row.problem))
        return out
    if result is None or result.run is None:
        return out
    places = starts(row)
    if result.status == "timeout":
        out.append(("timeout", stopped_at(result.run, kind=row.suffix, starts=places, spec=spec)))
    stops = budget_stops(result, kind=row.suffix, starts=places)
    if stops:
        out.append(("time budget", "; ".join(stops[:4]) + (f" (+{len(stops) - 4} more)" if len(stops) > 4 else "")))
    for detail in syntax_errors(result.run, kind=row.suffix, starts=places):
        out.append(("syntax error", detail))
    raised = raised_cells(result.run, kind=row.suffix, starts=places) if row.kind != "blank" else []
    if raised:
        out.append(("cells raised", "; ".join(raised[:3]) + (f" (+{len(raised) - 3} more)" if len(raised) > 3 else "")))
    if result.status in _RUN_ENDED:
        out.append((_RUN_ENDED[result.status], ""))
    if result.status == "ok":  # a run that ended well owes every record: a missing one is not the run's end
        owed = [t for t in result.failing() if t.finding is not None and t.finding.kind in ("owed", "internal")]
        if owed:
            names = ", ".join(readable_test(t.name) for t in owed[:4]) + (
                f" (+{len(owed) - 4} more)" if len(owed) > 4 else ""
            )
            out.append(("evidence", names))
    if result.run.refused:
        out.append(("sandbox refused", refused_detail(result.run)))
    if row.kind == "blank" and not out:
        out.append(("blank", ""))
    return out


def _note(row: Row) -> str:
    return row.note


def _unreadable_time(row: Row) -> str:
    return row.late.problem


def _missing_time(row: Row) -> str:
    return f"no timestamp.txt in {row.edition or 'its'} folder; due {row.late.due}"


def _stale_page(row: Row) -> str:
    page = row.stale_page
    when = str(page.get("placed") or "").replace("T", " ").replace("Z", " UTC")
    return f"placed {when} showing {page.get('showed')}, now {page.get('now')} ({row.edition or 'its'} folder)"


def _late(row: Row) -> str:
    late = row.late
    taken = f", late penalty {late.penalty:g} points" if late.penalty else ""
    return f"{duration(late.seconds)} after the due date ({late.due}){taken}"


def _editions(row: Row) -> str:
    return row.edition_note


def _alike(row: Row) -> str:
    return "drawn like " + ", ".join(row.confusable_with)


def attention(view: ClassView, starts, *, spec: AssignmentSpec | None = None) -> list[Problem]:
    """The *Needs a look* groups, in acting order; `starts(row)` gives the row's cell first lines; `spec`, the
    grader, names the check a run was stopped in."""
    groups: dict[str, Problem] = {}
    for row in view.rows:
        for kind, detail in _problems(row, starts, spec):
            what = _WHAT_TO_DO.get(kind, "look at its feedback page: the run explains the lost points")
            groups.setdefault(kind, Problem(kind, what)).students.append((row, detail))
    for flag, rows in view.flagged().items():
        details = {
            "look-alike name": _alike,
            "other files in the folder": _note,
            "several editions": _editions,
            "edition chosen without a time": _editions,
            "submission time unreadable": _unreadable_time,
            "submission time missing": _missing_time,
            "feedback page stale": _stale_page,
            "late": _late,
        }
        for row in rows:
            groups.setdefault(flag, Problem(flag, FLAGS[flag])).students.append((row, details[flag](row)))
    for row, pair in needs_a_look(view.rows, view.similarity):  # one line per pair, linking its side-by-side page
        groups.setdefault(SIMILAR, Problem(SIMILAR, TO_DO)).students.append((row, pair))
    return [groups[k] for k in _ORDER if k in groups]
