"""Untrusted: time budgets inside the run's limit, so that a hang costs what hangs.

The sandbox stops a whole run at its wall-clock limit W (the runner reads it from ``RUN_SECONDS_ENV``): on
its own, one endless loop in a notebook's try-it cell would stop everything after it, and a submission whose
exercise 1 is perfect would get 0. Here each cell, then each experiment, runs under a budget of its own,
counted from when the runner has its job (torch imported: the same on the fresh and the warm path). When a
budget is spent, a ``SIGALRM`` timer (``setitimer``) interrupts the main thread: the cell is recorded as
failing (``TimeBudgetExceeded``) and loading goes on, or the experiment reports ``{"error": ...,
"stopped": seconds}`` and the next experiment runs. The budgets, as parts of W:

    kept back        10 % (at least 2 s) for the last frames, and the time the process ran before the
                     budgets' clock (torch's import on the fresh path: seconds on a loaded machine)
    each cell        what is left of the first 20 % of W (the cells together), past that the floor (W/60,
                     at least 0.5 s: a later cell that only defines a class still runs)
    each experiment  its share of what is left before W minus the part kept back (the time left divided
                     by the experiments left, so an earlier hang never starves a later experiment), at most
                     W/4 (~10x what the slowest experiment of a correct file takes on a loaded machine), at
                     least the floor

So the budgets add up to W minus the part kept back; only floor budgets given after the time is spent can
reach past it, and then the sandbox's limit applies as before.

This is help for an honest submission, not a limit: student code can defeat it (catch the interrupt in a
loop, replace the signal handler, block in C: a huge torch op is not interrupted until it returns), and then
the sandbox's limit stops the run as it always did. Nothing it reports earns a point: a stopped experiment's
record is an error, and the tests that need it fail and cost their points (the judge's words say why,
``autograder.grading.judge.suite_api.entry``); a record that claims to have been stopped is worth no more than any
other error.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "Budgets",
    "TimeBudgetExceeded",
    "STOPPED",
    "RUN_SECONDS_ENV",
    "from_environment",
    "process_age",
    "running",
    "within",
]

RUN_SECONDS_ENV = "AUTOGRADER_RUN_SECONDS"  # the run's wall-clock limit, set by the sandbox's config
STOPPED = "stopped"  # the key of a stopped experiment's record: the budget it had, in seconds
KEEP_BACK, LOAD_SHARE, EXPERIMENT_SHARE = 0.10, 0.20, 0.25
MIN_KEEP_BACK = 2.0
REPEAT = 0.5  # seconds between interrupts once a budget is spent (code that swallowed the first one)


class TimeBudgetExceeded(Exception):
    """A cell ran past its budget and was stopped (raised by the runner after the cell, never inside it)."""


class _Interrupt(BaseException):
    """Raised inside the student's code when a budget is spent: not an Exception, so ``except Exception``
    in their loop does not swallow it."""

    def __init__(self, token: object) -> None:
        super().__init__("time budget spent")
        self.token = token


def _words(seconds: float) -> str:
    """Whole seconds (a budget's tenths depend on how long the cells before it took)."""
    return f"{seconds:.0f}" if seconds >= 1 else f"{seconds:.1f}"


class Budgets:
    """The run's clock (started now) and the budgets of its cells and experiments; see the module docstring."""

    def __init__(self, run_seconds: float, *, clock: Callable[[], float] = time.monotonic, before: float = 0.0) -> None:
        """`before`: the seconds of the run's limit already spent when this clock starts."""
        if not (isinstance(run_seconds, (int, float)) and math.isfinite(run_seconds) and run_seconds > 0):
            raise ValueError(f"run_seconds={run_seconds!r}: give the run's wall-clock limit in seconds, e.g. 60")
        self.run_seconds = float(run_seconds)
        self.before = min(max(0.0, float(before)), self.run_seconds)
        self._clock = clock
        self._start = clock()
        self._armed: object | None = None  # the token of the budget running now

    @property
    def floor(self) -> float:
        return max(0.5, self.run_seconds / 60)

    def _left(self, until: float) -> float:
        return self._start + until - self._clock()

    def cell_seconds(self) -> float:
        """The next cell's budget."""
        return max(self.floor, self._left(LOAD_SHARE * self.run_seconds))

    def experiment_seconds(self, left: int) -> float:
        """The budget of the next experiment, with `left` experiments (this one included) still to run."""
        keep = max(MIN_KEEP_BACK, KEEP_BACK * self.run_seconds)
        share = self._left(self.run_seconds - keep - self.before) / max(1, int(left))
        return max(self.floor, min(EXPERIMENT_SHARE * self.run_seconds, share))

    def run(self, call: Callable[[], Any], seconds: float) -> tuple[bool, Any]:
        """(False, call()), or (True, None) when `call` was still running after `seconds` and was stopped.
        Outside the main thread nothing can interrupt it: call() as it is."""
        if threading.current_thread() is not threading.main_thread():
            return False, call()
        token = object()
        try:
            try:
                self._arm(token, seconds)
                return False, call()
            finally:
                self._disarm()
        except _Interrupt as exc:
            self._disarm()
            if exc.token is not token:
                raise
            return True, None

    def _on_alarm(self, signum, frame) -> None:
        token = self._armed
        if token is not None:
            raise _Interrupt(token)

    def _arm(self, token: object, seconds: float) -> None:
        signal.signal(signal.SIGALRM, self._on_alarm)  # again each time: the student's code may have replaced it
        self._armed = token
        signal.setitimer(signal.ITIMER_REAL, max(0.01, seconds), REPEAT)

    def _disarm(self) -> None:
        self._armed = None  # first: an alarm already on its way is ignored from here on
        signal.setitimer(signal.ITIMER_REAL, 0)

    def cell(self, index: int, call: Callable[[], None]) -> None:
        """Run one cell's code under its budget (``coursecheck.notebook``'s ``run_cell``); a stopped cell raises
        TimeBudgetExceeded, which the loader records as that cell's error before it runs the next one."""
        seconds = self.cell_seconds()
        stopped, _ = self.run(call, seconds)
        if stopped:
            raise TimeBudgetExceeded(
                f"this cell was stopped after {_words(seconds)} s, its share of the run's {_words(self.run_seconds)} s "
                "time limit (an endless loop, or a very long computation?); the cells after it still ran"
            )

    def experiment(self, name: str, call: Callable[[], Any], left: int) -> Any:
        """call()'s record, or a stopped experiment's error record when it ran past its budget."""
        seconds = self.experiment_seconds(left)
        stopped, record = self.run(call, seconds)
        if not stopped:
            return record
        return {
            "error": f"TimeBudgetExceeded: {name} was stopped after {_words(seconds)} s, its share of the run's "
            f"{_words(self.run_seconds)} s time limit",
            STOPPED: round(seconds, 1),
        }


_ACTIVE: list[Budgets] = []  # the budgets of the run in progress (none: experiments run unbudgeted)


def process_age() -> float:
    """Seconds since this process started (the sandbox's clock started then: the jail's fork, which the fresh
    path's interpreter replaces; the warm path's fork), or 0.0 when /proc does not say."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            text = stat.read()
        started = int(text[text.rindex(b")") + 2 :].split()[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def from_environment() -> Budgets | None:
    """The run's budgets from the limit the sandbox states, or None when it states none (or nonsense)."""
    try:
        return Budgets(float(os.environ.get(RUN_SECONDS_ENV, "")), before=process_age())
    except ValueError:
        return None


@contextlib.contextmanager
def running(budgets: Budgets | None) -> Iterator[Budgets | None]:
    """Experiments run inside this block use `budgets` (``within``); None: no budgets."""
    _ACTIVE.append(budgets)
    try:
        yield budgets
    finally:
        _ACTIVE.pop()


def within(name: str, call: Callable[[], Any], left: int) -> Any:
    """Run one experiment (`call`, which returns its record) under the active budgets, `left` experiments
    (this one included) still to run; call() as it is when no budgets are active."""
    budgets = _ACTIVE[-1] if _ACTIVE else None
    return call() if budgets is None else budgets.experiment(name, call, left)
