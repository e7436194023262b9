"""Trusted: the words students and instructors read: test names, cleaned messages, the run in plain sentences.

Messages come from the hidden suite and quote the student's exceptions, so they are cleaned for reading, not
rewritten: repeated phrases and stray spaces go, and the runner's cell references (``<notebook> [cell 25]:16``,
counted from 0 with text cells included) become ``cell 26, line 16``, counted the way a student counts, with
``CELL_NOTE`` saying so once on each page. A cell the page names itself (one that raised while loading, or
was running when the time ran out) is named as the self-check names it: its number, its section's heading and
its first line (``catalog.cell_name``). ::

    readable_test("test_identity.py::test_wrapper_head_is_the_embedding_parameter[2]")
        -> "wrapper head is the embedding parameter [2]"
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from autograder.grading.catalog import cell_name, render
from autograder.grading.messages import clean_message
from autograder.grading.result import STATUS_MESSAGES, Result, RunFacts, status_words
from dnnlpy.notebook import CellPlace, cell_places

__all__ = [
    "readable_test",
    "clean_message",
    "split_raised",
    "split_subject",
    "run_lines",
    "cell_starts",
    "CELL_NOTE",
    "NO_RESULT",
    "PART_NOTE",
    "starter_code",
    "page_words",
    "stopped_at",
    "syntax_errors",
    "raised_cells",
    "is_syntax_error",
    "budget_stops",
    "duration",
    "late_line",
]

CELL_NOTE = "Cells are numbered from 1 at the top of the notebook, text cells included."
PART_NOTE = "Parts of a .py file are numbered from 1; a line starting with # %% begins a new part."

_RAISED = re.compile(r"^(?P<context>.*?)\s*failed: your code raised (?P<error>.+)$", re.DOTALL)
_SUBJECT = re.compile(
    r"^(?P<subject>[A-Za-z_][\w.]*(?:\([^()\n]{0,120}\))?(?: after [^:\n]{1,80})?): (?P<rest>.+)$", re.DOTALL
)


def readable_test(test_id: str) -> str:
    """'test_generation.py::test_generate_respects_block_size[2]' -> 'generate respects block size [2]'."""
    func = str(test_id).rpartition("::")[2] or str(test_id)
    base, bracket, params = func.partition("[")
    base = base[5:] if base.startswith("test_") else base
    return base.replace("_", " ").strip() + (f" [{params}" if bracket else "")


def split_raised(message: str) -> tuple[str, str] | None:
    """('MiniGPTWithWeightTying (SGD step)', 'NotImplementedError (at cell 26, line 16, in __init__)') for a
    cleaned 'X failed: your code raised E' message; None for any other message."""
    match = _RAISED.match(message)
    return (match.group("context").strip(), match.group("error").strip()) if match else None


def split_subject(message: str) -> tuple[str, str]:
    """('TiedEmbeddingLM after .to(torch.float64)', 'lm_head.weight did not change ...') for a message that
    opens with what it checked; ('', message) otherwise."""
    match = _SUBJECT.match(message)
    return (match.group("subject"), match.group("rest").strip()) if match else ("", message)


def starter_code(message: str) -> bool:
    """Whether a message reports the starter code's NotImplementedError (a part not written yet)."""
    return "NotImplementedError" in message


def cell_starts(path: str | Path | None) -> dict[int, CellPlace]:
    """cell index -> where the cell is (its section's heading and first line: ``dnnlpy.notebook.cell_places``),
    from the submission on disk ({} when not a notebook)."""
    if path is None or Path(path).suffix != ".ipynb":
        return {}
    try:
        from autograder.grading.submissions import read_submission

        return cell_places(json.loads(read_submission(Path(path))[1]))
    except Exception:  # without it the page says "cell 20" only
        return {}


def _place(index: int, kind: str, starts: dict[int, CellPlace] | None, language: str = "en") -> str:
    """Cell `index`'s name, as the self-check names it ('cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)'),
    or a .py file's 'part 3'."""
    if kind == "py":
        return page_words(language)["part"].format(n=index + 1)
    return cell_name((starts or {}).get(index) or CellPlace(index + 1), language)


NO_RESULT = re.compile(r"^(?:no (?:evidence|result) for |没有 )")  # a test the run never got to (en, zh)
_SYNTAX = ("SyntaxError", "IndentationError", "TabError")


def is_syntax_error(message: str) -> bool:
    return str(message).startswith(_SYNTAX)


def syntax_errors(run: RunFacts, *, kind: str = "ipynb", starts: dict[int, CellPlace] | None = None) -> list[str]:
    """'cell 15 (in “6. Exercise 1”, starting “def f(:”): SyntaxError: invalid syntax (line 1: def f(:)' per cell
    that did not compile."""
    return [
        f"{_place(i, kind, starts or {})}: {clean_message(m)}"
        for i, m in run.load_errors
        if isinstance(i, int) and is_syntax_error(m)
    ]


def raised_cells(run: RunFacts, *, kind: str = "ipynb", starts: dict[int, CellPlace] | None = None) -> list[str]:
    """'cell 18 (in “7. Gradients”, starting “loss = ...”): NameError: name 'x' is not defined' per cell that
    raised while loading (a syntax error or a cell stopped at its time budget is told apart). A cell that only
    called what the grader withholds (the chapter's demo of the library's generate) is left out: the grader
    made it raise, there is nothing for the student to fix, and the student's page says why."""
    return [
        f"{_place(i, kind, starts or {})}: {clean_message(m)}"
        for i, m in run.load_errors
        if isinstance(i, int) and not is_syntax_error(m) and not str(m).startswith((_CELL_STOPPED, _WITHHELD))
    ]


# How the runner records a cell it stopped at its time budget, and how the judge words a check it stopped
# (autograder/runner/budget.py, autograder/judge/evidence.py): the runner's word, for the TA's eyes only.
_CELL_STOPPED = "TimeBudgetExceeded:"
# How a cell's error reads when it called a function the graded run's dnnlpy withholds (sandbox/library_stub.py)
_WITHHELD = "NotAvailableWhileGrading:"
_CHECK_STOPPED = "did not finish"  # kept in English on a Chinese page (a keyword)


def budget_stops(result: Result, *, kind: str = "ipynb", starts: dict[int, CellPlace] | None = None) -> list[str]:
    """'cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)' per cell, then 'test_x' per test, stopped at
    a time budget."""
    run = result.run
    cells = [
        _place(i, kind, starts or {})
        for i, m in (run.load_errors if run is not None else [])
        if isinstance(i, int) and str(m).startswith(_CELL_STOPPED)
    ]
    tests = [readable_test(t.name) for t in result.tests if not t.passed and _CHECK_STOPPED in t.output]
    return cells + tests


def stopped_at(
    run: RunFacts, *, kind: str = "ipynb", starts: dict[int, CellPlace] | None = None, language: str = "en"
) -> str:
    """Where the time ran out, from the runner's last word about what it was running (see runner/__main__)."""
    w = page_words(language)
    running = run.running if isinstance(run.running, dict) else {}
    cell, check = running.get("cell"), running.get("check")
    if type(cell) is int and cell >= 0:
        return w["in_cell"].format(place=_place(cell, kind, starts or {}, language))
    if isinstance(check, str) and check:
        return w["in_check"].format(check=check[:80])
    return w["unknown_place"]


def run_lines(result: Result, *, kind: str = "ipynb", starts: dict[int, CellPlace] | None = None) -> list[str]:
    """How the run went, for the student: a sentence, then one line per part that raised while loading."""
    run = result.run
    if result.grader_error is not None:
        return ["The grader could not grade this submission (its own failure, not yours): it will be graded again."]
    if run is None:
        return [clean_message(result.output)] if result.output else []
    words = status_words(run) if run.status in STATUS_MESSAGES else f"The run ended with status {run.status}."
    if run.status == "timeout":
        words = f"{words} It was stopped {stopped_at(run, kind=kind, starts=starts)}."
    lines = [render("run.not_run", why=clean_message(run.rejected))] if run.rejected else []
    errors = [(i, clean_message(m)) for i, m in run.load_errors if isinstance(i, int)][:10]
    if errors and run.status == "ok":
        what = "parts" if kind == "py" else "cells"
        words = f"Your code ran to the end, but {len(errors)} of its {what} raised an error:"
    lines.append(words)
    for index, message in errors:
        place = _place(index, kind, starts or {})
        if is_syntax_error(message):
            lines.append(
                f"{place} has a syntax error, so Python ran none of it and nothing it defines exists "
                f"(a later NameError follows from it): {message}"
            )
            continue
        why = (
            ": it uses a part that still holds the starter code (raise NotImplementedError)"
            if starter_code(message)
            else ""
        )
        lines.append(f"{place} raised {message}{why}")
    missing = [n for n in run.required_names if n not in run.defined]
    if missing and run.status in ("ok", "memory"):
        hint = "a cell with a syntax error" if any(is_syntax_error(m) for _, m in errors) else "check the exact names"
        lines.append("Not defined by your submission: " + ", ".join(missing) + f" ({hint}).")
    return lines


# The feedback page's own words (headings, labels), in each edition's language; messages are rendered from
# the grader's and the engine's catalogs (autograder.grading.editions), these by the page. A language not
# listed reads English.
_PAGE_WORDS = {
    "en": {
        "feedback_for": "Feedback for {student}",
        "assignment_feedback_for": "{assignment}: feedback for {student}",
        "graded": "Graded {when}",
        "status": "status: {status}",
        "score": "Score:",
        "starter_bold": "Most of this submission is still the starter code",
        "starter_before": "the tests below need parts that raise NotImplementedError. Write them, run the self-check (",
        "starter_after": " in the assignment folder), and hand in again.",
        "what_to_fix": "What to fix ({failed} of {total} failed)",
        "costs": "Costs {points}{over}:",
        "point": "point",
        "points": "points",
        "over_tests": " over {n} tests",
        "checking": "— checking {what}",
        "more_tests": "and {n} more tests",
        "how_it_ran": "How your code ran",
        "by_area": "Points by area",
        "area": "area",
        "points_header": "points",
        "stopped_line": "",
        "passed": "Passed ({n})",
        "show_passed": "Show what passed",
        "no_tests": "No tests were run for this submission.",
        "not_graded_yet": "This submission has not been graded yet. Your instructor will grade it again; "
        "nothing is lost.",
        "tests": "{n} tests",
        "test": "1 test",
        "part": "part {n}",
        "in_cell": "while running {place}",
        "in_check": "while the grader was calling your code for the check '{check}'",
        "unknown_place": "(the grader could not tell which cell or check was running)",
        "timeout_card": "Your code was stopped at the time limit {where}. Nothing after that ran, so these tests "
        "have no result and score 0: fix that first, then the rest will be graded.",
        "handed_in": "Handed in {when}",
        "on_time": ", before the due date ({due}).",
        "late_by": ", {late} after the due date ({due})",
        "penalty": ": the late penalty takes {points} points off, {after} / {top} after it.",
        "late_unknown": "When this was handed in could not be read (its timestamp.txt): your instructor will check.",
        "days_hours": "{days} d {hours} h",
        "hours_minutes": "{hours} h {minutes} min",
        "minutes_seconds": "{minutes} min {seconds} s",
        "seconds": "{seconds} s",
    },
    "zh": {
        "feedback_for": "{student} 的反馈",
        "assignment_feedback_for": "{assignment}：{student} 的反馈",
        "graded": "评分时间 {when}",
        "status": "运行状态：{status}",
        "score": "得分：",
        "starter_bold": "这份作业大部分仍是初始代码",
        "starter_before": "下面的测试需要的部分仍会抛出 NotImplementedError。请完成它们，在作业文件夹中运行自检（",
        "starter_after": "），然后重新提交。",
        "what_to_fix": "需要修改的地方（{total}中有 {failed} 个未通过）",
        "costs": "扣 {points}{over}：",
        "point": "分",
        "points": "分",
        "over_tests": "，涉及 {n} 个测试",
        "checking": "— 检查的是 {what}",
        "more_tests": "另外 {n} 个测试",
        "how_it_ran": "代码的运行情况",
        "by_area": "各部分得分",
        "area": "部分",
        "points_header": "得分",
        "stopped_line": "代码被终止的位置{where}。",
        "passed": "已通过（{n}）",
        "show_passed": "显示已通过的测试",
        "no_tests": "这份作业没有运行任何测试。",
        "not_graded_yet": "这份作业还没有评分。老师会重新评分，什么都不会丢失。",
        "tests": "{n} 个测试",
        "test": "1 个测试",
        "part": "第 {n} 部分",
        "in_cell": "：当时正在运行{place}",
        "in_check": "：当时评分程序正在为检查 '{check}' 调用你的代码",
        "unknown_place": "（评分程序无法确定当时正在运行哪个单元格或检查）",
        "timeout_card": "你的代码因超时被终止{where}。之后的代码都没有运行，所以下面这些测试没有结果，记 0 分："
        "先解决这个问题，其余部分才能被评分。",
        "handed_in": "提交于 {when}",
        "on_time": "，在截止时间（{due}）之前。",
        "late_by": "，比截止时间（{due}）晚了 {late}",
        "penalty": "：迟交扣 {points} 分，扣分后为 {after} / {top}。",
        "late_unknown": "无法读出这份作业的提交时间（它的 timestamp.txt）：老师会核实。",
        "days_hours": "{days} 天 {hours} 小时",
        "hours_minutes": "{hours} 小时 {minutes} 分钟",
        "minutes_seconds": "{minutes} 分 {seconds} 秒",
        "seconds": "{seconds} 秒",
    },
}


def duration(seconds: float, language: str = "en") -> str:
    """'2 h 5 min', '3 days 4 h', '40 s' (in `language`'s page words): how late, for people."""
    w = page_words(language)
    total = int(math.ceil(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return w["days_hours"].format(days=days, hours=hours)
    if hours:
        return w["hours_minutes"].format(hours=hours, minutes=minutes)
    return w["minutes_seconds"].format(minutes=minutes, seconds=secs) if minutes else w["seconds"].format(seconds=secs)


def late_line(late, score: float, max_score: float, language: str = "en") -> str:
    """The page's line on when the submission came in (``outputs.lateness.Late``): "" when nothing is known."""
    w = page_words(language)
    if late is None:
        return ""
    if late.problem:
        return w["late_unknown"]
    if not late.submitted:
        return ""
    line = w["handed_in"].format(when=late.submitted)
    if late.due and late.seconds <= 0:
        return line + w["on_time"].format(due=late.due)
    if late.due:
        line += w["late_by"].format(late=duration(late.seconds, language), due=late.due)
        if late.penalty > 0:
            after = max(0.0, score - late.penalty)
            line += w["penalty"].format(points=f"{late.penalty:g}", after=f"{after:g}", top=f"{max_score:g}")
    return line


def page_words(language: str) -> dict[str, str]:
    """The feedback page's headings and labels in `language` (English for a language not listed)."""
    return _PAGE_WORDS.get(language, _PAGE_WORDS["en"])
