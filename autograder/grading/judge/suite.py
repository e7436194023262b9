"""Trusted: the hidden suite's one runner: plain test functions of ``(plan, evidence[, run])``, called in order.

A grader's suite is a folder of ``test_*.py`` files (``AssignmentSpec.suite_dir``); each module-level function
named ``test_*`` is a test, its points, area and exercise read from the grader's marking scheme (every test
in one, and the scheme naming no test the suite lacks: ``load`` says which). A test passes by returning; it
fails by raising ``findings.Failed`` (or ``assert ..., said``), which the runner turns into the test's
``Finding``. Every executor judges through this runner (the warm judge process, the fresh path's judge, the
in-process grader of sweeps), so they cannot disagree on what a test did.

The suite's modules are imported once per load and kept as long as the plan (what they memoise from the plan
lives with them); what a suite memoises from a submission's evidence (``judge.memo``) is dropped after each
judgement. The judge's models are tiny: each judgement runs on one torch thread.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import itertools
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.findings import Finding, finding_of
from autograder.grading.judge.memo import end_judgement
from autograder.grading.marking import Scheme
from autograder.grading.result import TestOutcome
from autograder.grading.run_status import MEMORY_MARKERS

__all__ = ["Suite", "SuiteTest", "ARGUMENTS"]

ARGUMENTS = ("plan", "evidence", "run")  # what a test may take, by name
_counter = itertools.count()


@dataclass(frozen=True)
class SuiteTest:
    name: str  # "test_file.py::test_function", as results and pages name it
    func: Callable
    points: float
    area: str
    arguments: tuple[str, ...]

    @property
    def function(self) -> str:
        return self.name.rpartition("::")[2]


class Suite:
    """A suite's tests, imported once; ``run`` judges one submission's evidence."""

    def __init__(self, tests: list[SuiteTest], modules: list[str]) -> None:
        self.tests = tests
        self._modules = modules

    @classmethod
    def load(cls, suite_dir: str | Path, scheme: Scheme) -> Suite:
        """The tests of `suite_dir`, in file order then definition order; ValueError naming what does not fit
        the contract (a test the scheme lacks, a scheme test the suite lacks, an argument the runner cannot
        give)."""
        suite_dir = Path(suite_dir)
        modules: list[str] = []
        tests: list[SuiteTest] = []
        try:
            for path in sorted(suite_dir.glob("test_*.py")):
                module = _import(path, modules)
                functions = [
                    f
                    for name, f in vars(module).items()
                    if name.startswith("test_") and inspect.isfunction(f) and f.__module__ == module.__name__
                ]
                for func in sorted(functions, key=lambda f: f.__code__.co_firstlineno):
                    tests.append(_test(path.name, func, scheme))
        except BaseException:
            _forget(modules)
            raise
        if not tests:
            raise ValueError(f"the hidden suite {str(suite_dir)!r} has no test_*.py file with a test_* function")
        missing = sorted(set(scheme.tests) - {t.function for t in tests})
        if missing:
            _forget(modules)
            raise ValueError(f"{scheme.path}: {missing} are not tests of {suite_dir}: remove them or add the tests")
        return cls(tests, modules)

    def collect(self) -> list[tuple[str, float, str]]:
        return [(t.name, t.points, t.area) for t in self.tests]

    def run(self, *, plan: dict, evidence: dict, run: dict) -> Iterator[TestOutcome]:
        """Judge one submission: each test's outcome, in order, as it is decided. A test's print goes nowhere; a
        MemoryError is the judge's limit, not a finding (it propagates)."""
        import torch

        given = {"plan": plan, "evidence": evidence, "run": run}
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            for test in self.tests:
                finding = _call(test, given)
                yield TestOutcome(test.name, test.points, test.area, finding is None, finding)
        finally:
            torch.set_num_threads(threads)
            end_judgement()  # nothing this submission's evidence decided is kept for the next one

    def close(self) -> None:
        """Forget the suite's modules (the next load imports them afresh)."""
        _forget(self._modules)


def _call(test: SuiteTest, given: dict) -> Finding | None:
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            test.func(**{name: given[name] for name in test.arguments})
    except MemoryError:
        raise
    except Exception as exc:  # AssertionError (a failure) or the judge's own error (internal)
        if not isinstance(exc, AssertionError) and any(marker in str(exc) for marker in MEMORY_MARKERS):
            raise MemoryError(str(exc)[:500]) from exc  # torch's allocator in the judge's own process
        return finding_of(exc)
    return None


def _test(filename: str, func: Callable, scheme: Scheme) -> SuiteTest:
    graded = scheme.tests.get(func.__name__)
    if graded is None:
        raise ValueError(
            f"{filename}::{func.__name__} is not in {scheme.path}: add it under [tests] with its area and points"
        )
    arguments = []
    for param in inspect.signature(func).parameters.values():
        if param.name not in ARGUMENTS or param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise ValueError(
                f"{filename}::{func.__name__} takes {param.name!r}: a suite test takes only {', '.join(ARGUMENTS)}"
            )
        arguments.append(param.name)
    return SuiteTest(f"{filename}::{func.__name__}", func, graded.points, graded.area, tuple(arguments))


def _import(path: Path, modules: list[str]):
    name = f"_autograder_suite_{next(_counter)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    modules.append(name)
    spec.loader.exec_module(module)
    return module


def _forget(modules: list[str]) -> None:
    for name in modules:
        sys.modules.pop(name, None)
    modules.clear()
