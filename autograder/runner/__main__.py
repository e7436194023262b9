"""Untrusted: load one submission and run its grader's experiments on it, writing evidence frames.

Started inside the sandbox as ``python -m autograder.runner EVIDENCE_FD``. Reads the job (one frame, as the
judge's ``autograder.grading.pipeline.job`` writes it) from stdin, so it never opens the submission or any grader
file, and writes evidence frames to EVIDENCE_FD (see ``autograder.protocol.frames``). Student code shares this
process and may forge or break anything here; the judge trusts none of it beyond plain, re-checked data.

A watchdog thread says where the time goes: a cell or a check that has run for ``SLOW`` seconds is reported
once in a ``__running__N`` record (at most ``MAX_RUNNING`` of them), so a run stopped at the time limit
names the cell or the check that was running. It only shapes the timeout's message, never points.

Inside the run's limit, each cell and each experiment has a time budget of its own (``budget``): a cell or an
experiment that hangs is stopped there and recorded as failing, and the rest still runs and is graded. What the
run tried that the sandbox may have refused (files outside its view, a refused call) is watched (``refusals``)
and sent once, before ``__done__``.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from autograder.protocol.frames import (
    JOB,
    MAX_RUNNING,
    PLAN_PART,
    Done,
    ExperimentsError,
    FrameWriter,
    Load,
    Refused,
    Running,
    read_frame,
)
from autograder.runner import budget, library, refusals

__all__ = ["load_submission", "main", "Progress", "SLOW"]

SLOW = 2.0  # seconds a cell or a check runs before the watchdog reports it


class Progress:
    """The step running now (a cell, or a check) and a daemon thread that reports a slow one once."""

    def __init__(self, emit: Callable[[str, dict], None], *, slow: float = SLOW, poll: float = 0.25) -> None:
        self._emit, self._slow, self._poll = emit, slow, poll
        self._step: tuple[int, str, float] | None = None  # (cell, check, started), replaced whole
        self._sent = 0
        self._stopped = threading.Event()
        self._lock = threading.Lock()  # a report is written whole, or not after stop()
        threading.Thread(target=self._watch, name="progress", daemon=True).start()

    def stop(self) -> None:
        """No report after this returns (the run's last frames are its own)."""
        with self._lock:
            self._stopped.set()

    def cell(self, index: int) -> None:
        self._step = (int(index), "", time.monotonic())

    def check(self, name: str) -> None:
        self._step = (-1, str(name)[:80], time.monotonic())

    def _watch(self) -> None:
        reported = None
        while self._sent < MAX_RUNNING and not self._stopped.wait(self._poll):
            step = self._step
            if step is None or step is reported or time.monotonic() - step[2] < self._slow:
                continue
            reported = step
            with self._lock:
                if self._stopped.is_set():
                    return
                self._emit(f"{Running.NAME}{self._sent}", Running.make(cell=step[0], check=step[1]))
            self._sent += 1


class _Writer(FrameWriter):
    """The evidence channel shared by two threads (one whole frame at a time) that tells `progress` which
    check runs next, in the experiments module's ``EXPERIMENTS`` order. A FrameWriter still: what runs in
    this process sees the channel it always saw."""

    def __init__(self, fd: int) -> None:
        super().__init__(fd)
        self.lock = threading.Lock()
        self.order: list[str] = []
        self.done: set[str] = set()
        self.progress: Progress | None = None

    def __call__(self, name: str, record: dict) -> None:
        with self.lock:
            super().__call__(name, record)
        if self.order and name in self.order:
            self.done.add(name)
            self.next_check()

    def next_check(self) -> None:
        upcoming = next((n for n in self.order if n not in self.done), None)
        if upcoming is not None and self.progress is not None:
            self.progress.check(upcoming)


def load_submission(
    kind: str,
    source: str,
    filename: str,
    on_cell: Callable[[int], None] | None = None,
    budgets: budget.Budgets | None = None,
    required: tuple[str, ...] | None = None,
    released: tuple[str, ...] = (),
    facts: dict | None = None,
):
    """Run the submission's code the way a kernel would, each cell within its budget (none without
    `budgets`); returns an object with .namespace and .errors. Given the names the run must define
    (`required`), a notebook's demonstrations as released (their texts' digests among `released`) that nothing
    else can need are left out, as the self-check leaves them out (``coursecheck.cells.unneeded_demos``; `facts`: the
    build's ``cell_facts`` of the released cells, by digest, so that only the student's own cells are read)."""
    from coursecheck.notebook import exec_source, load_notebook

    run_cell = None if budgets is None else budgets.cell
    if kind == "ipynb":
        try:
            return load_notebook(
                source,
                on_cell=on_cell,
                run_cell=run_cell,
                leave_out_demos=required,
                released_demos=released,
                released_facts=facts,
            )
        except (ValueError, TypeError) as exc:  # not a notebook at all: record it, define nothing
            return _Failed(f"{type(exc).__name__}: {exc}")
    return exec_source(source, filename, on_cell=on_cell, run_cell=run_cell)


def _facts(plain: Any) -> dict:
    """The job's {digest: [bound, used, spelled, reaches]} as ``coursecheck.cells.cell_facts`` gives them."""
    if not isinstance(plain, dict):
        raise ValueError(f"the job's released_facts is a {type(plain).__name__}, not a mapping: rebuild the job")
    return {
        str(d): (frozenset(map(str, b)), frozenset(map(str, u)), frozenset(map(str, s)), bool(r))
        for d, (b, u, s, r) in plain.items()
    }


class _Failed:
    def __init__(self, message: str) -> None:
        self.namespace: dict = {}
        self.errors = [(0, message)]


def _errors(result) -> list[list]:
    out = []
    for item in list(getattr(result, "errors", []))[:50]:
        try:
            index, message = item
        except (TypeError, ValueError):
            index, message = -1, item
        out.append([int(index) if isinstance(index, int) else -1, str(message)[:2000]])
    return out


def _resolve(target: str):
    module_name, _, func_name = target.partition(":")
    if not module_name or not func_name:
        raise ValueError(f"experiments target {target!r} must look like 'package.module:function'")
    return getattr(importlib.import_module(module_name), func_name)


def _whole(job: dict, part: tuple[str, dict] | None) -> dict:
    """The job as ``pipeline.job_for`` makes it: a job that names its plan's part by digest (``PLAN_PART``) gets
    the part this process was handed decoded, which must be that one (ValueError otherwise)."""
    if PLAN_PART not in job:
        return job
    digest = job.pop(PLAN_PART)
    if part is None or part[0] != digest:
        raise ValueError(f"the job names the plan part {digest!r}, which this runner was not handed by its fork server")
    return {**job, **part[1]}


def main(argv: list[str] | None = None, part: tuple[str, dict] | None = None) -> int:
    """`part`: (digest, the part every job of the plan holds), decoded by the fork server this runner was forked
    from, for a job that names it (``pipeline.job_naming``)."""
    args = sys.argv[1:] if argv is None else argv
    library.put_first()  # the grader's copy of dnnlpy, before anything imports the library
    emit = _Writer(int(args[0]))
    import torch

    torch.set_num_threads(1)  # one thread per submission: workers run side by side
    name, job = read_frame(sys.stdin.buffer.read())
    if name != JOB:
        raise ValueError(
            f"the frame on stdin is {name!r}, not the job ({JOB!r}) that autograder.grading.pipeline.job makes"
        )
    job = _whole(job, part)
    # Resolve before student code runs, so a submission cannot swap the experiments module.
    experiments = _resolve(job["experiments"])
    emit.order = [str(n) for n in getattr(sys.modules.get(experiments.__module__), "EXPERIMENTS", {})]
    progress = emit.progress = Progress(emit)
    # The budgets' clock starts here, after torch's import: the same budgets on the fresh and the warm path
    # (the start-up before this is in the part of the limit they keep back).
    budgets = budget.from_environment()
    required = tuple(str(n) for n in job["required_names"])
    released = tuple(str(d) for d in job.get("released_demos", ()))
    facts = _facts(job.get("released_facts", {}))
    attempts = refusals.watch()  # from here on the submission's code runs: what the sandbox refuses it is seen
    result = load_submission(
        job["kind"],
        job["source"],
        job["filename"],
        on_cell=progress.cell,
        budgets=budgets,
        required=required,
        released=released,
        facts=facts,
    )
    namespace = getattr(result, "namespace", {}) or {}
    defined = [n for n in job["required_names"] if n in namespace]
    emit(Load.NAME, Load.make(errors=_errors(result), defined=defined))
    emit.next_check()
    try:
        with budget.running(budgets):
            experiments(namespace, job["plan"], emit)
    except Exception as exc:  # experiments should catch their own; report what escaped
        tail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        emit(ExperimentsError.NAME, ExperimentsError.make(error=tail[:2000]))
    progress.stop()
    emit(Refused.NAME, Refused.make(**attempts.record()))
    emit(Done.NAME, Done.make())
    return 0


if __name__ == "__main__":
    sys.exit(main())
