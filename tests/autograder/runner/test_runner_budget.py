"""Time budgets inside the run's limit (autograder.runner.budget): a hang costs what hangs, and earns nothing.

The interrupts are real (SIGALRM) but the budgets are small; what is asserted is what was stopped and what
still ran, never how fast anything was.
"""

from __future__ import annotations

import signal
import time

import pytest

from autograder.graders import get_assignment
from autograder.grading.judge.suite_api import Failed, entry, need
from autograder.runner import budget
from autograder.runner.budget import STOPPED, Budgets, within
from coursecheck.notebook import exec_source, load_notebook


def _forever() -> None:
    while True:
        pass


def test_a_cell_that_never_ends_is_stopped_and_the_cells_after_it_still_run():
    source = "# %%\nfirst = 1\n# %%\nwhile True:\n    pass\n# %%\nafter = 2\n"
    loaded = exec_source(source, "hang.py", run_cell=Budgets(2.0).cell)  # the cells: the floor, 0.5 s
    assert loaded.namespace["first"] == 1 and loaded.namespace["after"] == 2
    [(cell, message)] = loaded.errors
    assert cell == 1 and message.startswith("TimeBudgetExceeded: this cell was stopped after 0.")
    assert "2 s time limit" in message and "the cells after it still ran" in message


def test_a_notebook_cell_that_swallows_exceptions_in_its_loop_is_stopped_too():
    cells = [
        "def spin():\n    while True:\n        try:\n            pass\n        except Exception:\n            pass\n",
        "spin()",
        "class Defined:\n    pass",
    ]
    nb = {"cells": [{"cell_type": "code", "source": c, "metadata": {}} for c in cells], "nbformat": 4}
    loaded = load_notebook(nb, run_cell=Budgets(2.0).cell)
    assert "Defined" in loaded.namespace
    assert [cell for cell, _ in loaded.errors] == [1]


def test_without_budgets_a_cell_runs_as_before():
    loaded = exec_source("x = 1\nraise ValueError('boom')\n", "plain.py")
    assert loaded.namespace["x"] == 1 and loaded.errors == [(0, "ValueError: boom")]


def test_an_experiment_that_never_ends_reports_an_error_and_the_next_one_runs():
    records = {}
    with budget.running(Budgets(3.0)):  # the last experiment may use what is left, at most 0.75 s
        records["hangs"] = within("hangs", _forever, 2)
        records["quick"] = within("quick", lambda: {"ok": True}, 1)
    assert records["quick"] == {"ok": True}
    stopped = records["hangs"]
    assert set(stopped) == {"error", STOPPED} and stopped["error"].startswith("TimeBudgetExceeded: hangs was stopped")
    assert 0 < stopped[STOPPED] <= 0.8
    time.sleep(2 * budget.REPEAT)  # no alarm is left armed once the budget's call returned


def test_the_handler_is_installed_again_when_student_code_replaced_it():
    budgets = Budgets(2.0)
    signal.signal(signal.SIGALRM, signal.SIG_IGN)  # what a cell before might have done
    stopped, _ = budgets.run(_forever, 0.2)
    assert stopped


def test_outside_budgets_an_experiment_runs_unbudgeted():
    assert within("x", lambda: {"value": 3}, 1) == {"value": 3}


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_budgets_of_a_run_where_everything_hangs_fit_inside_its_limit():
    """Each cell and each experiment spends its whole budget: they end before the part kept back."""
    clock = _Clock()
    run = Budgets(60.0, clock=clock)
    for _ in range(3):  # cells: all of them within 20 % of W, then the floor each
        clock.now += run.cell_seconds()
    assert clock.now == pytest.approx(0.2 * 60 + 2 * run.floor)
    experiments = 15
    for left in range(experiments, 0, -1):
        spent = run.experiment_seconds(left)
        assert spent <= 60 / 4
        clock.now += spent
    assert clock.now <= 60 - 6 + 1e-9  # 10 % kept back for start-up and the last frames


def test_an_earlier_hang_leaves_the_last_experiment_its_share():
    clock = _Clock()
    run = Budgets(60.0, clock=clock)
    clock.now = 1.0
    first = run.experiment_seconds(15)
    clock.now += first  # the first experiment hangs
    clock.now += 13 * 0.1  # the next thirteen are quick
    assert run.experiment_seconds(1) == 15.0  # W/4: the same budget as without the hang


def test_the_time_spent_before_the_clock_started_shortens_the_experiments_window():
    """The fresh path's interpreter imports torch before the budgets' clock starts: seconds on a loaded
    machine, which the sandbox's clock counted."""
    clock = _Clock()
    run = Budgets(60.0, clock=clock, before=20.0)
    clock.now = 30.0
    assert run.experiment_seconds(1) == pytest.approx(60 - 6 - 20 - 30)
    assert run.cell_seconds() == run.floor  # the cells' share is counted from the clock's start, as before
    assert 0 < budget.process_age() < 10**6  # this process's age, from /proc


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "60"])
def test_a_run_limit_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match="run_seconds"):
        Budgets(bad)


def test_the_runner_reads_its_limit_from_the_sandboxs_config(monkeypatch):
    from autograder.sandbox import Limits
    from autograder.sandbox.config import jail_config

    cfg = jail_config(mode="rlimits", limits=Limits(wall_seconds=42), uid=0, workdir="/tmp", view=None)
    monkeypatch.setenv(budget.RUN_SECONDS_ENV, cfg["env"][budget.RUN_SECONDS_ENV])
    assert budget.from_environment().run_seconds == 42
    monkeypatch.setenv(budget.RUN_SECONDS_ENV, "nonsense")
    assert budget.from_environment() is None


# ------------------------------------------------------------------------------------------ what the judge makes of it


def test_the_judge_names_the_hang_and_the_budget():
    with pytest.raises(Failed) as caught:
        entry({"error": "TimeBudgetExceeded: ...", STOPPED: 20.0}, "MiniGPTWithWeightTying.generate")
    assert str(caught.value).startswith("MiniGPTWithWeightTying.generate did not finish within 20 s")
    assert "your code raised" not in str(caught.value)


@pytest.mark.parametrize("claim", [float("nan"), -3, 10**9, "20", True, None])
def test_a_malformed_stopped_claim_is_an_ordinary_error(claim):
    with pytest.raises(Failed, match="failed: your code raised"):
        entry({"error": "boom", STOPPED: claim}, "x")


def test_a_stopped_experiment_costs_its_tests_points_and_a_claimed_one_no_less():
    """The hang is no misconception and no knock-on: every test that needed the record loses its points,
    whether the runner stopped the experiment or student code forged the record."""
    scheme = get_assignment("weight_tying").scheme
    generation = [t for t in scheme.tests.values() if t.area == "argmax generation"]
    with pytest.raises(Failed) as caught:
        need({"gpt_generate": {"error": "forged", STOPPED: 0.1}}, "gpt_generate", what="generate")
    failed = caught.value.finding
    assert failed.kind == "plain"
    outcomes = [
        (t.name, t.points, t.area, t.area != "argmax generation", None if t.area != "argmax generation" else failed)
        for t in scheme.tests.values()
    ]
    charged = scheme.charges(outcomes)
    assert sum(p for p, *_ in charged.values()) == sum(t.points for t in generation) == 18
