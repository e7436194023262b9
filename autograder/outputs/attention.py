"""Trusted: the report's *Needs a look* list: the students a TA must act on, each with what went wrong where.

One group per kind of problem, in the order a TA acts on them; every student of a group is listed with the
detail that tells them where to look (the cell that was running when the time ran out, the line of a syntax
error, why a file was refused, what the grader's own error was). A class of 300 stays a short table.

    timeout        the run hit the time limit: the cell (code cell, first line) or the check that was running
    time budget    a cell or a check ran past its own time budget and was stopped; the rest was graded
    syntax error   a cell Python could not compile: its line; nothing it defines exists afterwards
    cells raised   a cell raised while the notebook loaded (not blank, not a call to what the grader withholds):
                   each such cell and what it raised
    file raised    the same for a .py file (no cells): what it raised; the code after that line did not run
    unreadable     the file was refused: why
    evidence       a record the runner owed was missing, refused, sent twice or malformed while the run ended
                   well (a submission that wrote on the grader's channel, or a broken runner): its tests cost
                   their points; the judge's own error on a test is listed here too
    sandbox refused  what the run tried that the sandbox refused (``RunFacts.refused``): files outside its view,
                   a refused call, a flood of output; whatever it scored, with what it tried
    grader error   the grader failed, not the student: regrade
    missing        no result yet: run the command again
    run ended      out of memory, crashed, exited early
    not written    a judged hand-in that left a part (a class, a method) as the starter code: the part, by the
                   judge's finding on the tests that use it (``Finding.unwritten``); nothing to regrade
    blank          nothing written beyond the starter code
    flags          beside any of these: a look-alike name, other files in the student's folder (``FLAGS``)
    similar        a pair of hand-ins that share code (``outputs.similarity``): the side-by-side page
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.outputs.classview import FLAGS, ClassView, Row
from autograder.outputs.messages_report import OTHER, WHAT_TO_DO, report_words
from autograder.outputs.similarity.pages import SIMILAR, TO_DO, needs_a_look
from autograder.outputs.wording import (
    budget_stops,
    duration,
    raised_cells,
    raised_state,
    refused_detail,
    syntax_errors,
    unwritten_parts,
)

__all__ = ["attention", "Problem"]

_RUN_ENDED = {"memory": "out of memory", "crashed": "crashed", "exited": "exited early"}
_ORDER = [
    "timeout",
    "time budget",
    "syntax error",
    "cells raised",
    "file raised",
    "unreadable",
    "evidence",
    "sandbox refused",
    "grader error",
    "missing",
    *_RUN_ENDED.values(),
    "not written",
    "blank",
    *FLAGS,
    SIMILAR,
]


@dataclass
class Problem:
    kind: str
    what_to_do: str
    students: list[tuple[Row, str]] = field(default_factory=list)  # (row, the detail for this student)


def _problems(row: Row, starts, language: str = "en") -> list[tuple[str, str]]:
    """[(kind, detail), ...] for one student (a timeout with a syntax error is in both groups), the details in
    `language`."""
    out, words = [], report_words(language)
    more = words["detail.more"]
    sep = words["list"] if language != "en" else "; "
    result = row.result
    if row.kind in ("unreadable", "grader error", "missing"):
        out.append((row.kind, row.problem_in(language)))
        return out
    if result is None or result.run is None:
        return out
    places = starts(row)
    shown = result.shown_in(language)
    if shown.stopped:
        out.append(("timeout", shown.stopped))
    stops = budget_stops(result, kind=row.suffix, starts=places, language=language)
    if stops:
        out.append(("time budget", sep.join(stops[:4]) + (more.format(n=len(stops) - 4) if len(stops) > 4 else "")))
    for detail in syntax_errors(result.run, kind=row.suffix, starts=places, language=language):
        out.append(("syntax error", detail))
    raised = raised_cells(result.run, kind=row.suffix, starts=places, language=language) if row.kind != "blank" else []
    if raised:
        listed = sep.join(raised[:3]) + (more.format(n=len(raised) - 3) if len(raised) > 3 else "")
        out.append((raised_state(row.suffix), listed))  # a .py file has no cells: "file raised"
    if result.status in _RUN_ENDED:
        out.append((_RUN_ENDED[result.status], ""))
    if result.status == "ok":  # a run that ended well owes every record: a missing one is not the run's end
        owed = [t for t in result.failing() if t.finding is not None and t.finding.kind in ("owed", "internal")]
        if owed:
            names = words["list"].join(shown.test(t.name).title for t in owed[:4]) + (
                words["detail.more_tests"].format(n=len(owed) - 4) if len(owed) > 4 else ""
            )
            out.append(("evidence", names))
    if result.run.refused:
        out.append(("sandbox refused", refused_detail(result.run, language)))
    unwritten = unwritten_parts(result) if row.kind != "blank" else []
    if unwritten:
        out.append(("not written", words["list"].join(unwritten)))
    if row.kind == "blank" and not out:
        out.append(("blank", ""))
    return out


def _note(row: Row, language: str) -> str:
    return row.note


def _unreadable_time(row: Row, language: str) -> str:
    return row.late.problem


def _missing_time(row: Row, language: str) -> str:
    words = report_words(language)
    return words["detail.missing_time"].format(edition=row.edition or words["detail.its"], due=row.late.due)


def _stale_page(row: Row, language: str) -> str:
    page, words = row.stale_page, report_words(language)
    when = str(page.get("placed") or "").replace("T", " ").replace("Z", " UTC")
    edition = row.edition or words["detail.its"]
    return words["detail.stale_page"].format(when=when, showed=page.get("showed"), now=page.get("now"), edition=edition)


def _late(row: Row, language: str) -> str:
    late, words = row.late, report_words(language)
    taken = words["detail.penalty"].format(points=f"{late.penalty:g}") if late.penalty else ""
    return words["detail.late"].format(late=duration(late.seconds, language), due=late.due, taken=taken)


def _editions(row: Row, language: str) -> str:
    return row.edition_note


def _alike(row: Row, language: str) -> str:
    words = report_words(language)
    return words["detail.alike"].format(names=words["list"].join(row.confusable_with))


def attention(view: ClassView, starts, *, language: str = "en") -> list[Problem]:
    """The *Needs a look* groups, in acting order; `starts(row)` gives the row's cell first lines; `language`,
    the words of the details (where a run was stopped and the tests named as each result was rendered in it;
    the kinds and what to do are named where the report is made: ``messages_report``)."""
    groups: dict[str, Problem] = {}
    for row in view.rows:
        for kind, detail in _problems(row, starts, language):
            what = WHAT_TO_DO.get(kind, OTHER[0])
            groups.setdefault(kind, Problem(kind, what)).students.append((row, detail))
    for flag, rows in view.flagged().items():
        details = {
            "look-alike name": _alike,
            "other files in the folder": _note,
            "several editions": _editions,
            "submission time unreadable": _unreadable_time,
            "edition chosen without a time": _editions,
            "submission time missing": _missing_time,
            "feedback page stale": _stale_page,
            "late": _late,
        }
        for row in rows:
            groups.setdefault(flag, Problem(flag, FLAGS[flag])).students.append((row, details[flag](row, language)))
    for row, pair in needs_a_look(
        view.rows, view.similarity, language
    ):  # one line per pair, linking its side-by-side page
        groups.setdefault(SIMILAR, Problem(SIMILAR, TO_DO)).students.append((row, pair))
    return [groups[k] for k in _ORDER if k in groups]
