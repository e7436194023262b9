"""Untrusted: ``pytest`` in a released folder: the self-check's hooks, fixtures and tests, for any assignment.

A release's ``conftest.py`` makes one ``Run`` of its assignment's self-check and names its hooks and fixtures;
its ``test_<name>.py`` takes the tests ``as_tests(self_check)`` makes: first, that every cell ran within the
self-check's time budget; then one test per check, in the order they were declared. A failing test names the
misconception and the notebook section to reread; a test that needs an earlier one to pass first is reported
as not checked yet. The summary at the end says what waits (one heading for each check waited on), which cells
raised (counted in pytest's last line too), and what this self-check covers and what only the hidden suite checks:
in full once every check passes or with ``pytest -v``, in one line while something is left to fix.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

from .budget import stopped_cells
from .demos import Loaded
from .selfcheck import find_submission

__all__ = ["Run", "as_tests"]


class Run:
    """One ``pytest`` run of `checks` on the submission in `folder` (the release's folder, its notebook by
    default): found and run once, when pytest is configured; a missing file or a bad setting is one clear
    error, not N failures."""

    def __init__(self, checks, folder: Path) -> None:
        self.checks = checks
        self.folder = Path(folder)
        self.path: Path | None = None
        self._loaded: Loaded | None = None
        self.raised: list[int] = []  # the cells that raised (not stopped at their budget), once summed up
        # The tests' fixtures, for the conftest to name (plain functions: pytest's fixtures are not methods).
        self.checks_fixture = pytest.fixture(scope="session", name="checks")(lambda: self.loaded().session)
        self.stopped_fixture = pytest.fixture(scope="session", name="stopped")(lambda: self.stopped())

    def pytest_configure(self, config) -> None:
        """The submission runs as the grader runs it: every cell but the demonstrations as released that nothing
        needs (``coursecheck.demos``)."""
        words, assignment = self.checks.words, self.checks.assignment
        manager = getattr(config, "pluginmanager", None)  # None: the loading alone, run by the kit's tests
        if manager is not None and not manager.has_plugin("coursecheck-told"):
            manager.register(_Told(self), "coursecheck-told")
        try:
            words.language()  # a bad $<NAME>_LANG is named before anything runs (in English: no language yet)
            clock = self.checks.clock()
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
        try:
            path = find_submission(self.folder, default_name=assignment.notebook, env_var=self.env_var)
            loaded = self.checks.load(path, clock)
        except (FileNotFoundError, ValueError) as error:
            problem = words.unloadable(error)
        else:
            problem = None
        if problem is not None:  # raised outside the except block: no chained traceback
            raise pytest.UsageError(problem)
        self.path, self._loaded = path, loaded

    @property
    def env_var(self) -> str:
        return self.checks.assignment.setting("SUBMISSION")

    def loaded(self) -> Loaded:
        """The run whose checks are reported."""
        if self._loaded is None:
            raise RuntimeError("the self-check's run is made when pytest is configured: no pytest_configure ran")
        return self._loaded

    def pytest_report_header(self, config):
        words = self.checks.words
        return words.tell(words.own("header"), path=self.path, var=self.env_var) if self.path else None

    def stopped(self) -> str:
        """Why the notebook did not run in time: the cells stopped at their time budget, named ("" when none was)."""
        loaded = self.loaded()
        cells = stopped_cells(loaded.errors)
        if not cells:
            return ""
        seconds = f"{loaded.clock.step_limit:.0f}" if loaded.clock is not None else "?"
        lines = [self.checks.words.tell("check.budget.cells_stopped", count=len(cells), seconds=seconds)]
        listed = [f"  {loaded.cell(index)}" for index in cells]
        return "\n".join([*lines, *listed, self.checks.words.tell("check.raised.note")])  # how they are counted

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config) -> None:
        if self._loaded is not None:
            self.raised = self._summary(terminalreporter, config)
            # last: it narrows the rules drawn after; counted in pytest's line only where no line of the edition's does
            counted = self.checks.words.language() == "en"
            _tally(terminalreporter, self.checks.words.render, self.raised, counted=counted)

    def told(self, failed: bool) -> str:
        """The cells that raised, counted in the edition's words for the line above pytest's last one ("" in
        English, and when none raised: that line counts them in English); `failed`: a test failed too, so they
        come besides those failures."""
        words, raised = self.checks.words, self.raised
        if not raised or words.language() == "en":
            return ""
        key = "check.raised.told" if failed else "check.raised.told_alone"
        return words.tell(key, count=len(raised), section=words.tell("check.raised.section"))

    def _summary(self, terminalreporter, config) -> list[int]:
        """The summary's sections; the cells that raised (not stopped at their time budget), for pytest's last
        line to count."""
        write, tell, title, own = (
            terminalreporter.write_line,
            self.checks.words.tell,
            self.checks.title,
            self.checks.words.own,
        )
        checks = self.checks.checks
        loaded = self.loaded()
        session = loaded.session
        waiting: dict[str, list[str]] = {}  # failed check -> the checks that wait for it
        for name in checks:
            if session.outcome(name).status == "not checked":
                waiting.setdefault(session.blocker(name) or "?", []).append(name)
        for n, (blocker, names) in enumerate(waiting.items()):  # one heading says what each group waits for
            stub = session.outcome(blocker).unwritten if blocker in checks else ""
            need = {"what": stub} if stub else {"need": title(checks[blocker]) if blocker in checks else blocker}
            kind = "unwritten" if stub else "check"
            # a heading short enough for its rule; a check's title, a sentence, on the line under it
            alone = len(waiting) == 1 and kind == "unwritten"
            if alone:
                _section(terminalreporter, tell("check.waiting.one_unwritten", **need))
            else:
                if n == 0:
                    _section(terminalreporter, tell("check.waiting.section"))
                write(tell(f"check.waiting.{kind}", **need))
            for name in names:  # by their titles: a test's function name is not the student's word
                write(f"{'  ' if alone else '    '}- {title(checks[name])}")
        missing = set(session.missing)
        errors = [(i, m) for i, m in loaded.errors if not missing]  # already shown in the failure otherwise
        stopped: set[int] = set()
        if errors:
            _section(terminalreporter, tell("check.raised.section"))
            stopped = set(stopped_cells(errors))
            for index, message in errors[:8]:
                if index in stopped:  # the self-check's own words after the exception's name, not the student's
                    write(tell("check.cell_stopped", place=loaded.cell(index), why=message.partition(":")[2].strip()))
                    continue
                write(loaded.raised(index, message))
            if len(errors) > 8:
                write(tell("check.raised.more", count=len(errors) - 8))
            stub = any(message.partition(":")[0].strip() == "NotImplementedError" for _, message in errors)
            write(tell("check.raised.note_stub" if stub else "check.raised.note"))
        raised = [index for index, _ in errors if index not in stopped]
        passed = all(session.outcome(name).status == "passed" for name in checks) and not loaded.errors
        if not (passed or config.get_verbosity() > 0):  # what is left to fix comes first: the list once it helps
            _section(terminalreporter, tell("check.covers.section_short"))  # counted, not listed: titled so
            write(tell("check.covers.short", n=len(checks) + 1))  # pytest's count: the cells in time, then each check
            return raised
        _section(terminalreporter, tell("check.covers.section"))
        write(tell("check.covers.in_time"))
        write(tell(own("covers.here")))
        for chk in checks.values():
            write(f"  - {title(chk)}")
        write(tell("check.covers.hidden"))
        for line in self.checks.assignment.covers:
            write(f"  - {tell(own(f'covers.{line}'))}")
        write(tell("check.covers.points"))
        return raised


class _Told:
    """Outermost around pytest's own summary (registered by ``Run.pytest_configure``): what it writes after the
    yield is the last line before pytest's, which is English in every edition."""

    def __init__(self, run: Run) -> None:
        self.run = run

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter):
        result = yield
        if line := self.run.told(
            failed=bool(terminalreporter.stats.get("failed") or terminalreporter.stats.get("error"))
        ):
            terminalreporter.write_line(line)
        return result


def _tally(terminalreporter, render, cells: list[int], *, counted: bool) -> None:
    """The cells that raised, in pytest's stats: a kind of its own turns its last line yellow, since a green
    "17 passed" under them reads as all clear. `counted`: that line counts them too ("17 passed, 1 cell raised in
    0.8s"), in English; an edition that counts them in its own words on the line above leaves them off pytest's
    (its line is English in every edition, and an English count on a Chinese run is the kit's, not pytest's). A
    cell stopped at its time budget is left out: the first test's failure counts it. No test fails for the others:
    the grader lists them too, and takes no points for them."""
    if cells:
        words = render("check.raised.tally" if len(cells) == 1 else "check.raised.tally_many", "en")
        terminalreporter.stats.setdefault(words, []).extend(RaisedCell(index, counted) for index in cells)
        # pytest draws that line's rule by counting characters: as wide as the terminal once its own are counted
        writer = terminalreporter.config.get_terminal_writer()
        writer.fullwidth = max(writer.fullwidth - _wide(words), 40)


@dataclass
class RaisedCell:
    """One entry of pytest's stats for a cell that raised: an object as other plugins expect a report to be (one
    with attributes: hypothesis's summary reads each entry's ``__dict__``), counted in the last line when
    ``count_towards_summary`` is true."""

    index: int  # the cell's index in the notebook
    count_towards_summary: bool = True


def _section(terminalreporter, title: str) -> None:
    """A section's heading ("==== title ===="), its rule as wide as the terminal: pytest counts the title's
    characters, and a Chinese character takes two columns."""
    width = terminalreporter.config.get_terminal_writer().fullwidth
    terminalreporter.write_sep("=", title, fullwidth=max(width - _wide(title), len(title) + 4))


def _wide(text: str) -> int:
    """How many of `text`'s characters take two columns (a Chinese character does)."""
    return sum(1 for char in text if unicodedata.east_asian_width(char) in "WF")


def as_tests(self_check) -> dict:
    """test name -> test function, for a release's test module: every cell in time, then one per check (each
    takes the ``checks`` fixture: the session)."""

    def test_every_cell_finishes_in_time(stopped):
        """Every cell of the notebook finishes within the self-check's time budget."""
        if stopped:
            pytest.fail(stopped, pytrace=False)

    made = {test_every_cell_finishes_in_time.__name__: test_every_cell_finishes_in_time}
    for name in self_check.checks:
        made[name] = _test_for(self_check, name)
    return made


def _test_for(self_check, name: str):
    def test(checks):
        outcome = checks.outcome(name)
        if outcome.status == "failed":
            pytest.fail(outcome.message, pytrace=False)
        if outcome.status == "not checked":
            pytest.skip(outcome.message)

    test.__name__ = test.__qualname__ = name
    test.__doc__ = self_check.checks[name].title
    return test
