"""pytest's own runner over the hidden suite gives the kit's verdicts: a few calibration files graded by the real
pipeline (pool, sandbox, judge process) with their evidence kept, then the suite run by pytest on each
(``--evidence``): every test passes or fails as the kit's judge decided, with the same finding. The whole corpus:
test_calibration.py (a sweep)."""

from __future__ import annotations

import pytest

from autograder.graders import get_assignment
from autograder.grading.executors import grade_batch
from autograder.grading.judge.kept import Kept

SPEC = get_assignment("weight_tying")
SEED = 20260611
# One of each kind of verdict: every test passing, a misconception with its knock-ons, evidence owed
SAMPLE = ("correct/c01_chapter_way.py", "wrong/w01_deepcopy_head.py", "attacks/a01_exit_at_import.py")


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> dict[str, Kept]:
    """Each sample file graded through the pool, its evidence kept in a folder of its own."""
    cal = SPEC.calibration_dir
    found: dict[str, Kept] = {}
    results = grade_batch(
        assignment=SPEC.name,
        submissions={name: cal / name for name in SAMPLE},
        seed=SEED,
        workers=1,
        progress=False,
        hide=(cal,),
        keep=found.__setitem__,
    )
    assert all(r.grader_error is None for r in results.values()), {n: r.grader_error for n, r in results.items()}
    folders = {}
    for name, one in found.items():
        folders[name] = tmp_path_factory.mktemp(name.replace("/", "-"))
        one.write(folders[name])
    return folders


def test_every_sample_file_was_kept_with_each_kind_of_verdict(kept):
    from autograder.grading.judge.kept import read_kept

    assert sorted(kept) == sorted(SAMPLE)
    outcomes = {name: read_kept(folder).outcomes for name, folder in kept.items()}
    assert all(o["passed"] for o in outcomes[SAMPLE[0]])
    kinds = {o["finding"].get("names") is not None for o in outcomes[SAMPLE[1]] if not o["passed"]}
    assert kinds == {True, False}  # a misconception, and what waits on it
    assert all(o["finding"].get("owed") for o in outcomes[SAMPLE[2]])


@pytest.mark.parametrize("name", SAMPLE)
def test_pytest_gives_the_kits_verdicts(name, kept, differences_on_pytest):
    assert differences_on_pytest(kept[name]) == []


def test_one_test_alone_and_the_first_failure_stop(kept, suite_on_pytest):
    """-k runs the tests it names, -x stops at the first failure: pytest's own options, on the kit's tests."""
    folder = kept["wrong/w01_deepcopy_head.py"]
    code, seen = suite_on_pytest(folder, "-k", "test_tied_lm_counts_one_table")
    assert (code, list(seen)) == (1, ["test_counts.py::test_tied_lm_counts_one_table"])
    assert seen["test_counts.py::test_tied_lm_counts_one_table"][1]["names"] == "two_tables"
    code, seen = suite_on_pytest(folder, "-x")
    assert code == 1 and [passed for passed, _ in seen.values()].count(False) == 1
