"""Trusted: the words of the pages and the report beside a result's own: how a run went for the TA, lateness.

A result's own words (its charges, tests, messages, the run in sentences) are rendered when it is graded
(``grading.rendering``); here are the pages' headings and labels (``page_words``), how a run went as the
pages and tables name it (``run_state``), the cells *Needs a look* names (one that raised while loading, did
not compile or was stopped at its budget, named as the self-check names it: its number, its section's heading
and its first line, ``grading.rendering.place``, read from the notebook on disk by ``cell_starts``), and how
late a hand-in was. ::

    readable_test("test_identity.py::test_wrapper_head_is_the_embedding_parameter[2]")
        -> "wrapper head is the embedding parameter [2]"
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path

from autograder.grading.catalog import render
from autograder.grading.marking import MISCONCEPTION
from autograder.grading.readable import CELL_STOPPED, clean_message
from autograder.grading.rendering import place
from autograder.grading.result import SYNTAX_ERRORS, Result, RunFacts, TestOutcome, syntax_parts
from autograder.grading.titles import readable_test
from autograder.outputs.html import number
from autograder.outputs.messages_pages import PAGES
from autograder.protocol.said import LANGUAGES
from coursecheck.notebook import CellPlace, cell_places

__all__ = [
    "readable_test",
    "clean_message",
    "cell_starts",
    "page_words",
    "syntax_errors",
    "raised_cells",
    "is_syntax_error",
    "budget_stops",
    "stopped_checks",
    "cell_stopped",
    "unwritten_parts",
    "run_state",
    "raised_state",
    "duration",
    "late_line",
    "after_penalty",
    "refused_detail",
    "cards_words",
    "points_words",
    "mistake_charged",
]


def cell_starts(path: str | Path | None) -> Mapping[int, CellPlace]:
    """cell index -> where the cell is (its section's heading and first line: ``coursecheck.notebook.cell_places``),
    from the submission on disk ({} when not a notebook). The notebook is read when a cell is first looked up:
    most pages name no cell, and a class's report would otherwise parse every notebook again."""
    if path is None or Path(path).suffix != ".ipynb":
        return {}
    return _CellStarts(Path(path))


class _CellStarts(Mapping):
    """``cell_starts`` of one notebook, read on first use (an unreadable one names no cell: "cell 20" only)."""

    def __init__(self, path: Path) -> None:
        self._path, self._places = path, None

    def _read(self) -> dict[int, CellPlace]:
        if self._places is None:
            try:
                from autograder.grading.submissions import read_submission

                self._places = cell_places(json.loads(read_submission(self._path)[1]))
            except Exception:  # without it the page says "cell 20" only
                self._places = {}
        return self._places

    def __bool__(self) -> bool:  # `starts or {}` must not read the notebook
        return True

    def __getitem__(self, index: int) -> CellPlace:
        return self._read()[index]

    def __iter__(self) -> Iterator[int]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def is_syntax_error(message: str) -> bool:
    return str(message).startswith(SYNTAX_ERRORS)


def syntax_errors(
    run: RunFacts,
    *,
    kind: str = "ipynb",
    starts: Mapping[int, CellPlace] | None = None,
    language: str = "en",
    detail: bool = True,
) -> list[str]:
    """'cell 15 (in “6. Exercise 1”, starting “class TiedEmbeddingLM”), line 13: “def f(:” (SyntaxError: invalid
    syntax)' per cell that did not compile ('line 13: ...' in a .py file, whose lines are the file's), in
    `language`; without `detail`, only where ('cell 15 (...), line 13')."""
    out, w = [], page_words(language)
    for i, m in run.load_errors:
        parsed = syntax_parts(clean_message(m)) if isinstance(i, int) else None
        if parsed is None:
            continue
        error, line, code = parsed
        where = place(i, kind, starts or {}, language, parts=run.parts, staff=True)
        if line:  # a notebook's lines count from its cell's top, a .py file's are the file's
            cell_line = render("run.cell_line", language, cell=where, line=line)
            where = cell_line if kind == "ipynb" else render("run.file_line", language, line=line)
        said = w["syntax_line"].format(where=where, code=code, error=error) if code else f"{where}{w['colon']}{error}"
        out.append(said if detail else where)
    return out


def raised_cells(
    run: RunFacts, *, kind: str = "ipynb", starts: Mapping[int, CellPlace] | None = None, language: str = "en"
) -> list[str]:
    """'cell 18 (in “7. Gradients”, starting “loss = ...”): NameError: name 'x' is not defined' per cell that
    raised while loading (a syntax error or a cell stopped at its time budget is told apart). A cell that only
    called what the grader withholds (the chapter's demo of the library's generate) is left out: the grader
    made it raise, there is nothing for the student to fix, and the student's page says why."""
    colon = page_words(language)["colon"]
    return [
        f"{place(i, kind, starts or {}, language, parts=run.parts, staff=True)}{colon}{clean_message(m)}"
        for i, m in run.load_errors
        if isinstance(i, int) and not is_syntax_error(m) and not str(m).startswith((CELL_STOPPED, _WITHHELD))
    ]


# How a cell's error reads when it called a function the graded run's dnnlpy withholds (sandbox/library_stub.py)
_WITHHELD = "NotAvailableWhileGrading:"
# The engine's message for a check stopped at its time budget (grading/judge/suite_api.py); a cell's is the runner's
# word, readable.CELL_STOPPED, for the TA's eyes only.
_CHECK_STOPPED = "judge.did_not_finish_within"


def budget_stops(
    result: Result, *, kind: str = "ipynb", starts: Mapping[int, CellPlace] | None = None, language: str = "en"
) -> list[str]:
    """'cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)' per cell, then what each stopped check was
    calling ('MiniGPTWithWeightTying.generate', once however many tests it stopped; a test's title without one),
    stopped at a time budget, in `language` (the result as rendered, when it was)."""
    run = result.run
    parts = run.parts if run is not None else 0
    cells = [place(i, kind, starts or {}, language, parts=parts, staff=True) for i in _stopped_cells(run)]
    shown = {t.test: t for t in result.shown[language].tests} if language in result.shown else {}
    tests = [
        (shown[t.name].what or shown[t.name].title) if t.name in shown else readable_test(t.name)
        for t in stopped_checks(result)
    ]
    return cells + list(dict.fromkeys(tests))


def stopped_checks(result: Result) -> list:
    """The tests whose check was stopped at its time budget (the engine's message said so)."""
    return [
        t
        for t in result.tests
        if t.finding is not None and any(part.key == _CHECK_STOPPED for part in t.finding.said.walk())
    ]


def cell_stopped(result: Result) -> bool:
    """Whether a cell (a .py file's part) was stopped at its time budget while loading (the runner's word in
    ``RunFacts.load_errors``), not only a check after it."""
    return bool(_stopped_cells(result.run))


def _stopped_cells(run: RunFacts | None) -> list[int]:
    """The cells (a .py file's parts) the runner stopped at their time budget while loading, by index."""
    errors = run.load_errors if run is not None else []
    return [i for i, m in errors if isinstance(i, int) and str(m).startswith(CELL_STOPPED)]


def unwritten_parts(result: Result) -> list[str]:
    """What a judged hand-in left as the starter code (a class, or a class's method), once each in the order its
    failing tests name them (``Finding.unwritten``): [] when every part it uses was written."""
    found = (t.finding.unwritten for t in result.failing() if t.finding is not None)
    return list(dict.fromkeys(name for name in found if name))


def run_state(result: Result) -> str:
    """How a run ended, as the pages and tables name it: "unreadable" for a hand-in that was not run at all (its
    file refused: ``RunFacts.refusal``), else its status (``Result.status``), except that a run that ended
    normally says "blank" when nothing is written yet (``Result.blank``), and says so when part of its code did
    not run: "syntax error" (a cell or part Python could not compile), "time budget" (a cell or a check stopped
    at its own time budget) or "cells raised" (one raised; a call only to what the grader withholds aside), for a
    .py file "file raised" (``RunFacts.kind``: it has no cells, and nothing after the raising line ran). The mark
    never reads it."""
    run = result.run
    if run is not None and run.refusal is not None and result.grader_error is None:  # nothing of it ran
        return "unreadable"
    if result.status != "ok" or run is None:
        return result.status
    if result.blank:  # nothing written yet: not a run to call "ok" (Result.blank)
        return "blank"
    if run.compile_failed:
        return "syntax error"
    if cell_stopped(result):
        return "time budget"
    if stopped_checks(result):  # a check stopped at its own budget: the run ended, but not "no errors"
        return "time budget"
    if not raised_cells(run):
        return "ok"
    return raised_state(run.kind)  # a result from before kind was kept: as it was


# How a run that went on past a raising cell is named (``raised_state``): a notebook's, a .py file's.
RAISED_STATES = ("cells raised", "file raised")


def raised_state(kind: str) -> str:
    """How a run that went on past a raising cell is named, by the hand-in's kind: a .py file has no cells, and
    nothing after its raising line ran ("file raised"); a notebook's other cells ran ("cells raised")."""
    cells, file = RAISED_STATES
    return file if kind == "py" else cells


def all_passed(result: Result, w: Mapping[str, str], total: str) -> str:
    """The line said where "What to fix" would be when no test failed: "nothing to fix" only when no cell raised
    either (``run_state``), else that the cell shown above does not change the mark (a .py file's error, where the
    file has no cells: ``RunFacts.parts``, 0 for a notebook)."""
    if run_state(result) not in RAISED_STATES:
        return w["all_passed"].format(total=total)
    cells = result.run is None or not result.run.parts
    return w["all_passed_cell_raised" if cells else "all_passed_file_raised"].format(total=total)


# What the sandbox refused, by kind (``RunFacts.refused``), for the TA
# what the runner records a refusal as, in the order they are said, and the pages' words for each
_REFUSED = {"files": "refused_files", "call": "refused_call", "output": "refused_output"}


def refused_detail(run: RunFacts, language: str = "en") -> str:
    """'tried to reach /work/course/solutions/weight_tying.py, /root; called ptrace; flooded stdout': what the
    sandbox refused the run, for *Needs a look*, in `language`."""
    w = page_words(language)
    pairs = [e for e in run.refused if isinstance(e, (list, tuple)) and len(e) == 2 and e[0] in _REFUSED]
    parts = []
    for kind, words in _REFUSED.items():
        what = [str(x)[:200] for k, x in pairs if k == kind]
        if what:
            more = w["refused_more"].format(n=len(what) - 4) if len(what) > 4 else ""
            parts.append(w[words].format(what=w["refused_list"].join(what[:4]) + more))
    return w["refused_sep"].join(parts)


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
            after = after_penalty(late, score)
            line += w["penalty"].format(points=f"{late.penalty:g}", after=f"{after:g}", top=f"{max_score:g}")
    return line


def after_penalty(late, score: float) -> float:
    """The mark once the late policy's penalty is taken (``outputs.lateness.Late``; `score` itself without one)."""
    return round(max(0.0, score - late.penalty), 6) if late is not None and late.penalty > 0 else score


def points_words(value: float, w: dict[str, str]) -> str:
    """A number of points in the pages' words `w`: "1 point", "6 points", "6 分"."""
    return f"{number(value)} {w['point'] if value == 1 else w['points']}"


def cards_words(cards: list, language: str, lost: float = 0.0) -> tuple[dict[str, str], list[tuple[str, list[str]]]]:
    """Each card's (``outputs.charges.Card``) cost line above its tests ("扣 6 分，在练习 2 中只扣一次，涉及 3 个测
    试："), and what each of its tests is worth and costs: what it lost, or that a charge covers it, or that it costs
    nothing at all (``item["free"]``, as ``marking.costs_nothing`` decided it), or, in an area whose cap line says
    the misconception's fixed cost there (``item["capped"]``), its worth alone ("该测试 2 分"); with the pages'
    words in `language` (``page_words``) they are said in. The page and the terminal say them from these values;
    the terminal's table takes them all before it prints (one visit here, then down). The words come back with the
    points `lost` in all said as one line (``w["lost_said"]``: "Points the grader took off: 1 point, ..."; "" for
    no card and no loss)."""
    w = page_words(language)
    out = []
    for card in cards:
        over = w["over_tests"].format(n=len(card.tests)) if len(card.tests) > 1 else ""
        # "once in exercise 2" speaks of several tests: a card of one says its cost alone
        once = w["once_in_exercise"].format(n=card.exercise) if card.misconception and card.exercise and over else ""
        costs = w["costs"].format(points=points_words(card.points, w), over=over, once=once)
        tests = []
        for item in card.tests:
            worth = number(item["points"])
            if item.get("capped"):  # its area's cap line says what the area costs: here only what it is worth
                tests.append(w["worth"].format(points=worth))
            elif item["lost"]:
                tests.append(w["lost_of"].format(lost=number(item["lost"]), points=worth))
            else:
                tests.append(w["not_charged" if item.get("free") else "not_charged_again"].format(points=worth))
        out.append((costs, tests))
    # said last, from numbers alone (points_words' words, without a call back up here after html.number's); a
    # result that lost nothing and has no card has no such line
    lost = round(lost, 6)
    unit = w["point" if lost == 1 else "points"]
    return {**w, "lost_said": w["lost_total"].format(points=f"{number(lost)} {unit}") if lost or out else ""}, out


def mistake_charged(failing: list[TestOutcome]) -> bool:
    """Whether a common mistake carries a charge here: the rule that says how it is charged is said only then
    (on the page and in the terminal; noise where none is, as after a syntax error or a crash of its own)."""
    return any(
        t.charged_to.startswith(MISCONCEPTION) or any(k.startswith(MISCONCEPTION) for k in t.shares) for t in failing
    )


def page_words(language: str) -> dict[str, str]:
    """The pages' headings and labels (``outputs/messages_pages.py``) in `language`, by name (English for a
    language not listed)."""
    language = language if language in LANGUAGES else "en"
    return {key.removeprefix("page."): entry.template(language) for key, entry in PAGES.items()}
