"""The checks' machinery: each check runs once per submission, after the checks it needs, and says why.

A check is a function that raises `Failed(message)` or returns. `Session.outcome(name)` runs it the first
time it is asked for: when a check it needs has not passed, it is not run at all and reports "not checked
because ...", so one mistake gives one failure, not a cascade of misleading ones.
"""

from __future__ import annotations

import os
import re
import traceback
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch

from coursecheck.notebook import cell_at

from .budget import Clock, Stop
from .diagnosis import reread
from .language import cell_name, kernel_cell, language, tell
from .messages import area_name, render, render_said
from .said import verbatim

__all__ = ["Check", "Failed", "Outcome", "Session", "CHECKS", "check", "call", "attribute", "title", "student_raised"]

PASSED, FAILED, NOT_CHECKED = "passed", "failed", "not checked"


class Failed(AssertionError):
    """A check's verdict on the submission: the message names the misconception, in the student's language
    (rendered from the catalog with ``tell``); `key` and `params` are its catalog id and values, for a check that
    tells failures apart whatever the language (``english``)."""

    def __init__(self, message: str, key: str = "", params: dict | None = None) -> None:
        super().__init__(message)
        self.key, self.params = key, dict(params or {})

    def english(self) -> str:
        """The message in English (what a check's logic reads), whatever language it is shown in."""
        return render(self.key, "en", **self.params) if self.key else str(self)


@dataclass(frozen=True)
class Check:
    name: str  # the self-check's test name, e.g. "test_tied_forward_returns_logits"
    cls: str  # the class it builds: "TiedEmbeddingLM" or "MiniGPTWithWeightTying"
    group: str  # the notebook's practice cell that runs it
    area: str  # the graded area of the hidden suite it previews
    section: int  # the notebook section to reread when it fails
    title: str  # what a pass means, one line
    run: Callable[[type], None]
    needs: tuple[str, ...] = ()  # checks that must pass first


@dataclass
class Outcome:
    status: str  # PASSED, FAILED or NOT_CHECKED
    message: str = ""  # already in the student's language
    raised: bool = False  # the student's code raised while the check ran (a stub's NotImplementedError aside)

    @property
    def passed(self) -> bool:
        return self.status == PASSED


CHECKS: dict[str, Check] = {}  # in the order they were declared: exercise 1, then exercise 2


def check(*, cls: str, group: str, area: str, section: int, title: str, needs: tuple[str, ...] = ()):
    """Declare a check; the function's name is the test's name."""

    def register(fn: Callable[[type], None]) -> Callable[[type], None]:
        if fn.__name__ in CHECKS:
            raise ValueError(f"two checks are called {fn.__name__}: rename one")
        unknown = [n for n in needs if n not in CHECKS]
        if unknown:
            raise ValueError(f"{fn.__name__} needs {unknown}, which are not declared before it")
        CHECKS[fn.__name__] = Check(fn.__name__, cls, group, area, section, title, fn, tuple(needs))
        return fn

    return register


# ---------------------------------------------------------------------------------------- running checks


@dataclass
class Session:
    """One submission's classes (name -> class, or None when the notebook did not define it)."""

    classes: Mapping[str, object]
    missing: Mapping[str, str] = field(default_factory=dict)  # class name -> why it is not defined
    clock: Clock | None = None  # each check's time budget (the pytest self-check's; none in a practice cell)
    _done: dict[str, Outcome] = field(default_factory=dict)

    def outcome(self, name: str) -> Outcome:
        if name not in self._done:
            self._done[name] = self._run(CHECKS[name])
        return self._done[name]

    def blocker(self, name: str) -> str | None:
        """The failed check that keeps `name` from being checked (following the chain of needs), or None."""
        for need in CHECKS[name].needs:
            outcome = self.outcome(need)
            if outcome.status == FAILED:
                return need
            if outcome.status == NOT_CHECKED:
                return self.blocker(need)
        return None

    def _run(self, chk: Check) -> Outcome:
        for need in chk.needs:
            if not self.outcome(need).passed:
                reason = tell("check.waits", need=title(CHECKS[need]))
                return Outcome(NOT_CHECKED, reason)
        cls = self.classes.get(chk.cls)
        if cls is None:
            if chk.needs:  # the first check of this class already says why
                return Outcome(NOT_CHECKED, tell("check.undefined_not_checked", cls=chk.cls))
            missing = self.missing.get(chk.cls) or tell("check.undefined", cls=chk.cls)
            return Outcome(FAILED, _reread(missing, chk))  # nothing of the class to grade: no area named
        raised_before = _RAISED[0]
        with warnings.catch_warnings(), torch.random.fork_rng():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # tiny models: threads only cost time on a busy laptop
            try:
                stopped = self._within(chk, cls)
                if stopped is None:
                    return Outcome(PASSED, raised=_RAISED[0] != raised_before)
                message = stopped.words("check.budget.check", "check.budget.check_at")
            except Failed as failure:
                message = _without_the_answer(str(failure))
                if failure.key == "checkfail.not_implemented":  # the starter code: no area of it is written yet
                    return Outcome(FAILED, _reread(message, chk), _RAISED[0] != raised_before)
            finally:
                torch.set_num_threads(threads)
        raised = _RAISED[0] != raised_before
        # One layout for every failure: the message, where to reread at its end (the diagnosis may say it already),
        # then the graded area on a line of its own.
        area = tell("check.area", area=area_name(chk.area, language()))
        return Outcome(FAILED, f"{_reread(message, chk)}\n{area}", raised)

    def _within(self, chk: Check, cls: type) -> Stop | None:
        """Run the check, within its time budget when there is a clock: None, or where it was stopped."""
        if self.clock is None:
            chk.run(cls)
            return None
        return self.clock.run(title(chk), lambda: chk.run(cls))[0]


# How the diagnosis opens "(reread section 7, ...)" in each language.
_REREAD = {lang: render("diag.reread", lang, sections="\0").split("\0")[0] for lang in ("en", "zh")}


def _reread(message: str, chk: Check) -> str:
    """`message` ending with where to reread: the diagnosis's own section(s) when it names them, else the check's
    (a Chinese sentence ended once: the catalog's joining of two messages)."""
    if _REREAD[language()] in message:
        ended = message
    else:
        ended = render_said(verbatim(message) + reread(chk.section), language())
    if language() == "zh" and ended and ended[-1] not in "。！？：”）":
        ended += "。"
    return ended


def title(chk: Check) -> str:
    """What a pass of `chk` means, in the student's language."""
    return tell(f"check.title.{chk.name}")


# The grader's diagnosis may end a hint with the tie line itself; a hint names the mistake, not the answer.
_ANSWER = re.compile(r"[.;,]?\s*[Aa]ssign the Parameter itself: lm_head\.weight = token_embed\.weight")


def _without_the_answer(message: str) -> str:
    return _ANSWER.sub("", message)


# ------------------------------------------------------------------------------ calling student code


def _where(error: BaseException) -> dict:
    """{"place": "cell 17 (in “...”, starting “...”)", "line": 4} for the deepest frame of the student's own code:
    a cell the self-check ran, or one the notebook's kernel ran (a practice cell: "the cell marked [5] ...", never
    IPython's file name for it); {"file": ..., "line": ...} for a file; {} for none."""
    library = (os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)))
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not f.filename.startswith(library) and "/dnnlpy/" not in f.filename.replace(os.sep, "/")
    ]
    if not frames:
        return {}
    last = frames[-1]
    place = cell_at(last.filename)
    named = cell_name(place) if place is not None else kernel_cell(last.filename)
    if named:
        return {"place": named, "line": last.lineno}
    return {"file": os.path.basename(last.filename), "line": last.lineno}


_RAISED = [0]  # how many times the student's code has raised while checked (a stub aside): Outcome.raised


def student_raised() -> None:
    """Note that the student's code raised (a check that catches such an error itself calls this)."""
    _RAISED[0] += 1


def call(what: str, fn: Callable, *args, **kwargs):
    """Run the student's code; a stub or an exception becomes one short Failed message, never a traceback."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        stub = what.split("(")[0]  # "TiedEmbeddingLM(vocab_size=20, ...)" is the class's __init__
        key, params = "checkfail.not_implemented", {"what": stub}
    except Exception as error:  # the student's bug: name it in one line
        student_raised()
        first = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
        where = _where(error)
        key = (
            "checkfail.raised_in_cell"
            if "place" in where
            else "checkfail.raised_in_file"
            if where
            else "checkfail.raised"
        )
        params = {"what": what, "error": type(error).__name__, "message": first, **where}
    raise Failed(tell(key, **params), key, params)  # outside the except block: no "During handling of ..." chain


def attribute(obj: object, name: str, owner: str):
    """obj.<name>, or a Failed message naming the contract."""
    if not hasattr(obj, name):
        raise Failed(tell("checkfail.no_attribute", owner=owner, name=repr(name), attr=name))
    return getattr(obj, name)
