"""Trusted: one student's feedback page: what to fix first, then how the run went, the areas, what passed.

Failures come first, most points lost first. Tests that fail for one reason share one card: the reason is
written once, with the tests (readable names, points lost) under it, so a stub that raises
NotImplementedError reads as one sentence, not twenty-seven. Nothing of the grader's own machinery (test
files, sandbox notes, captured stderr) is shown. The page is ``templates/feedback.html.j2``, its headings in
the student's language (``wording.page_words``); everything a student wrote is escaped by the template.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from autograder.grading.result import Result, TestOutcome
from autograder.outputs.atomic import write_text
from autograder.outputs.html import number, render
from autograder.outputs.lateness import Late
from autograder.outputs.wording import (
    CELL_NOTE,
    NO_RESULT,
    PART_NOTE,
    clean_message,
    late_line,
    page_words,
    readable_test,
    run_lines,
    split_raised,
    split_subject,
    starter_code,
    stopped_at,
)
from dnnlpy.notebook import CellPlace

__all__ = ["write_feedback", "feedback_html", "feedback_context", "failure_groups"]

_NUMBERED = re.compile(r"\b(?:cell|part) \d")
_SHOWN = 6  # tests listed in a card before the rest fold away


def failure_groups(tests: list[TestOutcome]) -> list[tuple[str, list[tuple[str, TestOutcome]]]]:
    """[(reason, [(what was being checked, test), ...]), ...], most points lost first.

    Tests share a reason when their messages say the same thing about different objects: the same exception
    raised by the student's code ("X failed: your code raised E"), or the same sentence after a subject
    ("TiedEmbeddingLM after .to(torch.float64): <sentence>"). The subjects become what each test checked.
    """
    keyed: dict[str, list[tuple[str, str, TestOutcome]]] = {}  # key -> [(context, full message, test)]
    for test in tests:
        message = clean_message(test.output) or "failed (no message)"
        raised = split_raised(message)
        if raised:
            key, context = f"Your code raised {raised[1]}", raised[0]
        else:
            context, key = split_subject(message)
        keyed.setdefault(key, []).append((context, message, test))
    groups = []
    for key, members in keyed.items():
        if len(members) == 1 and not key.startswith("Your code raised"):
            groups.append((members[0][1], [("", members[0][2])]))  # alone: its whole message, as written
        else:
            groups.append((key, [(context, test) for context, _, test in members]))
    return sorted(groups, key=lambda item: (-sum(t.points - t.score for _, t in item[1]), item[0]))


def _points(value: float, w: dict[str, str]) -> str:
    return f"{number(value)} {w['point'] if value == 1 else w['points']}"


def _item(context: str, test: TestOutcome, w: dict[str, str]) -> dict:
    return {
        "name": readable_test(test.name),
        "area": test.area,
        "points": _points(test.points, w),
        "checking": w["checking"].format(what=context) if context else "",
    }


def _card(reason: str, members: list[tuple[str, TestOutcome]], w: dict[str, str]) -> dict:
    lost = sum(t.points - t.score for _, t in members)  # the marking scheme's charge: a knock-on costs 0
    items = [_item(context, test, w) for context, test in members]
    shown, folded = (items, []) if len(items) <= _SHOWN else (items[: _SHOWN - 1], items[_SHOWN - 1 :])
    over = w["over_tests"].format(n=len(members)) if len(members) > 1 else ""
    return {
        "reason": reason,
        "costs": w["costs"].format(points=_points(lost, w), over=over),
        "shown": shown,
        "folded": folded,
        "more": w["more_tests"].format(n=len(folded)),
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


def _count(n: int, w: dict[str, str]) -> str:
    return w["test"] if n == 1 else w["tests"].format(n=n)


def feedback_context(
    result: Result | None,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    starts: dict[int, CellPlace] | None = None,
    graded_at: str = "",
    language: str | None = None,
    names: Callable[[str], str] | None = None,
    late: Late | None = None,
) -> dict:
    """What the page shows, as plain values for ``feedback.html.j2`` (None: a page saying "not graded yet").

    `names`: the grader's catalog naming its areas and tests in the page's language (``editions.names``);
    `late`: when it was handed in against the due date (``lateness.Late``), said under the score."""
    lang = language or (result.language if result is not None else "en")
    w = page_words(lang)
    title = (
        w["assignment_feedback_for"].format(assignment=assignment, student=student)
        if assignment
        else w["feedback_for"].format(student=student)
    )
    context: dict = {"lang": lang, "w": w, "title": title, "graded": result is not None, "meta": ""}
    if result is None:
        return context
    meta = [w["graded"].format(when=graded_at) if graded_at else "", w["status"].format(status=result.status)]
    area = _named(names)
    failing = result.failing()
    cards = []
    if result.run is not None and result.status == "timeout":  # one card for what the time limit cost
        unreached = [t for t in failing if NO_RESULT.match(clean_message(t.output))]
        if unreached:
            where = stopped_at(result.run, kind=kind, starts=starts, language=lang)
            cards.append(_card(w["timeout_card"].format(where=where), [("", t) for t in unreached], w))
            failing_rest = [t for t in failing if t not in unreached]
        else:
            failing_rest = failing
    else:
        failing_rest = failing
    cards += [_card(reason, members, w) for reason, members in failure_groups(failing_rest)]
    for card in cards:
        for item in card["shown"] + card["folded"]:
            item["area"], item["name"] = area(item["area"]), area(item["name"])
    if lang == "en" or result.run is None:
        lines = run_lines(result, kind=kind, starts=starts)
    else:  # the run in the student's language: the summary rendered from the engine's catalog (grading.editions)
        lines = [line for line in clean_message(result.output).splitlines() if line.strip()]
        if result.status == "timeout" and w["stopped_line"]:
            where = stopped_at(result.run, kind=kind, starts=starts, language=lang)
            lines.append(w["stopped_line"].format(where=where))
    shown = "\n".join([*lines, *(c["reason"] for c in cards), *(i["checking"] for c in cards for i in c["shown"])])
    passed = [t for t in result.tests if t.passed]
    context.update(
        meta=" · ".join(m for m in meta if m),
        score=result.score,
        max_score=result.max_score,
        late_line=late_line(late, result.score, result.max_score, lang),
        starter=bool(failing) and all(starter_code(clean_message(t.output)) for t in failing),
        area_line=" · ".join(f"{area(a)} {number(got)}/{number(top)}" for a, (got, top) in result.areas.items()),
        what_to_fix=w["what_to_fix"].format(failed=len(failing), total=_count(len(result.tests), w)),
        cards=cards,
        run_lines=lines,
        note=(PART_NOTE if kind == "py" else CELL_NOTE) if _NUMBERED.search(shown) else "",
        areas=[
            {"name": area(a), "got": s, "top": m, "share": s / m if m else 0.0} for a, (s, m) in result.areas.items()
        ],
        passed_heading=w["passed"].format(n=_count(len(passed), w)),
        passed=[{"name": area(readable_test(t.name)), "area": area(t.area), "points": t.points} for t in passed],
        no_tests=not result.tests,
    )
    return context


def feedback_html(
    result: Result | None,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    starts: dict[int, CellPlace] | None = None,
    graded_at: str = "",
    language: str | None = None,
    names: Callable[[str], str] | None = None,
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
    starts: dict[int, CellPlace] | None = None,
    graded_at: str = "",
    language: str | None = None,
    names: Callable[[str], str] | None = None,
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
        late=late,
    )
    return write_text(path, html)
