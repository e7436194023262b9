"""Fixtures for the weight_tying grader's tests: the plan, the suite's functions, and an in-process judge.

The in-process path is the one the engine takes minus the sandbox: the experiments run on classes defined by
a submission's text, every record goes through the channel's round trip (the runner's writer, the judge's
decoder), and the suite is judged by the engine's own suite runner (``grading.judge.suite``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from autograder.graders import get_assignment
from autograder.qa.inprocess import InProcessGrader
from autograder.qa.inprocess import namespace_of as namespace_of  # re-exported for the tests

SPEC = get_assignment("weight_tying")
SEED = 20240518
GRADER = InProcessGrader(SPEC)


@pytest.fixture(scope="session")
def spec():
    return SPEC


@pytest.fixture(scope="session")
def grader() -> InProcessGrader:
    return GRADER


@pytest.fixture(scope="session")
def plan():
    torch.set_num_threads(1)  # tiny models; threads only contend on a shared machine
    return SPEC.make_plan(SEED)


@pytest.fixture(scope="session")
def suite():
    """The suite's tests as (function name, function, points, area)."""
    return [(t.function, t.func, t.points, t.area) for t in GRADER.tests]


@pytest.fixture(scope="session")
def collect_evidence() -> Callable[[str | Path, dict], dict]:
    """evidence = collect_evidence(submission, plan): the experiments, through the channel's round trip."""
    return GRADER.evidence


@pytest.fixture(scope="session")
def judge() -> Callable[..., dict]:
    """outcomes = judge(plan, evidence, run=None, only=None): {test function: its TestOutcome, unmarked}.

    `only`: the function names of the tests to call (a faster partial judge).
    """
    return GRADER.judge


@pytest.fixture(scope="session")
def score() -> Callable[[dict], float]:
    return GRADER.score


@pytest.fixture(scope="session")
def mark() -> Callable[[dict], dict]:
    """marked = mark(outcomes): the outcomes with their charges (the engine's marking step)."""
    return GRADER.mark


class _Verdicts:
    """A pytest plugin that keeps each hidden test's verdict as the suite's ``conftest`` reports it, and the run's
    facts its fixture gave."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[bool, dict | None]] = {}
        self.run: dict | None = None

    def pytest_sessionfinish(self, session) -> None:
        from autograder.grading.judge.pytest_suite import session_judgement

        judged = session_judgement(session.config)
        self.run = None if judged is None else judged.run

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or not report.passed:  # a fixture's error is a verdict too
            name = report.nodeid.rpartition("/")[2]  # "test_identity.py::test_x", as the kit names it
            self.seen[name] = (report.passed, dict(report.user_properties).get("finding"))


def _pytest_over_suite(folder: Path, *args: str) -> tuple[int, _Verdicts]:
    saved_path, saved_conftest = list(sys.path), sys.modules.get("conftest")
    verdicts = _Verdicts()
    # pytest's unraisable-exception check collects the garbage of a heap holding torch twice a session: 1 s here
    quiet = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-q", "--tb=no"]
    try:
        code = pytest.main([str(SPEC.suite_dir), "--evidence", str(folder), *quiet, *args], plugins=[verdicts])
    finally:  # what pytest's import of the conftests left (this session's own conftest module among them)
        sys.path[:] = saved_path
        sys.modules.pop("conftest", None)
        if saved_conftest is not None:
            sys.modules["conftest"] = saved_conftest
    return int(code), verdicts


@pytest.fixture(scope="session")
def suite_on_pytest() -> Callable[..., tuple[int, dict]]:
    """code, verdicts = suite_on_pytest(folder, *args): pytest's own runner over the hidden suite, in this process,
    on the evidence kept in `folder` (``--evidence``): its exit code and {test name: (passed, the finding's wire
    form or None)} of every test it ran."""

    def run(folder: Path, *args: str) -> tuple[int, dict]:
        code, verdicts = _pytest_over_suite(folder, *args)
        return code, verdicts.seen

    return run


def _differences(folder: Path) -> list[str]:
    """Where pytest over the suite, on the evidence kept in `folder`, differs from the kit's judge (its verdicts kept
    with the evidence): each test passed or not, with the same finding; and the run's facts given to the suite."""
    from autograder.grading.judge.kept import read_kept

    kept = read_kept(folder)
    code, verdicts = _pytest_over_suite(folder)
    seen = verdicts.seen
    kit = {o["name"]: (o["passed"], o["finding"]) for o in kept.outcomes}
    out = [f"pytest exited {code}"] if code not in (0, 1) else []
    out += [f"{name}: the kit {was}, pytest {seen.get(name)}" for name, was in kit.items() if seen.get(name) != was]
    if kept.judge_limit is None and set(seen) != set(kit):
        out.append(f"tests only one of them ran: {sorted(set(seen) ^ set(kit))}")
    if verdicts.run != kept.run:
        out.append(f"the run's facts: the kit's judge {kept.run}, pytest's {verdicts.run}")
    return out


@pytest.fixture(scope="session")
def differences_on_pytest() -> Callable[[Path], list[str]]:
    """differences = differences_on_pytest(folder): where pytest's runner over the hidden suite, on the evidence kept
    in `folder`, does not give the kit's verdicts kept with it (empty: the same)."""
    return _differences
