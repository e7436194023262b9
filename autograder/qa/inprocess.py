"""Trusted: grade the kit's own trusted code (calibration files, mutants of the reference) in this process.

The engine's path minus the sandbox, for sweeps over many seeds and many submissions: the experiments run
on the classes a source defines, with the dnnlpy a graded run imports (the grader's copy, without what it
withholds: ``autograder.sandbox.library``), every record goes through the channel's round trip (the runner's writer,
then the judge's decoder: a refused record is missing, as in the engine), and the hidden suite's test
functions are called directly (plain functions with the fixtures ``plan``, ``evidence`` and ``run``). Never
use it for student code: it runs the code in this very process, with no isolation at all.

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
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import torch

from autograder.graders.spec import AssignmentSpec
from autograder.runner.budget import Budgets, running, within
from autograder.sandbox.library import imported, library_copy

__all__ = ["SuiteTest", "InProcessGrader", "namespace_of", "worker_grader", "map_seeds", "RUN_SECONDS"]

# The limit the budgets are carved from here: half the sandbox's default, as a hang costs its budget in
# every sweep of every seed; ~15x what the slowest experiment of a correct file takes on a loaded machine.
RUN_SECONDS = 30.0


@dataclass(frozen=True)
class SuiteTest:
    name: str
    fn: Callable[..., None]
    points: float
    area: str


def namespace_of(source_or_path: str | Path, budgets: Budgets | None = None) -> dict:
    """What a submission defines: a path (.py / .ipynb) or the text of a .py file, run as a kernel would
    (each cell within its budget, given `budgets`)."""
    from dnnlpy.notebook import exec_source, load_notebook

    run_cell = None if budgets is None else budgets.cell
    if isinstance(source_or_path, Path):
        if source_or_path.suffix == ".ipynb":
            return load_notebook(source_or_path, run_cell=run_cell).namespace
        text = source_or_path.read_text(encoding="utf-8")
        return exec_source(text, source_or_path.name, run_cell=run_cell).namespace
    return exec_source(source_or_path, "submission.py", run_cell=run_cell).namespace


def _suite_tests(suite_dir: Path) -> list[SuiteTest]:
    tests = []
    for path in sorted(Path(suite_dir).glob("test_*.py")):
        module_spec = importlib.util.spec_from_file_location(f"_suite_{suite_dir.parent.parent.name}_{path.stem}", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and fn.__module__ == module.__name__:
                marks = {m.name: m.args for m in getattr(fn, "pytestmark", [])}
                if "points" not in marks:
                    raise ValueError(f"{path.name}::{name} has no @pytest.mark.points(n): every graded test needs one")
                area = marks["area"][0] if "area" in marks else "other"
                tests.append(SuiteTest(name, fn, float(marks["points"][0]), area))
    return tests


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
    """One assignment's experiments and hidden suite, loaded once, callable many times."""

    spec: AssignmentSpec
    tests: list[SuiteTest] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.tests:
            self.tests = _suite_tests(self.spec.suite_dir)
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
    ) -> dict[str, tuple[bool, str]]:
        """{test name: (passed, message)}; `only`: the names of the tests to call."""
        return {t.name: (t.passed, t.output) for t in self.outcomes(plan, evidence, run, only=only)}

    def outcomes(
        self,
        plan: dict,
        evidence: dict,
        run: dict | None = None,
        *,
        only: Iterable[str] | None = None,
        language: str = "en",
    ) -> list:
        """Each test's ``TestOutcome``, as the judge process gives it: every test in English, and in another
        `language` each failed one called again with it set (``suite_api.speaking``) for its ``localized``."""
        from autograder.grading.judge.suite_api import said_again_in
        from autograder.grading.result import TestOutcome

        wanted = None if only is None else set(only)
        out = []
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the suite's conftest does: tiny judge models
        try:
            for test in self.tests:
                if wanted is not None and test.name not in wanted:
                    continue
                passed, message = self._call(test, plan, evidence, run)
                localized = said_again_in(language, passed, lambda test=test: self._call(test, plan, evidence, run))
                out.append(TestOutcome(test.name, test.points, test.area, passed, message, localized))
        finally:
            torch.set_num_threads(threads)
        return out

    @staticmethod
    def _call(test: SuiteTest, plan: dict, evidence: dict, run: dict | None) -> tuple[bool, str]:
        try:
            test.fn(plan=plan, evidence=evidence, run=run or {"status": "ok"})
        except AssertionError as exc:
            return False, str(exc)
        return True, ""

    def score(self, results: dict[str, tuple[bool, str]]) -> float:
        """The mark of these outcomes, by the pipeline's own marking step (``pipeline.mark``: the assignment's
        scheme, or the points of the passing tests without one), so a sweep scores as the engine does."""
        from autograder.grading.pipeline import mark
        from autograder.grading.result import Result, TestOutcome

        known = {t.name: t for t in self.tests}
        tests = [TestOutcome(n, known[n].points, known[n].area, ok, msg) for n, (ok, msg) in results.items()]
        return mark(Result(tests=tests, run=None), self.spec).score

    def grade(self, submission: str | Path | dict, plan: dict, **kwargs: Any) -> tuple[float, dict]:
        """(score, {test: (passed, message)}) of one submission on one plan."""
        results = self.judge(plan, self.evidence(submission, plan, **kwargs))
        return self.score(results), results


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
