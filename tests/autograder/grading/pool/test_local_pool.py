"""The local pool runs a worker's next file while its last one is judged, and a failure in either half costs only
that student's grade and a fresh process for the half that failed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from autograder.grading.pool import local
from autograder.grading.pool.worker import Worker
from autograder.sandbox import Limits

SEED = 20261207
LIMITS = Limits(wall_seconds=30)
CORRECT = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def files(tmp_path):
    out = {}
    for name in ("a", "b", "c", "d"):
        out[name] = tmp_path / f"{name}.py"
        out[name].write_text(CORRECT)
    return out


def _spy(monkeypatch, name: str, before=None) -> list[tuple[str, float, float, str]]:
    """Each call of ``Worker.<name>`` as (name, start, end, thread); `before(args)` runs first (may raise)."""
    calls: list[tuple[str, float, float, str]] = []
    real = getattr(Worker, name)

    def spied(self, *args, **kwargs):
        start = time.monotonic()
        try:
            if before is not None:
                before(args)
            return real(self, *args, **kwargs)
        finally:
            calls.append((name, start, time.monotonic(), threading.current_thread().name))

    monkeypatch.setattr(Worker, name, spied)
    return calls


def test_a_workers_next_file_runs_while_its_last_one_is_judged(monkeypatch, files):
    runs = _spy(monkeypatch, "sandboxed")
    judgements = _spy(monkeypatch, "judged", before=lambda _args: time.sleep(0.6))  # a slow judgement
    with local.LocalPool(assignment="selftest", limits=LIMITS, workers=1) as pool:
        results = pool.grade(files, seed=SEED)
    assert [(r.status, r.score) for r in results.values()] == [("ok", 3)] * 4
    assert len(runs) == len(judgements) == 4
    assert {thread for *_, thread in runs}.isdisjoint({thread for *_, thread in judgements})
    # while the first file was judged, the second ran (and was done long before the judgement's end)
    first_judged, second_ran = sorted(judgements)[0], sorted(runs)[1]
    assert second_ran[1] < first_judged[2] and second_ran[2] < first_judged[2]


def _fails_on(filename: str, exc: Exception):
    """A `before` for ``_spy`` that raises `exc` on the file named `filename` (a path, or a run of it)."""

    def before(args) -> None:
        name = args[0].submission.filename if hasattr(args[0], "submission") else Path(args[0]).name
        if name == filename:
            raise exc

    return before


@pytest.mark.parametrize(
    "half, exc, replaced, kept",
    [
        ("judged", RuntimeError("the judge failed: a grader bug"), "judges_started", "zygotes_started"),
        ("sandboxed", OSError("the fork server's socket broke"), "zygotes_started", "judges_started"),
    ],
    ids=["judgement", "run"],
)
def test_a_half_that_fails_costs_that_student_only_and_a_fresh_process_for_that_half(
    monkeypatch, files, half, exc, replaced, kept
):
    _spy(monkeypatch, half, before=_fails_on("b.py", exc))
    with local.LocalPool(assignment="selftest", limits=LIMITS, workers=1) as pool:
        results = pool.grade(files, seed=SEED)
        stats = pool.stats()[0]
    assert str(exc) in results["b"].grader_error
    assert [results[s].score for s in "acd"] == [3, 3, 3]
    assert (stats[replaced], stats[kept]) == (2, 1)


def test_a_worker_whose_judge_cannot_start_again_stops_and_no_file_is_lost_or_waits(monkeypatch, files):
    def no_judge(self):
        raise OSError("no judge can start")

    _spy(monkeypatch, "judged", before=lambda args: (_ for _ in ()).throw(RuntimeError("judge died")))
    monkeypatch.setattr(Worker, "restart_judge", no_judge)
    with local.LocalPool(assignment="selftest", limits=LIMITS, workers=1) as pool:
        results = pool.grade(files, seed=SEED)
    assert set(results) == set(files)
    why = ("judge died", "judge process could not be started again", "the worker grading this submission stopped")
    assert all(any(reason in r.grader_error for reason in why) for r in results.values())
    assert "judge died" in results["a"].grader_error
