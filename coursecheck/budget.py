"""Untrusted: how long the self-check may take: each cell and each check at most STEP_SECONDS, the whole run
RUN_SECONDS.

An endless loop in a try-it cell, or in ``generate`` while a check calls it, would otherwise make ``pytest`` wait
for ever and print nothing. So each step runs under a budget: when it is spent, the step is interrupted (on
Linux and macOS by a ``SIGALRM`` timer, elsewhere by an exception the watchdog thread raises in the main
thread); a stopped cell is recorded like a cell that raised and the cells after it still run, a stopped check
fails with a message that says so, and the self-check fails naming the cell (``stopped_cells``). Each message
names the line of your code that was running when the step was stopped (``Stop``): the loop that did not end.
Once the run's own budget is spent, each step left gets only ``FLOOR_SECONDS``: a cell that defines a class
still runs.

Code that cannot be interrupted (a long computation inside a library, or a loop that catches every exception)
is stopped harder: ``GRACE_SECONDS`` after its budget the self-check says which step it was and exits.

``$<NAME>_SECONDS`` (``WEIGHT_TYING_SECONDS`` for weight_tying) sets the whole run's budget on a slow machine
(each step gets a quarter of it). The notebook states STEP_SECONDS and RUN_SECONDS: the build reads them here.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from coursecheck.notebook import cell_at

from .words import Words

__all__ = [
    "RUN_SECONDS",
    "STEP_SECONDS",
    "Clock",
    "Stop",
    "TimeBudgetExceeded",
    "clock_from_environment",
    "seconds_words",
    "stopped_cells",
]

RUN_SECONDS = 120  # the whole self-check; a correct notebook takes a few seconds on a laptop
STEP_SECONDS = 30  # each cell and each check: ~10x the slowest correct one on a slow laptop
FLOOR_SECONDS = 1.0  # a step after the run's budget is spent
GRACE_SECONDS = 5.0  # after a step's budget, before an interrupt that did not land becomes an exit
REPEAT_SECONDS = 0.5  # between interrupts, for code that swallowed the first one


class TimeBudgetExceeded(Exception):
    """A cell ran past its budget and was stopped (raised after the cell, so the loader records it)."""


class _Stopped(BaseException):
    """Raised inside the student's code when its budget is spent: not an Exception, so ``except Exception`` in
    their loop does not swallow it. Each step raises a subclass of its own (its token)."""


@dataclass(frozen=True)
class Stop:
    """A step stopped at its budget: the budget, and the line of the student's code that was running then (the
    deepest frame in a notebook cell this self-check ran: its name and line; "" and 0 when none was running)."""

    seconds: float
    place: str = ""
    line: int = 0

    def words(self, tell: Callable[..., str], key: str, key_at: str, **more: object) -> str:
        """Message `key_at`, which names the line, when it is known (with `more` values), else `key` (`tell`: the
        assignment's)."""
        seconds = seconds_words(self.seconds)
        if not self.line:
            return tell(key, seconds=seconds)
        return tell(key_at, seconds=seconds, place=self.place, line=self.line, **more)


def _running_line(stopped: BaseException, words: Words) -> tuple[str, int]:
    """(cell name, line) of the deepest frame in a notebook cell when `stopped` was raised, or ("", 0)."""
    for frame in reversed(traceback.extract_tb(stopped.__traceback__)):
        place = cell_at(frame.filename)
        if place is not None and frame.lineno:
            return words.cell_name(place), frame.lineno
    return "", 0


def seconds_words(value: float) -> str:
    """Whole seconds (tenths below one)."""
    return f"{value:.0f}" if value >= 1 else f"{value:.1f}"


class Clock:
    """The self-check's clock, started now, and its steps' budgets (see the module's docstring); `words` say what
    was stopped in the assignment's words."""

    def __init__(self, words: Words, run_seconds: float = RUN_SECONDS) -> None:
        self.words = words
        self.run_seconds = float(run_seconds)
        self.step_limit = min(float(STEP_SECONDS), self.run_seconds / 4)
        self._start = time.monotonic()
        self._armed: type[_Stopped] | None = None  # the token of the step running now

    def step_seconds(self) -> float:
        """The next step's budget: its share, at most what is left of the run's, at least the floor."""
        left = self._start + self.run_seconds - time.monotonic()
        return max(FLOOR_SECONDS, min(self.step_limit, left))

    def run(self, what: str, call: Callable[[], Any]) -> tuple[Stop | None, Any]:
        """(None, call()), or (where and when it was stopped, None) when `call` was stopped. `what` names the step
        for the hard stop's message. Outside the main thread nothing can interrupt it: call() as it is."""
        if threading.current_thread() is not threading.main_thread():
            return None, call()
        seconds = self.step_seconds()
        token = type("Stopped", (_Stopped,), {})
        alarm = hasattr(signal, "setitimer")
        done = threading.Event()
        watchdog = threading.Thread(target=self._watch, args=(token, what, seconds, not alarm, done), daemon=True)
        previous = signal.signal(signal.SIGALRM, self._on_alarm) if alarm else None
        try:
            try:
                self._armed = token
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT_SECONDS)
                watchdog.start()
                return None, call()
            finally:
                self._armed = None  # first: an interrupt already on its way is ignored from here on
                done.set()
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, previous)
        except _Stopped as stopped:
            if not isinstance(stopped, token):
                raise
            return Stop(seconds, *_running_line(stopped, self.words)), None

    def cells(self, names: Mapping[int, str]) -> Callable[[int, Callable[[], None]], None]:
        """``coursecheck.notebook``'s ``run_cell``: each cell's code under its budget (`names`: cell index -> its name,
        for the hard stop's message). A stopped cell raises TimeBudgetExceeded, which the loader records as that
        cell's error before it runs the next one."""

        def run_cell(index: int, call: Callable[[], None]) -> None:
            stopped, _ = self.run(names.get(index) or self.words.tell("check.place.bare", number=index + 1), call)
            if stopped is not None:
                raise TimeBudgetExceeded(stopped.words(self.words.tell, "check.budget.cell", "check.budget.cell_at"))

        return run_cell

    def _on_alarm(self, signum, frame) -> None:
        token = self._armed
        if token is not None:
            raise token()

    def _watch(self, token: type[_Stopped], what: str, seconds: float, interrupt: bool, done: threading.Event) -> None:
        """The step's watchdog: once its budget is spent, raise the interrupt in the main thread where no timer
        signal can (Windows), again every REPEAT_SECONDS; GRACE_SECONDS later, stop the self-check."""
        if done.wait(seconds):
            return
        give_up = time.monotonic() + GRACE_SECONDS
        main = threading.main_thread().ident
        while time.monotonic() < give_up:
            if interrupt and self._armed is token:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(token))
            if done.wait(REPEAT_SECONDS):
                return
        if self._armed is token:
            sys.stdout.flush()
            said = self.words.tell("check.budget.hard_stop", what=what, seconds=seconds_words(seconds))
            sys.__stderr__.write(f"\n{said}\n")
            sys.__stderr__.flush()
            os._exit(1)


def clock_from_environment(words: Words, env_var: str) -> Clock:
    """A clock with the run's budget from $`env_var` (``<NAME>_SECONDS``), else RUN_SECONDS; ValueError for a bad
    value."""
    text = os.environ.get(env_var, "").strip()
    if not text:
        return Clock(words)
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise ValueError(f"{env_var}={text!r} is not a number of seconds: use e.g. {env_var}={RUN_SECONDS * 2}")
    return Clock(words, seconds)


def stopped_cells(errors: list[tuple[int, str]]) -> list[int]:
    """The cells the budget stopped, among a run's (cell index, "ExcType: message") errors."""
    return [index for index, message in errors if message.startswith(TimeBudgetExceeded.__name__ + ":")]
