"""Untrusted: the checks' machinery: each check runs once per submission, after the checks it needs, and says why.

A check is a function that raises `Failed(message)` or returns, declared with its assignment's ``check`` (the
function's name is the self-check's test name). `Session.outcome(name)` runs it the first time it is asked for:
when a check it needs has not passed, it is not run at all and reports "not checked because ...", so one mistake
gives one failure, not a cascade of misleading ones. A failure ends with the notebook section to reread (the
assignment's ``reread``) and, on a line of its own, the graded area it previews. A check that stopped at the
starter code (``raise NotImplementedError()``) is no mistake: it says what is not written yet and where the
notebook sets the task (the assignment's ``see``), and the checks that wait for it say so (``Outcome.unwritten``).
A mistake is explained once: a check that fails with the same opening message as the check just above it in its
practice cell says it short, as "the same mistake as the check above" (the catalog's ``<id>.again``, when it has
one); so does a check whose failure names the mistake (the catalog's ``names``) the check above it named.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from .budget import Clock, Stop

__all__ = ["Check", "Failed", "Outcome", "Session", "PASSED", "FAILED", "NOT_CHECKED"]

PASSED, FAILED, NOT_CHECKED = "passed", "failed", "not checked"


class Failed(AssertionError):
    """A check's verdict on the submission: the message names the misconception, in the student's language
    (rendered from the catalog with ``tell``); `key` and `params` are its catalog id and values, and `english`
    its English, for a check that tells failures apart whatever the language (``english()``); `said`, the
    message as a value (the catalog's ``Said``), when the check made it of several."""

    def __init__(
        self, message: str, key: str = "", params: dict | None = None, english: str = "", said: object = None
    ) -> None:
        super().__init__(message)
        self.key, self.params, self._english, self.said = key, dict(params or {}), english, said

    def english(self) -> str:
        """The message in English (what a check's logic reads), whatever language it is shown in."""
        return self._english or str(self)


@dataclass(frozen=True)
class Check:
    name: str  # the self-check's test name, e.g. "test_tied_forward_returns_logits"
    cls: str  # the class (or function) it builds from, one of the assignment's names
    group: str  # the notebook's practice cell that runs it
    area: str  # the graded area of the hidden suite it previews
    section: int  # the notebook section to reread when it fails
    title: str  # what a pass means, one line (the catalog's <ids>title.<name> in English)
    run: Callable[[type], None]
    needs: tuple[str, ...] = ()  # checks that must pass first


@dataclass
class Outcome:
    status: str  # PASSED, FAILED or NOT_CHECKED
    message: str = ""  # already in the student's language
    unwritten: str = ""  # FAILED at the starter code: the class or method not written yet ("TiedEmbeddingLM")

    @property
    def passed(self) -> bool:
        return self.status == PASSED


@dataclass
class Session:
    """One submission's classes (name -> class, or None when the notebook did not define it), checked by the
    assignment's self-check `checks`."""

    checks: Any  # the assignment's SelfCheck (coursecheck.assignment), which imports this module
    classes: Mapping[str, object]
    missing: Mapping[str, str] = field(default_factory=dict)  # class name -> why it is not defined
    clock: Clock | None = None  # each check's time budget (the pytest self-check's; none in a practice cell)
    _done: dict[str, Outcome] = field(default_factory=dict)
    _told: dict[str, str] = field(default_factory=dict)  # check name -> the id of its failure's opening message
    _named: dict[str, str] = field(default_factory=dict)  # check name -> the mistake its failure named

    def outcome(self, name: str) -> Outcome:
        if name not in self._done:
            self._done[name] = self._run(self.checks.checks[name])
        return self._done[name]

    def blocker(self, name: str) -> str | None:
        """The failed check that keeps `name` from being checked (following the chain of needs), or None."""
        for need in self.checks.checks[name].needs:
            outcome = self.outcome(need)
            if outcome.status == FAILED:
                return need
            if outcome.status == NOT_CHECKED:
                return self.blocker(need)
        return None

    def unwritten(self, name: str) -> str:
        """The class or method not written yet that check `name` stopped at, or waits for; "" when none."""
        outcome = self.outcome(name)
        if outcome.status == NOT_CHECKED:
            blocker = self.blocker(name)
            return self.outcome(blocker).unwritten if blocker is not None else ""
        return outcome.unwritten

    def _run(self, chk: Check) -> Outcome:
        own, words = self.checks, self.checks.words
        for need in chk.needs:
            if not self.outcome(need).passed:  # named by the check that failed, not one that waits in turn
                blocker = self.blocker(chk.name) or need
                stub = self.outcome(blocker).unwritten
                if stub:
                    return Outcome(NOT_CHECKED, words.tell("check.waits_unwritten", what=stub))
                return Outcome(NOT_CHECKED, words.tell("check.waits", need=own.title(own.checks[blocker])))
        cls = self.classes.get(chk.cls)
        if cls is None:
            if chk.needs:  # the first check of this class already says why
                return Outcome(NOT_CHECKED, words.tell("check.undefined_not_checked", cls=chk.cls))
            missing = self.missing.get(chk.cls) or words.tell("check.undefined", cls=chk.cls)
            return Outcome(FAILED, own.reread(missing, chk))  # nothing of the class to grade: no area named
        with warnings.catch_warnings(), torch.random.fork_rng():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # tiny models: threads only cost time on a busy laptop
            try:
                stopped = self._within(chk, cls)
                if stopped is None:
                    return Outcome(PASSED)
                # the cell it names is counted as the note says: the check's message is read on its own
                note = words.catalog.Said("check.cells_counted")
                message = stopped.words(words.tell, "check.budget.check", "check.budget.check_at", note=note)
            except Failed as failure:
                message = own.without_the_answer(str(failure))
                if failure.key == "checkfail.not_implemented":  # the starter code: not written yet, no mistake
                    return Outcome(FAILED, own.see(message, chk), unwritten=str(failure.params["what"]))
                opening = words.opening(failure)
                mistake, above = words.mistake(opening), self._above(chk)
                # explained just above (the same message, or the check above named its cause): said short, as the
                # same mistake as the check above, if it can; a mistake told further up is said in full again
                if opening and (
                    self._told.get(above) == opening or words.same_mistake(self._named.get(above), mistake)
                ):
                    message = own.without_the_answer(words.again(failure)) or message
                self._told[chk.name] = opening
                if mistake:
                    self._named[chk.name] = mistake
            finally:
                torch.set_num_threads(threads)
        # One layout for every failure: the message, where to reread at its end (the diagnosis may say it already),
        # then the graded area on a line of its own.
        area = words.tell("check.area", area=words.area(chk.area))
        return Outcome(FAILED, f"{own.reread(message, chk)}\n{area}")

    def _above(self, chk: Check) -> str:
        """The check declared just before `chk` in its practice cell (the line above it there, and the test
        before it in the pytest self-check), "" for the first."""
        cell = [c.name for c in self.checks.checks.values() if c.group == chk.group]
        at = cell.index(chk.name)
        return cell[at - 1] if at else ""

    def _within(self, chk: Check, cls: type) -> Stop | None:
        """Run the check, within its time budget when there is a clock: None, or where it was stopped."""
        if self.clock is None:
            chk.run(cls)
            return None
        return self.clock.run(self.checks.title(chk), lambda: chk.run(cls))[0]
