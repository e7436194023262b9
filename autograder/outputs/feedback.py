"""Trusted: one student's feedback page: what to fix first, then how the run went, the areas, what passed.

Failures come first, most points lost first. Tests that fail for one reason share one card: the reason is
written once, with the tests (readable names, points lost) under it, so a stub that raises
NotImplementedError reads as one sentence, not twenty-seven. Nothing of the grader's own machinery (test
files, sandbox notes, captured stderr) is shown; everything a student wrote is escaped.
"""

from __future__ import annotations

import re
from pathlib import Path

from autograder.outputs.atomic import write_text
from autograder.outputs.html import bar, escape, number, page, table
from autograder.outputs.wording import (
    CELL_NOTE,
    PART_NOTE,
    clean_message,
    readable_test,
    run_lines,
    split_raised,
    split_subject,
    starter_code,
)
from autograder.result import Result, TestOutcome

__all__ = ["write_feedback", "feedback_html", "failure_groups"]

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


def _tests(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"


def _card(reason: str, members: list[tuple[str, TestOutcome]]) -> str:
    lost = sum(t.points - t.score for _, t in members)  # the marking scheme's charge: a knock-on costs 0
    items = []
    for context, test in members:
        what = f' <span class="meta">— checking {escape(context)}</span>' if context else ""
        items.append(
            f"<li><b>{escape(readable_test(test.name))}</b> ({escape(test.area)}, "
            f"{number(test.points)} point{'' if test.points == 1 else 's'}){what}</li>"
        )
    if len(items) > _SHOWN:
        folded = "".join(items[_SHOWN - 1 :])
        more = len(items) - _SHOWN + 1
        items[_SHOWN - 1 :] = [f"<li><details><summary>and {more} more tests</summary><ul>{folded}</ul></details></li>"]
    count = f" over {len(members)} tests" if len(members) > 1 else ""
    return (
        f'<div class="card"><p class="msg">{escape(reason)}</p>'
        f"<p>Costs {number(lost)} point{'' if lost == 1 else 's'}{count}:</p><ul>{''.join(items)}</ul></div>"
    )


def feedback_html(
    result: Result,
    *,
    student: str,
    assignment: str = "",
    kind: str = "ipynb",
    starts: dict[int, str] | None = None,
    graded_at: str = "",
) -> str:
    """The page's HTML (see `write_feedback`)."""
    if not isinstance(result, Result):
        raise TypeError(f"result must be an autograder.result.Result, got {type(result).__name__}")
    title = f"{assignment}: feedback for {student}" if assignment else f"Feedback for {student}"
    meta = [f"Graded {graded_at}" if graded_at else "", f"status: {result.status}"]
    parts = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="meta">{escape(" · ".join(m for m in meta if m))}</p>',
        f'<p class="score">Score: {number(result.score)} / {number(result.max_score)}</p>',
    ]
    failing = result.failing()
    if failing and all(starter_code(clean_message(t.output)) for t in failing):
        parts.append(
            "<p><b>Most of this submission is still the starter code</b>: the tests below need parts that raise "
            "NotImplementedError. Write them, run the self-check (<code>pytest</code> in the assignment folder), "
            "and hand in again.</p>"
        )
    if result.areas:  # the whole picture in one line; the table comes after what to fix
        line = " · ".join(f"{a} {number(got)}/{number(top)}" for a, (got, top) in result.areas.items())
        parts.append(f'<p class="meta">{escape(line)}</p>')
    groups = failure_groups(failing)
    if groups:
        parts.append(f"<h2>What to fix ({len(failing)} of {_tests(len(result.tests))} failed)</h2>")
        parts += [_card(reason, members) for reason, members in groups]
    lines = run_lines(result, kind=kind, starts=starts)
    if lines:
        parts.append("<h2>How your code ran</h2><ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines) + "</ul>")
    if _NUMBERED.search("\n".join(parts)):
        parts.append(f'<p class="meta">{escape(PART_NOTE if kind == "py" else CELL_NOTE)}</p>')
    if result.areas:
        rows = [
            f'<tr><td>{escape(a)}</td><td class="num">{number(s)} / {number(m)}</td>'
            f"<td>{bar(s / m if m else 0)}</td></tr>"
            for a, (s, m) in result.areas.items()
        ]
        parts.append("<h2>Points by area</h2>" + table(["area", "points", ""], rows, numeric=(1,)))
    passed = [t for t in result.tests if t.passed]
    if passed:
        items = "".join(
            f"<li>{escape(readable_test(t.name))} ({escape(t.area)}, {number(t.points)})</li>" for t in passed
        )
        parts.append(
            f"<h2>Passed ({_tests(len(passed))})</h2><details><summary>Show what passed</summary>"
            f"<ul>{items}</ul></details>"
        )
    if not result.tests:
        parts.append("<p>No tests were run for this submission.</p>")
    return page(title, "\n".join(parts))


def write_feedback(
    result: Result,
    path: Path,
    *,
    student: str = "",
    assignment: str = "",
    kind: str = "ipynb",
    starts: dict[int, str] | None = None,
    graded_at: str = "",
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
    )
    return write_text(path, html)
