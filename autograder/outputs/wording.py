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
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import cell_name, render
from autograder.grading.editions import experiment_title, readable_test
from autograder.grading.messages import clean_message
from autograder.grading.result import RUN_HEADERS, STATUS_MESSAGES, SYNTAX_ERRORS, Result, RunFacts, status_words
from autograder.outputs.messages_pages import PAGES
from autograder.protocol.said import LANGUAGES
from autograder.protocol.said import render as render_said
from coursecheck.notebook import CellPlace, cell_places

__all__ = [
    "readable_test",
    "clean_message",
    "run_lines",
    "cell_starts",
    "CELL_NOTE",
    "PART_NOTE",
    "page_words",
    "stopped_at",
    "syntax_errors",
    "raised_cells",
    "is_syntax_error",
    "budget_stops",
    "areas_in_order",
    "in_scheme_order",
    "run_state",
    "duration",
    "late_line",
    "after_penalty",
    "refused_detail",
]

CELL_NOTE = render("run.cells_counted")  # the English; a page renders it in its own language
PART_NOTE = render("run.parts_counted")


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


def _place(index: int, kind: str, starts: Mapping[int, CellPlace] | None, language: str = "en") -> str:
    """Cell `index`'s name, as the self-check names it ('cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)'),
    or a .py file's 'part 3'."""
    if kind == "py":
        return page_words(language)["part"].format(n=index + 1)
    return cell_name((starts or {}).get(index) or CellPlace(index + 1), language)


def is_syntax_error(message: str) -> bool:
    return str(message).startswith(SYNTAX_ERRORS)


def syntax_errors(
    run: RunFacts, *, kind: str = "ipynb", starts: Mapping[int, CellPlace] | None = None, language: str = "en"
) -> list[str]:
    """'cell 15 (in “6. Exercise 1”, starting “def f(:”): SyntaxError: invalid syntax (line 1: def f(:)' per cell
    that did not compile (the cell named in `language`)."""
    colon = page_words(language)["colon"]
    return [
        f"{_place(i, kind, starts or {}, language)}{colon}{clean_message(m)}"
        for i, m in run.load_errors
        if isinstance(i, int) and is_syntax_error(m)
    ]


def raised_cells(
    run: RunFacts, *, kind: str = "ipynb", starts: Mapping[int, CellPlace] | None = None, language: str = "en"
) -> list[str]:
    """'cell 18 (in “7. Gradients”, starting “loss = ...”): NameError: name 'x' is not defined' per cell that
    raised while loading (a syntax error or a cell stopped at its time budget is told apart). A cell that only
    called what the grader withholds (the chapter's demo of the library's generate) is left out: the grader
    made it raise, there is nothing for the student to fix, and the student's page says why."""
    colon = page_words(language)["colon"]
    return [
        f"{_place(i, kind, starts or {}, language)}{colon}{clean_message(m)}"
        for i, m in run.load_errors
        if isinstance(i, int) and not is_syntax_error(m) and not str(m).startswith((_CELL_STOPPED, _WITHHELD))
    ]


# How the runner records a cell it stopped at its time budget (autograder/runner/budget.py: the runner's word,
# for the TA's eyes only), and the engine's message for a check it stopped (grading/judge/suite_api.py).
_CELL_STOPPED = "TimeBudgetExceeded:"
# How a cell's error reads when it called a function the graded run's dnnlpy withholds (sandbox/library_stub.py)
_WITHHELD = "NotAvailableWhileGrading:"
_CHECK_STOPPED = "judge.did_not_finish_within"


def budget_stops(
    result: Result, *, kind: str = "ipynb", starts: Mapping[int, CellPlace] | None = None, language: str = "en"
) -> list[str]:
    """'cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)' per cell, then 'test_x' per test, stopped at
    a time budget."""
    run = result.run
    cells = [
        _place(i, kind, starts or {}, language)
        for i, m in (run.load_errors if run is not None else [])
        if isinstance(i, int) and str(m).startswith(_CELL_STOPPED)
    ]
    tests = [
        readable_test(t.name)
        for t in result.tests
        if t.finding is not None and any(part.key == _CHECK_STOPPED for part in t.finding.said.walk())
    ]
    return cells + tests


def run_state(result: Result) -> str:
    """How a run ended, as the pages and tables name it: its status (``Result.status``), except that a run that
    ended normally says "blank" when nothing is written yet (``Result.blank``), and says so when part of its code
    did not run: "syntax error" (a cell or part Python could not compile), "time budget" (one stopped at its own
    time budget) or "cells raised" (one raised; a call only to what the grader withholds aside). The mark never
    reads it."""
    run = result.run
    if result.status != "ok" or run is None:
        return result.status
    if result.blank:  # nothing written yet: not a run to call "ok" (Result.blank)
        return "blank"
    if syntax_errors(run):
        return "syntax error"
    if any(isinstance(i, int) and str(m).startswith(_CELL_STOPPED) for i, m in run.load_errors):
        return "time budget"
    return "cells raised" if raised_cells(run) else "ok"


def stopped_at(
    run: RunFacts,
    *,
    kind: str = "ipynb",
    starts: Mapping[int, CellPlace] | None = None,
    language: str = "en",
    spec: AssignmentSpec | None = None,
) -> str:
    """Where the time ran out, from the runner's last word about what it was running (see runner/__main__): a
    check by its title in the grader's catalog (`spec`), a name it does not know as it came."""
    w = page_words(language)
    running = run.running if isinstance(run.running, dict) else {}
    cell, check = running.get("cell"), running.get("check")
    if type(cell) is int and cell >= 0:
        return w["in_cell"].format(place=_place(cell, kind, starts or {}, language))
    if isinstance(check, str) and check:
        return w["in_check"].format(check=experiment_title(spec, check, language) or check[:80])
    return w["unknown_place"]


def run_lines(
    result: Result,
    *,
    kind: str = "ipynb",
    starts: Mapping[int, CellPlace] | None = None,
    spec: AssignmentSpec | None = None,
) -> list[str]:
    """How the run went, for the student: a sentence, then one line per part that raised while loading."""
    run = result.run
    if result.grader_error is not None:
        return ["The grader could not grade this submission (its own failure, not yours): it will be graded again."]
    if run is None:
        return [clean_message(result.output)] if result.output else []
    if result.blank:  # said as the run summary says it in every language (RunFacts.summary)
        return [render("run.blank.empty" if run.empty else "run.blank.starter"), *run.refused_lines("en")]
    words = status_words(run) if run.status in STATUS_MESSAGES else f"The run ended with status {run.status}."
    if run.status == "timeout":
        words = f"{words} It was stopped {stopped_at(run, kind=kind, starts=starts, spec=spec)}."
    lines = [render("run.not_run", why=clean_message(render_said(run.refusal)))] if run.refusal is not None else []
    errors = [(i, clean_message(m)) for i, m in run.load_errors if isinstance(i, int)][:10]
    if errors and run.status == "ok":  # a syntax error ran nothing of its cell: never "ran to the end" alone
        words = render(RUN_HEADERS[all(is_syntax_error(m) for _, m in errors), kind != "py"], n=len(errors))
    lines.append(words)
    for index, message in errors:
        place = _place(index, kind, starts or {})
        if is_syntax_error(message):
            lines.append(render("run.cell_syntax_error", cell=place, error=message))
            continue
        # The starter code's own exception: what it means, so the student looks for the part not written yet.
        why = (
            ": it uses a part that still holds the starter code (raise NotImplementedError)"
            if message.startswith("NotImplementedError")
            else ""
        )
        lines.append(f"{place} raised {message}{why}")
    missing = [n for n in run.required_names if n not in run.defined]
    if missing and run.status in ("ok", "memory"):
        syntax = any(is_syntax_error(m) for _, m in errors)
        lines.append(render("run.not_defined_syntax" if syntax else "run.not_defined", names=", ".join(missing)))
    return lines + run.refused_lines("en")


# What the sandbox refused, by kind (``RunFacts.refused``), for the TA
_REFUSED = {"files": "tried to reach {what}", "call": "called {what}", "output": "flooded {what}"}


def refused_detail(run: RunFacts) -> str:
    """'tried to reach /work/course/solutions/weight_tying.py, /root; called ptrace; flooded stdout': what the
    sandbox refused the run, for *Needs a look*."""
    pairs = [e for e in run.refused if isinstance(e, (list, tuple)) and len(e) == 2 and e[0] in _REFUSED]
    parts = []
    for kind, words in _REFUSED.items():
        what = [str(w)[:200] for k, w in pairs if k == kind]
        if what:
            more = f" (+{len(what) - 4} more)" if len(what) > 4 else ""
            parts.append(words.format(what=", ".join(what[:4]) + more))
    return "; ".join(parts)


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


def page_words(language: str) -> dict[str, str]:
    """The pages' headings and labels (``outputs/messages_pages.py``) in `language`, by name (English for a
    language not listed)."""
    language = language if language in LANGUAGES else "en"
    return {key.removeprefix("page."): entry.template(language) for key, entry in PAGES.items()}


def areas_in_order(result: Result, spec: AssignmentSpec | None) -> list[tuple[str, tuple[float, float]]]:
    """(area, (points earned, points possible)) in the order the marking scheme lists the areas, the order of
    the notebook's points table (an area the scheme does not list last)."""
    order = in_scheme_order(result.areas, spec)
    return [(area, result.areas[area]) for area in order]


def in_scheme_order(areas: Iterable[str], spec: AssignmentSpec | None) -> list[str]:
    """`areas` in the order the marking scheme lists them (the notebook's), those it does not list after, as given."""
    order = list(spec.scheme.areas) if spec is not None else []
    return sorted(areas, key=lambda area: order.index(area) if area in order else len(order))
