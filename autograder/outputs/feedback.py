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
from collections.abc import Callable, Mapping
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import render as render_catalog
from autograder.grading.editions import test_title
from autograder.grading.result import Result
from autograder.outputs.atomic import write_text
from autograder.outputs.charges import Card, cards
from autograder.outputs.html import number, render
from autograder.outputs.lateness import Late
from autograder.outputs.wording import (
    after_penalty,
    areas_in_order,
    clean_message,
    late_line,
    page_words,
    run_lines,
    run_state,
    stopped_at,
)
from coursecheck.notebook import CellPlace

__all__ = ["write_feedback", "feedback_html", "feedback_context"]

_NUMBERED = re.compile(r"\b(?:cell|part) \d|第 \d+ (?:个单元格|部分)")  # a cell or part named by its number
_SHOWN = 6  # tests listed in a card before the rest fold away


def _points(value: float, w: dict[str, str]) -> str:
    return f"{number(value)} {w['point'] if value == 1 else w['points']}"


def _item(item: dict, w: dict[str, str], area: Callable[[str], str]) -> dict:
    lost = w["lost_of"].format(lost=number(item["lost"]), points=number(item["points"]))
    points = lost if item["lost"] else w["not_charged_again"].format(points=number(item["points"]))
    return {
        "name": item["name"],
        "area": area(item["area"]),
        "points": points,
        "detail": w["item_detail"].format(area=area(item["area"]), points=points),
        "checking": w["checking"].format(what=item["what"]) if item["what"] else "",
        "part": w["part_charged"].format(part=item["part"]) if item["part"] else "",
    }


def _card(card: Card, w: dict[str, str], area: Callable[[str], str]) -> dict:
    items = [_item(item, w, area) for item in card.tests]
    shown, folded = (items, []) if len(items) <= _SHOWN else (items[: _SHOWN - 1], items[_SHOWN - 1 :])
    over = w["over_tests"].format(n=len(items)) if len(items) > 1 else ""
    once = w["once_in_exercise"].format(n=card.exercise) if card.misconception and card.exercise else ""
    return {
        "title": card.title if card.misconception else "",
        "reason": card.message,
        "points": number(card.points),  # data-points: what the card costs, for a machine to add up
        "costs": w["costs"].format(points=_points(card.points, w), over=over, once=once),
        "shown": shown,
        "folded": folded,
        "more": w["more_tests"].format(n=len(folded)),
        "note": "",  # how cells are counted, when this charge is the page's first to name one
    }


def _named(names: Callable[[str], str] | None) -> Callable[[str], str]:
    """`names` made safe: a failure leaves the English name (feedback is never lost to a catalog)."""

    def name(text: str) -> str:
        if names is None:
            return text
        try:
            out = names(text)
        except Exception:
            return text
        return out if isinstance(out, str) else text

    return name


# how a run ended (wording.run_state) -> its words in the pages' catalog
_STATUS = {
    "ok": "page.status.ok",
    "blank": "page.status.blank",
    "syntax error": "page.status.syntax error",
    "cells raised": "page.status.cells raised",
    "time budget": "page.status.time budget",
    "timeout": "page.status.timeout",
    "memory": "page.status.memory",
    "exited": "page.status.exited",
    "crashed": "page.status.crashed",
    "judge limit": "page.status.judge limit",
    "grader error": "page.status.grader error",
}


def _status_words(status: str, w: dict[str, str]) -> str:
    key = _STATUS.get(status)
    return w[key.removeprefix("page.")] if key else status


def _note(kind: str, language: str, lines: list[str]) -> str:
    """How cells (or a .py file's parts) are counted, once: "" when the run's summary already says it."""
    note = render_catalog("run.parts_counted" if kind == "py" else "run.cells_counted", language)
    return "" if note in lines else note


def _count(n: int, w: dict[str, str]) -> str:
    return w["test"] if n == 1 else w["tests"].format(n=n)


def feedback_context(
    result: Result | None,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    starts: Mapping[int, CellPlace] | None = None,
    graded_at: str = "",
    language: str | None = None,
    names: Callable[[str], str] | None = None,
    spec: AssignmentSpec | None = None,
    late: Late | None = None,
) -> dict:
    """What the page shows, as plain values for ``feedback.html.j2`` (None: a page saying "not graded yet").

    `names`: the grader's catalog naming its areas in the page's language (``editions.names``); `spec`: the
    grader (its scheme and catalog: the charges and their titles); `late`: when it was handed in against the
    due date (``lateness.Late``), said under the score."""
    lang = language or (result.language if result is not None else "en")
    w = page_words(lang)
    shown = spec.shown_title if spec is not None and assignment else assignment  # "Weight Tying", not a folder
    title = (
        w["assignment_feedback_for"].format(assignment=shown, student=student)
        if shown
        else w["feedback_for"].format(student=student)
    )
    context: dict = {"lang": lang, "w": w, "title": title, "graded": result is not None, "meta": ""}
    if result is None:
        return context
    meta = [
        w["graded"].format(when=graded_at) if graded_at else "",
        w["status"].format(status=_status_words(run_state(result), w)),
    ]
    area = _named(names)
    failing = result.failing()
    shown_cards = [_card(card, w, area) for card in cards(result, spec, lang)]
    if result.run is not None and result.status == "timeout":  # what the time limit cost: said where it stopped
        where = stopped_at(result.run, kind=kind, starts=starts, language=lang, spec=spec)
        for shown, card in zip(shown_cards, cards(result, spec, lang), strict=True):
            if card.kind == "owed":
                shown["reason"] = w["timeout_card"].format(where=where)
    if lang == "en" or result.run is None:
        lines = run_lines(result, kind=kind, starts=starts, spec=spec)
    else:  # the run in the student's language: the summary rendered from the engine's catalog (grading.editions)
        lines = [line for line in clean_message(result.output).splitlines() if line.strip()]
        if result.status == "timeout":
            where = stopped_at(result.run, kind=kind, starts=starts, language=lang, spec=spec)
            lines.append(w["stopped_line"].format(where=where))
    # How cells are counted, said once: under the run's lines when they name a cell, else under the first charge
    # that does (a page whose run went well names no cell there).
    if not _NUMBERED.search("\n".join(lines)):
        numbered = next((c for c in shown_cards if _NUMBERED.search(c["reason"])), None)
        if numbered is not None:
            numbered["note"] = _note(kind, lang, [])
    passed = [t for t in result.tests if t.passed]
    context.update(
        meta=" · ".join(m for m in meta if m),
        score=after_penalty(late, result.score),  # the headline is the final mark, the penalty beside it
        max_score=result.max_score,
        penalty=w["penalty_beside"].format(points=number(late.penalty), before=number(result.score))
        if late is not None and late.penalty > 0
        else "",
        late_line=late_line(late, result.score, result.max_score, lang),
        # the starter code's paragraph only when the judge said every failure is the starter code's own exception
        starter=result.score == 0 and bool(failing) and all(t.finding.starter for t in failing),
        area_line=" · ".join(
            f"{area(a)} {number(got)}/{number(top)}" for a, (got, top) in areas_in_order(result, spec)
        ),
        what_to_fix=w["what_to_fix"].format(failed=len(failing), total=_count(len(result.tests), w)),
        rule=w["rule"] if failing else "",
        lost=w["lost_total"].format(points=_points(round(result.max_score - result.score, 6), w)) if failing else "",
        cards=shown_cards,
        run_lines=lines,
        note=_note(kind, lang, lines) if _NUMBERED.search("\n".join(lines)) else "",
        areas=[
            {"name": area(a), "got": s, "top": m, "share": s / m if m else 0.0}
            for a, (s, m) in areas_in_order(result, spec)
        ],
        passed_heading=w["passed"].format(n=_count(len(passed), w)),
        passed=[{"name": test_title(spec, t.name, lang), "area": area(t.area), "points": t.points} for t in passed],
        no_tests=not result.tests,
    )
    return context


def feedback_html(
    result: Result | None,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    starts: Mapping[int, CellPlace] | None = None,
    graded_at: str = "",
    language: str | None = None,
    names: Callable[[str], str] | None = None,
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
        starts=starts,
        graded_at=graded_at,
        language=language,
        names=names,
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
    starts: Mapping[int, CellPlace] | None = None,
    graded_at: str = "",
    language: str | None = None,
    names: Callable[[str], str] | None = None,
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
        starts=starts,
        graded_at=graded_at,
        language=language,
        names=names,
        spec=spec,
        late=late,
    )
    return write_text(path, html)
