"""Fixtures for the weight_tying grader's tests: the plan, the suite's functions, and an in-process judge.

The in-process path is the one the engine takes minus the sandbox: the experiments run on classes defined by
a submission's text, every record goes through the channel's torch.save -> torch.load(weights_only=True)
round trip, and the suite's test functions are called as the judge's pytest plugin would call them.
"""

from __future__ import annotations

import importlib.util
import inspect
import io
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from autograder.graders import get_assignment
from autograder.graders.weight_tying.runner.experiments import run as run_experiments
from dnnlpy.notebook import exec_source, load_notebook

SPEC = get_assignment("weight_tying")
SEED = 20240518


@pytest.fixture(scope="session")
def spec():
    return SPEC


@pytest.fixture(scope="session")
def plan():
    torch.set_num_threads(1)  # tiny models; threads only contend on a shared machine
    return SPEC.make_plan(SEED)


def _suite_tests() -> list[tuple[str, Callable, float, str]]:
    tests = []
    for path in sorted(SPEC.suite_dir.glob("test_*.py")):
        module_spec = importlib.util.spec_from_file_location(f"_wt_suite_{path.stem}", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and fn.__module__ == module.__name__:
                marks = {m.name: m.args for m in getattr(fn, "pytestmark", [])}
                tests.append((name, fn, float(marks["points"][0]), marks["area"][0]))
    return tests


@pytest.fixture(scope="session")
def suite(pytestconfig):
    """The suite's test functions as (name, function, points, area); its markers are registered first."""
    pytestconfig.addinivalue_line("markers", "points(n): points this test is worth")
    pytestconfig.addinivalue_line("markers", "area(name): the graded area this test belongs to")
    return _suite_tests()


def namespace_of(source_or_path: str | Path) -> dict:
    """What a submission defines: a path (.py / .ipynb) or the text of a .py file."""
    if isinstance(source_or_path, Path):
        if source_or_path.suffix == ".ipynb":
            return load_notebook(source_or_path).namespace
        return exec_source(source_or_path.read_text(encoding="utf-8"), source_or_path.name).namespace
    return exec_source(source_or_path, "submission.py").namespace


@pytest.fixture(scope="session")
def collect_evidence() -> Callable[[str | Path, dict], dict]:
    """evidence = collect_evidence(submission, plan): the experiments, through the channel's round trip."""

    def collect(submission, plan) -> dict:
        namespace = namespace_of(submission)
        evidence = {}

        def emit(name, record):
            buf = io.BytesIO()
            torch.save({"name": name, "record": record}, buf)
            frame = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
            assert frame["name"] not in evidence, f"experiment {name} emitted twice"
            evidence[frame["name"]] = frame["record"]

        run_experiments(namespace, plan, emit)
        return evidence

    return collect


@pytest.fixture(scope="session")
def judge(suite) -> Callable[..., dict[str, tuple[bool, str]]]:
    """results = judge(plan, evidence, run=None, only=None): {test name: (passed, message)}.

    `only`: the names of the tests to call (a faster partial judge).
    """

    def call(plan, evidence, run=None, *, only=None) -> dict[str, tuple[bool, str]]:
        results = {}
        for name, fn, _, _ in suite:
            if only is not None and name not in only:
                continue
            try:
                fn(plan=plan, evidence=evidence, run=run or {"status": "ok"})
                results[name] = (True, "")
            except AssertionError as exc:
                results[name] = (False, str(exc))
        return results

    return call


@pytest.fixture(scope="session")
def score(suite) -> Callable[[dict], float]:
    points = {name: pts for name, _, pts, _ in suite}
    return lambda results: sum(points[n] for n, (ok, _) in results.items() if ok)
