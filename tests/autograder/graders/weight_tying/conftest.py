"""Fixtures for the weight_tying grader's tests: the plan, the suite's functions, and an in-process judge.

The in-process path is the one the engine takes minus the sandbox: the experiments run on classes defined by
a submission's text, every record goes through the channel's round trip (the runner's writer, the judge's
decoder), and the suite is judged by the engine's own suite runner (``grading.judge.suite``).
"""

from __future__ import annotations

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
