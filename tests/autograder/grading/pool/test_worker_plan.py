"""A warm worker hands its zygote each plan's part once (``Worker.plan_memo``): the zygote decodes it and draws what
the plan's runs share (``AssignmentSpec.plan_ready``), each run's job then names the part by its digest
(``pipeline.job_naming``) and the runner takes it from the process it was forked from. A run of any other plan, or
of none, is forked without it; a class of one hands over nothing."""

from __future__ import annotations

import pytest

from autograder.grading import pipeline
from autograder.grading.pipeline import Submission
from autograder.grading.pool.worker import Worker
from autograder.protocol.frames import JOB, NO_PART, PLAN_PART, join_frame, read_frame, split_frame
from autograder.runner.__main__ import _whole
from autograder.sandbox import Limits

LIMITS = Limits(wall_seconds=60)
SEED = 20261208
# What a run finds of its fork server's memo (the weight_tying runner's): how many values and tables it holds.
PROBE = Submission(
    "py",
    "from autograder.graders.weight_tying.runner import values\n"
    "print('memo', len(values._DRAWN), len(values._TABLES))\n",
    "probe.py",
)


def _memo(result) -> tuple[int, int]:
    line = next(line for line in result.run.stdout_tail.splitlines() if line.startswith("memo "))
    return int(line.split()[1]), int(line.split()[2])


@pytest.fixture(scope="module")
def worker():
    worker = Worker("weight_tying", LIMITS)
    worker.start()
    yield worker
    worker.close()


def test_a_run_of_the_plan_holds_its_memo_and_a_run_of_none_does_not(worker):
    first = worker.grade(PROBE, seed=SEED)
    assert worker.zygote.plan_digest == worker.plan_memo() is not None and not worker.plan_error
    assert _memo(first)[0] > 0 and _memo(first)[1] > 0
    worker.memo_plans = False  # a run that names no plan: the zygote drops the memo before it forks
    try:
        assert _memo(worker.grade(PROBE, seed=SEED)) == (0, 0)
        assert worker.zygote.plan_digest is None  # the grader's record follows the zygote's rule
    finally:
        worker.memo_plans = True
    # handed over again (as to a new zygote), and a job that names it is whole again in the runner
    assert _memo(worker.grade(PROBE, seed=SEED)) == _memo(first)
    assert worker.zygote.plan_digest == worker.plan_memo() is not None


def test_a_new_plan_replaces_the_last_and_grades_as_a_fresh_one(worker):
    before = worker.zygote.plan_digest
    solution = worker.grade_path(worker.spec.solution_path, seed=SEED + 1)
    assert worker.zygote.plan_digest not in (None, before)
    assert solution.score == solution.max_score
    assert _memo(worker.grade(PROBE, seed=SEED + 1))[0] > 0


def test_a_zygote_handed_what_is_not_a_plan_says_so_and_its_runs_read_whole_jobs():
    worker = Worker("weight_tying", LIMITS)
    try:
        worker.start()
        worker.zygote.wait_ready()
        assert not worker.zygote.plan("not-a-plan", b"\x00" * 8)
        assert "the plan's memo was not made" in worker.zygote.plan_error
        assert worker.zygote.plan_digest is None
        solution = worker.grade_path(worker.spec.solution_path, seed=SEED)
        assert solution.score == solution.max_score
    finally:
        worker.close()


def test_a_job_naming_its_part_is_the_whole_job_once_the_runner_has_the_part():
    submission = Submission("py", "x = '加法'\n", "hand-in.py")
    part = split_frame({"plan": {"seed": 3, "ids": [1, 2]}, "experiments": "a.b:c"})
    whole = read_frame(pipeline.job_for(part, submission))[1]
    named = read_frame(pipeline.job_naming("d1", submission))[1]
    assert named[PLAN_PART] == "d1" and "plan" not in named
    decoded = read_frame(join_frame(JOB, {}, part))[1]
    assert _whole(named, ("d1", decoded)) == whole
    assert list(_whole(read_frame(pipeline.job_naming("d1", submission))[1], ("d1", decoded))) == list(whole)
    with pytest.raises(ValueError, match="'d2'.*not handed"):
        _whole(read_frame(pipeline.job_naming("d2", submission))[1], ("d1", decoded))
    with pytest.raises(ValueError, match="'d1'.*not handed"):
        _whole(read_frame(pipeline.job_naming("d1", submission))[1], None)
    assert _whole(dict(whole), None) == whole  # a whole job needs no part


def test_no_part_is_the_part_of_an_empty_record():
    assert NO_PART == split_frame({})
