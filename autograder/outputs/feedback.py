"""Trusted: one student's feedback page: what to fix first, then how the run went, the areas, what passed.

What to fix is the mark's breakdown (``outputs.charges``): one card per charge, most points first, each with
the points it costs and the tests it covers, so the costs on the page sum to the points lost. A
misconception's card names it once for its exercise, however many tests it failed; tests that cost their own
points for the same reason share one card (a stub that raises ``NotImplementedError`` reads as one sentence,
not twenty-seven). The page states the rule the marks follow. Nothing of the grader's own machinery (test
files, sandbox notes, captured stderr) is shown. The page is ``templates/feedback.html.j2``, its headings in
the student's language (``wording.page_words``); everything a student wrote is escaped by the template.
"""

from __future__ import annotations

import re
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import render as render_catalog
from autograder.grading.result import Result
from autograder.outputs.atomic import write_text
from autograder.outputs.charges import Card, cards
from autograder.outputs.html import number, render
from autograder.outputs.lateness import Late
from autograder.outputs.wording import (
    after_penalty,
    all_passed,
    cards_words,
    cell_stopped,
    late_line,
    mistake_charged,
    page_words,
    run_state,
)

__all__ = ["write_feedback", "feedback_html", "feedback_context"]

_NUMBERED = re.compile(r"\b(?:cell|part) \d|第 \d+ (?:个单元格|部分)")  # a cell or part named by its number
_SHOWN = 6  # tests listed in a card before the rest fold away


def _item(item: dict, points: str, w: dict[str, str]) -> dict:
    return {
        "name": item["name"],
        "area": item["area"],
        "points": points,
        "detail": w["item_detail"].format(area=item["area"], points=points),
        # a call the test fed the code is "the call checked", not "checking" (ShownTest.fed, as the catalog says)
        "checking": w["input_used" if item["fed"] else "checking"].format(what=item["what"]) if item["what"] else "",
        "part": w["part_charged"].format(part=item["part"]) if item["part"] else "",
        "cap": w["part_charged"].format(part=item["cap"]) if item["cap"] else "",  # under its area's last test
    }


def _card(card: Card, said: tuple[str, list[str]], w: dict[str, str], stopped: str) -> dict:
    """One card as the page shows it: `said`, its cost line and its tests' costs (``cards_words``), in words `w`."""
    costs, test_costs = said
    items = [_item(item, points, w) for item, points in zip(card.tests, test_costs, strict=True)]
    if len(items) > 1 and len({item["what"] for item in card.tests}) == 1:  # the same subject under every test
        for item in items:  # says nothing the card's message does not: "——检查对象：X.generate" five times
            item["checking"] = ""
    # the card's message is its lead test's: it names that subject, for the lead and any test checking the same
    said = {test["what"] for test in card.tests if test["test"] == card.lead} if not card.same_as else set()
    before = None
    for item, test in zip(items, card.tests, strict=True):
        if test["what"] in said:
            item["checking"] = ""
        elif item["checking"] and test["what"] == before:  # the bullet above checks the same: said once
            item["checking"] = w["input_same" if test["fed"] else "checking_same"]
        before = test["what"]
    shown, folded = _fold(items)
    # what the time limit cost: evidence owed by a run stopped at it is said where the run stopped
    reason = w["timeout_card"].format(where=stopped) if stopped and card.kind == "owed" else card.message
    return {
        "title": card.title if card.misconception else "",
        # a message shown in full above is not repeated: the card says whose it is
        "reason": w["same_message"].format(title=card.same_as) if card.same_as else reason,
        "points": number(card.points),  # data-points: what the card costs, for a machine to add up
        "costs": costs,
        "shown": shown,
        "folded": folded,
        "more": w["more_tests"].format(n=len(folded)),
        "note": "",  # how cells are counted, when this charge is the page's first to name one
    }


def _fold(items: list[dict]) -> tuple[list[dict], list[dict]]:
    """(shown, folded): a card's first tests, the rest folded away when there are more than `_SHOWN`, never a test
    a cap note is under or one above it (the note counts its area's tests, listed just above it), nor a single one."""
    last_cap = max((n for n, item in enumerate(items) if item["cap"]), default=-1)
    keep = max(_SHOWN - 1, last_cap + 1)  # the fold's own line takes one
    return (items, []) if len(items) <= _SHOWN or len(items) - keep < 2 else (items[:keep], items[keep:])


# how a run ended (wording.run_state) -> its words in the pages' catalog
_STATUS = {
    "ok": "page.status.ok",
    "blank": "page.status.blank",
    "unreadable": "page.status.unreadable",
    "syntax error": "page.status.syntax error",
    "cells raised": "page.status.cells raised",
    "file raised": "page.status.file raised",  # a .py file: no cells, the code after the raising line did not run
    "time budget": "page.status.time budget",
    "time budget cell": "page.status.time budget cell",  # a cell stopped, not only a check (wording.cell_stopped)
    "timeout": "page.status.timeout",
    "memory": "page.status.memory",
    "exited": "page.status.exited",
    "crashed": "page.status.crashed",
    "judge limit": "page.status.judge limit",
    "grader error": "page.status.grader error",
}


def _status_key(result: Result, state: str) -> str:
    """`state` (``wording.run_state``) as the page's status says it: a run stopped at a time budget says whether a
    cell was stopped or only a check ("time budget cell" / "time budget"); every other state is said as it is (a
    stopped cell in a run that then timed out, or beside a syntax error, is that state's)."""
    return "time budget cell" if state == "time budget" and cell_stopped(result) else state


def _status_words(status: str, w: dict[str, str]) -> str:
    key = _STATUS.get(status)
    return w[key.removeprefix("page.")] if key else status


def _note(kind: str, language: str, lines: list[str]) -> str:
    """How cells are counted, once: "" when the run's summary already says it (a .py file is named by its lines,
    and its parts, when it has several, by the run's summary)."""
    note = render_catalog("run.cells_counted", language)
    return "" if kind == "py" or note in lines else note


def _count(n: int, w: dict[str, str]) -> str:
    return w["test"] if n == 1 else w["tests"].format(n=n)


def feedback_context(
    result: Result | None,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    graded_at: str = "",
    language: str | None = None,
    spec: AssignmentSpec | None = None,
    late: Late | None = None,
) -> dict:
    """What the page shows, as plain values for ``feedback.html.j2`` (None: a page saying "not graded yet"):
    the result as rendered when it was graded, in the page's language (``Result.shown_in``).

    `spec`: the grader (its title); `late`: when it was handed in against the due date (``lateness.Late``),
    said under the score."""
    lang = language or (result.language if result is not None else "en")
    w = page_words(lang)
    shown = spec.shown_title if spec is not None and assignment else assignment  # "Weight Tying", not a folder
    title = (
        w["assignment_feedback_for"].format(assignment=shown, student=student)
        if shown
        else w["feedback_for"].format(student=student)
    )
    context: dict = {"lang": lang, "w": w, "title": title, "graded": result is not None, "meta": "", "blank": []}
    if result is None:
        return context
    said = result.shown_in(lang)
    state = run_state(result)
    meta = [
        w["graded"].format(when=graded_at) if graded_at else "",
        w["status"].format(status=_status_words(_status_key(result, state), w)),
    ]
    context.update(
        meta=" · ".join(m for m in meta if m),
        score=after_penalty(late, result.score),  # the headline is the final mark, the penalty beside it
        max_score=result.max_score,
        penalty=w["penalty_beside"].format(points=number(late.penalty), before=number(result.score))
        if late is not None and late.penalty > 0
        else "",
        late_line=late_line(late, result.score, result.max_score, lang),
    )
    if state == "blank":  # nothing written yet: that one fact and what to do, not a card for each test it fails
        context.update(blank=[*said.run_lines, w["blank_todo"]])
        return context
    if state == "unreadable":  # nothing of it ran: why the file was not read and the fix (its one run line) alone
        context.update(blank=list(said.run_lines))
        return context
    failing = result.failing()
    charged = cards(said)
    # every card's costs, and the points lost in all, in one pass over the pages' words
    cw, costs = cards_words(charged, lang, result.max_score - result.score)
    shown_cards = [_card(card, cost, cw, said.stopped) for card, cost in zip(charged, costs, strict=True)]
    # a run that went well is said by the status above ("运行状态：运行完毕，没有出错"): its one line is not said
    # again below
    lines = [] if state == "ok" and len(said.run_lines) == 1 else list(said.run_lines)
    # How cells are counted, said once: under the run's lines when they name a cell, else under the first charge
    # that does (a page whose run went well names no cell there).
    if not _NUMBERED.search("\n".join(lines)):
        numbered = next((c for c in shown_cards if _NUMBERED.search(c["reason"])), None)
        if numbered is not None:
            numbered["note"] = _note(kind, lang, [])
    order = {a.area: n for n, a in enumerate(said.areas)}  # the areas' order, as the area table lists them
    passed = sorted(said.passed, key=lambda t: order.get(t.area, len(order)))  # stable: the suite's within one
    context.update(
        # the starter code's paragraph only when the judge said every failure is the starter code's own exception
        starter=result.score == 0 and bool(failing) and all(t.finding.starter for t in failing),
        area_line=" · ".join(f"{a.name} {number(a.got)}/{number(a.top)}" for a in said.areas),
        what_to_fix=w["what_to_fix_all" if 1 < len(failing) == len(result.tests) else "what_to_fix"].format(
            failed=len(failing), total=_count(len(result.tests), w)
        ),
        # the rule says how a common mistake is charged: noise where none is (a syntax error, a crash of its own)
        rule=w["rule"] if mistake_charged(failing) else "",
        all_passed=all_passed(result, w, _count(len(result.tests), w)) if result.tests and not failing else "",
        lost=cw["lost_said"] if failing else "",
        cards=shown_cards,
        # the run's first line is its lead (how it ended, or what the lines under it list): a sentence, the rest
        # (the cells that raised, where it stopped) a list under it
        run_lead=lines[0] if lines else "",
        run_lines=lines[1:],
        note=_note(kind, lang, lines) if _NUMBERED.search("\n".join(lines)) else "",
        areas=[
            {"name": a.name, "got": a.got, "top": a.top, "share": a.got / a.top if a.top else 0.0} for a in said.areas
        ],
        passed_heading=w["passed"].format(n=_count(len(passed), w)),
        passed=[{"name": t.title, "area": t.area_name, "points": t.points} for t in passed],
        no_tests=not result.tests,
    )
    return context


def feedback_html(
    result: Result | None,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    graded_at: str = "",
    language: str | None = None,
    spec: AssignmentSpec | None = None,
    late: Late | None = None,
) -> str:
    """The page's HTML (see `write_feedback`); `result` None is the page of a submission not graded yet."""
    if result is not None and not isinstance(result, Result):
        raise TypeError(f"result must be an autograder.grading.result.Result, got {type(result).__name__}")
    context = feedback_context(
        result,
        student=student,
        assignment=assignment,
        kind=kind,
        graded_at=graded_at,
        language=language,
        spec=spec,
        late=late,
    )
    return render("feedback.html.j2", **context)


def write_feedback(
    result: Result | None,
    path: Path,
    *,
    student: str = "",
    assignment: str = "",
    kind: str = "ipynb",
    graded_at: str = "",
    language: str | None = None,
    spec: AssignmentSpec | None = None,
    late: Late | None = None,
) -> Path:
    """Write the page to `path` atomically (folders created); returns it."""
    path = Path(path)
    html = feedback_html(
        result,
        student=student or path.stem,
        assignment=assignment,
        kind=kind,
        graded_at=graded_at,
        language=language,
        spec=spec,
        late=late,
    )
    return write_text(path, html)
