"""Trusted: grade the kit's own trusted code (calibration files, mutants of the reference) in this process.

The engine's path minus the sandbox, for sweeps over many seeds and many submissions: the experiments run
on the classes a source defines, with the dnnlpy a graded run imports (the grader's copy, without what it
withholds: ``autograder.sandbox.library``), every record goes through the channel's round trip (the runner's
writer, then the judge's decoder: a refused record is missing, as in the engine), and the hidden suite is judged
by the engine's own suite runner (``grading.judge.suite``) and marked by its own marking step. Never use it for
student code: it runs the code in this very process, with no isolation at all.

Cells and experiments run under the runner's time budgets (``autograder.runner.budget``) inside a limit of
``RUN_SECONDS``, so a calibration file that hangs costs what hangs here too, and the walk goes on.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import torch

from autograder.graders.spec import AssignmentSpec
from autograder.grading.result import TestOutcome
from autograder.runner.budget import Budgets, running, within
from autograder.sandbox.library import imported, library_copy

__all__ = ["InProcessGrader", "namespace_of", "worker_grader", "map_seeds", "RUN_SECONDS"]

# The limit the budgets are carved from here: half the sandbox's default, as a hang costs its budget in
# every sweep of every seed; ~15x what the slowest experiment of a correct file takes on a loaded machine.
RUN_SECONDS = 30.0


def namespace_of(source_or_path: str | Path, budgets: Budgets | None = None) -> dict:
    """What a submission defines: a path (.py / .ipynb) or the text of a .py file, run as a kernel would
    (each cell within its budget, given `budgets`)."""
    from coursecheck.notebook import exec_source, load_notebook

    run_cell = None if budgets is None else budgets.cell
    if isinstance(source_or_path, Path):
        if source_or_path.suffix == ".ipynb":
            return load_notebook(source_or_path, run_cell=run_cell).namespace
        text = source_or_path.read_text(encoding="utf-8")
        return exec_source(text, source_or_path.name, run_cell=run_cell).namespace
    return exec_source(source_or_path, "submission.py", run_cell=run_cell).namespace


@contextlib.contextmanager
def _calls_into(namespace: dict, seen: set[str]):
    """Record the qualified names of the namespace's own functions that run (a trace hook, not a profile
    hook: the experiments may set one of those themselves)."""
    files = {
        inspect.unwrap(fn).__code__.co_filename
        for value in namespace.values()
        if inspect.isclass(value)
        for fn in vars(value).values()
        if inspect.isfunction(fn) and inspect.isfunction(inspect.unwrap(fn))
    }

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename in files:
            seen.add(frame.f_code.co_qualname)
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


def _round_trip(name: str, record: Any) -> dict:
    """{name: record} as the judge decodes what the runner's writer sends; {} when the decoder refuses it."""
    from autograder.protocol.decode import decode_frames
    from autograder.protocol.frames import frame_bytes

    return decode_frames(frame_bytes(name, record))[0]


@dataclass
class InProcessGrader:
    """One assignment's experiments and hidden suite, loaded once, callable many times. Results are keyed by
    each test's function name."""

    spec: AssignmentSpec

    def __post_init__(self) -> None:
        from autograder.grading.judge.suite import Suite

        self.suite = Suite.load(self.spec.suite_dir, self.spec.scheme)
        self.tests = self.suite.tests
        module, _, func = self.spec.experiments.partition(":")
        self._experiments = getattr(importlib.import_module(module), func)

    @property
    def max_score(self) -> float:
        return sum(t.points for t in self.tests)

    def evidence(
        self,
        submission: str | Path | dict,
        plan: dict,
        *,
        round_trip: bool = True,
        quiet: bool = True,
        only: Iterable[str] | None = None,
        calls: dict[str, set[str]] | None = None,
    ) -> dict:
        """The experiments' records for a submission (a path, a source text, or an executed namespace).

        `quiet`: what the submission prints goes nowhere (a sweep's own output stays readable). `only`: run
        just these experiments (the runner module's ``EXPERIMENTS``). `calls`: filled with, per experiment,
        the qualified names of the submission's functions it ran (``Class.method``)."""
        records: dict[str, Any] = {}

        def emit(name: str, record: Any) -> None:
            if name in records:
                raise RuntimeError(f"experiment {name} emitted twice")
            records.update(_round_trip(name, record) if round_trip else {name: record})

        sink = io.StringIO()
        # the dnnlpy a graded run imports: the grader's copy, without what it withholds
        with imported(library_copy(self.spec.withheld)):
            with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
                with contextlib.redirect_stderr(sink) if quiet else contextlib.nullcontext():
                    budgets = Budgets(RUN_SECONDS)
                    namespace = submission if isinstance(submission, dict) else namespace_of(submission, budgets)
                    with running(budgets):
                        if only is None and calls is None:
                            self._experiments(namespace, plan, emit)
                        else:
                            self._run_each(namespace, plan, emit, only, calls)
        return records

    def _run_each(self, namespace, plan, emit, only, calls) -> None:
        experiments = getattr(inspect.getmodule(self._experiments), "EXPERIMENTS", None)
        if not experiments:
            raise ValueError(f"{self.spec.experiments} declares no EXPERIMENTS dict: run them all")
        for name, fn in experiments.items():
            if only is not None and name not in only:
                continue
            seen: set[str] = set()
            try:
                with _calls_into(namespace, seen) if calls is not None else contextlib.nullcontext():
                    record = within(name, lambda fn=fn: fn(namespace, plan), 1)
            except Exception as exc:  # as the runner's guard: a failure is evidence too
                record = {"error": f"{type(exc).__name__}: {exc}"}
            if calls is not None:
                calls[name] = seen
            emit(name, record)

    def judge(
        self, plan: dict, evidence: dict, run: dict | None = None, *, only: Iterable[str] | None = None
    ) -> dict[str, TestOutcome]:
        """{test function: its outcome, not yet marked}; `only`: the function names of the tests to call."""
        wanted = None if only is None else set(only)
        outcomes = self.suite.run(plan=plan, evidence=evidence, run=run or {"status": "ok"})
        return {
            o.name.rpartition("::")[2]: o for o in outcomes if wanted is None or o.name.rpartition("::")[2] in wanted
        }

    def mark(self, outcomes: dict[str, TestOutcome]) -> dict[str, TestOutcome]:
        """The outcomes with their charges, by the pipeline's own marking step (``pipeline.mark``)."""
        from autograder.grading.pipeline import mark
        from autograder.grading.result import Result

        marked = mark(Result(tests=list(outcomes.values()), run=None), self.spec).tests
        return {o.name.rpartition("::")[2]: o for o in marked}

    def score(self, outcomes: dict[str, TestOutcome]) -> float:
        """The mark of these outcomes (``mark``), so a sweep scores as the engine does."""
        return round(sum(o.score for o in self.mark(outcomes).values()), 6)

    def grade(self, submission: str | Path | dict, plan: dict, **kwargs: Any) -> tuple[float, dict[str, TestOutcome]]:
        """(score, {test function: its marked outcome}) of one submission on one plan."""
        marked = self.mark(self.judge(plan, self.evidence(submission, plan, **kwargs)))
        return round(sum(o.score for o in marked.values()), 6), marked


_WORKER_GRADERS: dict[str, InProcessGrader] = {}


def worker_grader(assignment: str) -> InProcessGrader:
    """This process's grader for `assignment`, built once: a worker of `map_seeds` grades many seeds with it
    (torch on one thread, as the judge's tiny models want)."""
    if assignment not in _WORKER_GRADERS:
        from autograder.graders import get_assignment

        torch.set_num_threads(1)
        _WORKER_GRADERS[assignment] = InProcessGrader(get_assignment(assignment))
    return _WORKER_GRADERS[assignment]


def map_seeds(fn: Callable[[Any], Any], tasks: Sequence[Any], workers: int | None = None) -> Iterator[Any]:
    """`fn` over `tasks` (one per seed), in order: in forked worker processes (`workers`, default one per core),
    or here when `workers` is 1."""
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or len(tasks) <= 1:
        yield from map(fn, tasks)
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=get_context("fork")) as pool:
        yield from pool.map(fn, tasks)
