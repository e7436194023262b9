"""autograder.qa.sweep: the same verdict and the same mark on every seed, or the file is named."""

from __future__ import annotations

import time

import pytest

from autograder.grading.findings import Finding
from autograder.grading.result import TestOutcome
from autograder.protocol.said import Said
from autograder.qa.calibrate import Expectation
from autograder.qa.sweep import _row, render, seeds_from, sweep, sweep_json


def test_seeds_are_a_fixed_list():
    assert seeds_from(3) == [1, 2, 3] and seeds_from(2, first=10) == [10, 11]
    with pytest.raises(ValueError, match="at least one seed"):
        seeds_from(0)


def _shows(names: str | None = None) -> TestOutcome:
    finding = Finding(Said("diag.grad.not_sum"), names=names)
    return TestOutcome("t.py::test_a", 5, "a", False, finding, 5.0, f"misconception:{names}" if names else "test")


def test_a_wrong_file_must_lose_the_same_points_on_every_seed():
    exp = Expectation("wrong", "two_tables", ("test_a",))
    same = {1: (90.0, {"test_a": _shows("two_tables")}), 2: (90.0, {"test_a": _shows("two_tables")})}
    assert _row("w", exp, same, 100.0).ok
    varying = {
        1: (90.0, {"test_a": _shows("two_tables")}),
        2: (80.0, {"test_a": _shows("two_tables"), "test_b": _shows()}),
    }
    row = _row("w", exp, varying, 100.0)
    assert not row.ok and "depends on the seed" in row.note and row.failing_everywhere == ["test_a"]
    escaped = {1: (90.0, {"test_a": _shows("two_tables")}), 2: (100.0, {})}
    assert "seed 2: got full marks" in _row("w", exp, escaped, 100.0).note


def test_a_correct_file_must_get_full_marks_on_every_seed():
    exp = Expectation("correct", "")
    assert _row("c", exp, {1: (100.0, {}), 2: (100.0, {})}, 100.0).ok
    row = _row("c", exp, {1: (100.0, {}), 2: (95.0, {"test_g": _shows()})}, 100.0)
    assert not row.ok and row.note.startswith("seed 2: lost points")
    text = render([row], [1, 2], 3.0, in_process=True)
    assert "FAIL" in text and "1 files FAIL" in text
    assert sweep_json([row], [1, 2], 3.0)["ok"] is False


# CI has ~20 minutes on 2 cores for everything: the sweep tier takes five of the 25 seeds, spread over the range
# (one seed costs ~1-2 CPU minutes for the whole corpus); the default run grades every file on one of the 25
# (test_corpus.py), and `calibrate --seeds 25 --in-process` is the full sweep (its summary is in the
# calibration README).
SLOW_SEEDS = [1, 7, 13, 19, 25]


@pytest.mark.sweep
def test_the_sweep_holds_on_five_of_its_25_seeds_in_process():
    """Every correct and wrong weight_tying file on seeds 1, 7, 13, 19, 25 (`calibrate --seeds 25 --in-process`)."""
    start = time.monotonic()
    rows = sweep(assignment="weight_tying", seeds=SLOW_SEEDS, in_process=True, workers=2)
    print(f"the in-process sweep of {len(rows)} files on {len(SLOW_SEEDS)} seeds took {time.monotonic() - start:.0f} s")
    bad = [f"{r.file}: {r.note}" for r in rows if not r.ok]
    assert not bad, "\n".join(bad)
    assert len(rows) > 50 and all(sorted(r.scores) == SLOW_SEEDS for r in rows)
