"""A warm worker grades like the fresh-interpreter path, keeps submissions apart, and holds the judge to its limits."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import textwrap

import pytest

from autograder.graders import get_assignment
from autograder.grading.executors import grade_file
from autograder.grading.fresh import grade_submission
from autograder.grading.pipeline import Submission
from autograder.grading.pool.worker import Worker, named_warm_imports, own_texts
from autograder.grading.result import JUDGE_LIMIT
from autograder.sandbox import Limits
from coursecheck.cells import demo_digest

SELFTEST = get_assignment("selftest")
WEIGHT_TYING = get_assignment("weight_tying")
SEED = 20261130
LIMITS = Limits(wall_seconds=30)
# A submission's last lines: which of two warm imports (the weight_tying grader's) were there when it ran.
WARMED = (
    "\nimport sys as _sys\n"
    "print('warm:', [m for m in ('matplotlib.pyplot', 'dnnlpy.tokenizers') if m in _sys.modules])\n"
)


# The seconds a time budget had (autograder/runner/budget.py): an experiment's share of the time left
# depends on how long the run took before it, which differs between the paths on a loaded machine.
_BUDGET_SECONDS = re.compile(r"(did not finish within|was stopped after) [\d.]+ s")
_BUDGET_SECONDS_ZH = re.compile(r"在 [\d.]+ 秒内")


def _graded(result) -> tuple:
    """What must not differ between the two paths: status, score, every test's verdict, charge and finding
    (its message in English and in the submission's language)."""
    same = lambda text: _BUDGET_SECONDS_ZH.sub("在 N 秒内", _BUDGET_SECONDS.sub(r"\1 N s", text))  # noqa: E731
    return (
        result.status,
        result.score,
        result.max_score,
        [
            (t.name, t.points, t.area, t.passed, t.charged, t.charged_to, same(t.message("en")), same(t.message("zh")))
            for t in result.tests
        ],
        same(result.output),
    )


def _files(spec, names):
    return [p for name in names for p in sorted(spec.calibration_dir.glob(name))]


def _same_on_both_paths(files) -> list:
    """The warm path's results, each checked equal to the fresh path's."""
    workers, out = {}, []
    try:
        for spec, path in files:
            worker = workers.setdefault(spec.name, Worker(spec.name, LIMITS))
            warm = worker.grade_path(path, seed=SEED)
            fresh = grade_submission(spec=spec, path=path, seed=SEED, limits=LIMITS)
            assert _graded(warm) == _graded(fresh), path.name
            assert warm.seed == fresh.seed == SEED
            out.append(warm)
    finally:
        for worker in workers.values():
            worker.close()
    return out


def test_pool_and_fresh_paths_give_identical_scores_and_messages():
    """A sample: a correct, a wrong and a hostile file of each grader (the sweep below takes more), and a
    generate that never ends (stopped at its time budget: the same budget and words on both paths)."""
    files = [(SELFTEST, p) for p in _files(SELFTEST, ["correct/plus.py", "wrong/*.py", "attacks/fake_json_exit.py"])]
    files += [(WEIGHT_TYING, p) for p in _files(WEIGHT_TYING, ["correct/c08_*", "wrong/w33_*", "wrong/w62_*"])]
    _same_on_both_paths(files)


def test_both_paths_judge_a_chinese_hand_in_in_chinese_alike(tmp_path):
    """The submission's language reaches the judge on both paths: each failed test's message, as the student
    reads it once the run is marked, is the judge's Chinese rendering (English if the language got lost)."""
    (wrong,) = _files(WEIGHT_TYING, ["wrong/w33_*"])
    chinese = tmp_path / wrong.name
    chinese.write_text("# language: zh\n" + wrong.read_text(encoding="utf-8"), encoding="utf-8")
    (warm,) = _same_on_both_paths([(WEIGHT_TYING, chinese)])
    failed = [t for t in warm.tests if not t.passed]
    assert warm.language == "zh"
    shown = [t.message(warm.language) for t in failed]
    assert failed and all(re.search(r"[\u4e00-\u9fff]", text) for text in shown), shown


@pytest.mark.sweep
def test_pool_and_fresh_paths_agree_on_every_selftest_file_and_a_weight_tying_sample():
    files = [(SELFTEST, p) for p in _files(SELFTEST, ["*/*.py"])]
    files += [
        (WEIGHT_TYING, p)
        for p in _files(
            WEIGHT_TYING,
            ["correct/c01_*", "correct/c08_*", "wrong/w05_*", "wrong/w21_*", "wrong/w33_*", "attacks/a02_*"]
            + ["wrong/w61_*"],  # a try-it cell and a generate that never end: both stopped at their budgets
        )
    ]
    _same_on_both_paths(files)


def test_a_polluting_submission_does_not_change_the_next_ones_grade(tmp_path):
    polluter = tmp_path / "a.py"
    polluter.write_text(
        textwrap.dedent("""
        import os, subprocess, threading, time, torch, dnnlpy
        torch.add = lambda a, b: a - b
        torch.Tensor.__add__ = lambda a, b: a * 0
        dnnlpy.LEFT_BEHIND = True
        open("/tmp/wtcal_left_behind", "w").write("A was here")
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        subprocess.Popen(["sleep", "60"])
        def add(a, b):
            return a + b
        """)
    )
    correct = tmp_path / "b.py"
    correct.write_text("import torch\ndef add(a, b):\n    return torch.add(a, b)\n")
    solo_worker, worker = Worker("selftest", LIMITS), Worker("selftest", LIMITS)
    try:
        solo = solo_worker.grade_path(correct, seed=SEED)
        polluted = worker.grade_path(polluter, seed=SEED)
        after = worker.grade_path(correct, seed=SEED)
    finally:
        solo_worker.close()
        worker.close()
    assert polluted.score < polluted.max_score
    assert after.score == after.max_score == 3
    assert _graded(after) == _graded(solo)
    assert after.run.stdout_tail == solo.run.stdout_tail and after.run.notes == solo.run.notes == []


def test_judge_past_its_time_limit_gives_a_judge_limit_result_and_a_fresh_judge(tmp_path):
    path = tmp_path / "solution.py"
    path.write_text(WEIGHT_TYING.solution_path.read_text() + WARMED)
    worker = Worker("weight_tying", Limits(wall_seconds=60, judge_seconds=1e-6))
    try:
        result = worker.grade_path(path, seed=SEED)
        stats = worker.stats()
    finally:
        worker.close()
    assert result.status == JUDGE_LIMIT and result.grader_error is None
    assert result.max_score == 100  # every test is listed; those not judged score 0
    assert any("not judged: the judge stopped at its time limit" in t.message() for t in result.tests)
    assert "judge's own time or memory limit" in result.output
    assert stats["judges_started"] >= 1
    # The grader's warm imports were there before the run: the zygote imported them once.
    assert "warm: ['matplotlib.pyplot', 'dnnlpy.tokenizers']" in result.run.stdout_tail


def test_a_dead_zygote_is_replaced_and_the_submission_graded(tmp_path):
    path = tmp_path / "ok.py"
    path.write_text("def add(a, b):\n    return a + b\n" + WARMED)
    worker = Worker("selftest", LIMITS)
    try:
        assert worker.grade_path(path, seed=SEED).score == 3
        os.kill(worker.zygote.proc.pid, signal.SIGKILL)
        worker.zygote.proc.wait()
        again = worker.grade_path(path, seed=SEED)
        stats = worker.stats()
    finally:
        worker.close()
    assert again.score == 3 and again.status == "ok"
    assert "warm: []" in again.run.stdout_tail  # the selftest grader warms nothing its add() does not need
    assert stats["zygotes_started"] == 2 and stats["runs"] == 2


def test_warm_imports_are_those_whose_package_a_source_names_as_a_word():
    optional = ("matplotlib", "matplotlib.pyplot", "dnnlpy.tokenizers", "numpy")
    sources = ["import dnnlpy.nn as dnn\n# plots come later: matplotlib\n", "x = mynumpyish = 1\n"]
    assert named_warm_imports(optional, sources) == ("matplotlib", "matplotlib.pyplot", "dnnlpy.tokenizers")
    assert named_warm_imports(optional, []) == ()


def test_a_released_demonstration_or_a_test_cell_names_no_warm_import():
    """What a class of one warms is read from the cells that can run: a demonstration as released (the run leaves
    it out unless another cell needs it) and an nbgrader test cell name nothing; the same demonstration edited by
    the student, a cell of the student's own, a .py file and a notebook that is not JSON name what they say."""
    optional = ("matplotlib", "matplotlib.pyplot", "dnnlpy.tokenizers", "numpy")
    demo = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
    test = {"nbgrader": {"grade": True, "solution": False, "points": 1}}

    def notebook(*cells):
        code = [{"cell_type": "code", "source": text, "metadata": meta} for text, meta in cells]
        return Submission("ipynb", json.dumps({"cells": code, "nbformat": 4, "nbformat_minor": 5}), "hand-in.ipynb")

    released = {demo_digest(demo)}
    ours = notebook((demo, {}), ("from dnnlpy.tokenizers import Tokenizer\n", {}), ("import numpy\n", test))
    assert named_warm_imports(optional, own_texts(ours, released)) == ("dnnlpy.tokenizers",)
    assert named_warm_imports(optional, own_texts(ours)) == ("matplotlib", "matplotlib.pyplot", "dnnlpy.tokenizers")
    edited = notebook((demo + "plt.show()\n", {}))
    assert named_warm_imports(optional, own_texts(edited, released)) == ("matplotlib", "matplotlib.pyplot")
    # a script, and a "notebook" that is not JSON: read whole
    for whole in (Submission("py", demo, "hand-in.py"), Submission("ipynb", demo, "hand-in.ipynb")):
        assert own_texts(whole, released) == [demo]


def test_a_class_of_one_warms_only_the_imports_its_file_names(tmp_path):
    """A file that never names matplotlib is graded without waiting for it (and graded the same); one that
    names it finds it imported already."""
    probe = "\nimport sys as _sys\nprint('plots warm:', ('matplot' + 'lib.pyplot') in _sys.modules)\n"
    outputs = {}
    for name, extra in (("quiet", ""), ("plots", "\n# the notebook plots its losses with matplotlib\n")):
        path = tmp_path / name / "solution.py"
        path.parent.mkdir()
        path.write_text(WEIGHT_TYING.solution_path.read_text() + extra + probe)
        result = grade_file(assignment="weight_tying", path=path, seed=SEED, limits=Limits(wall_seconds=60))
        assert result.score == result.max_score == 100, result.output
        outputs[name] = result.run.stdout_tail
    assert "plots warm: False" in outputs["quiet"] and "plots warm: True" in outputs["plots"], outputs


def _resident(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmRSS:"))


def test_a_submission_that_grows_the_judge_changes_no_other_students_mark():
    """a38 reports the largest sizes the judge rebuilds, new ones on every run: a judge that kept what it built
    held ~240 MB more after each (1.25 GB after three), and the next student met the judge's memory limit."""
    victim = WEIGHT_TYING.calibration_dir / "wrong" / "w13_ignores_embed_dim.py"  # judged on its own sizes too
    attack = WEIGHT_TYING.calibration_dir / "attacks" / "a38_judge_growth.py"
    worker = Worker("weight_tying", LIMITS)
    try:
        alone = worker.grade_path(victim, seed=SEED)
        held = _resident(worker.judge.proc.pid)
        attacks = [worker.grade_path(attack, seed=SEED) for _ in range(2)]
        grown = _resident(worker.judge.proc.pid) - held
        after = worker.grade_path(victim, seed=SEED)
    finally:
        worker.close()
    assert [(a.score, a.status) for a in attacks] == [(0, "ok"), (0, "ok")]
    assert grown < 100 << 20, f"the judge holds {grown >> 20} MiB more after two crafted submissions"
    assert _graded(after) == _graded(alone)


class _SlowJudgeStart:
    """subprocess, but a judge process sleeps `seconds` before its imports (a loaded machine's start-up)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __getattr__(self, name):
        return getattr(subprocess, name)

    def Popen(self, args, **kwargs):  # noqa: N802 (subprocess's name)
        if "autograder.grading.judge.server" in args:
            at = args.index("-m")
            code = (
                f"import sys, time; time.sleep({self.seconds}); "
                "from autograder.grading.judge.server import main; main()"
            )
            args = [*args[:at], "-c", code, *args[at + 2 :]]
        return subprocess.Popen(args, **kwargs)


def test_a_restarted_judges_start_up_is_not_charged_to_the_next_student(tmp_path, monkeypatch):
    from autograder.grading.judge import client

    path = tmp_path / "ok.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    worker = Worker("selftest", Limits(wall_seconds=10))
    try:
        assert worker.grade_path(path, seed=SEED).score == 3
        monkeypatch.setattr(client, "subprocess", _SlowJudgeStart(15))  # longer than the student's limit
        worker.judge.template = None  # the next judge a new interpreter, which can be slowed (not a fork)
        os.kill(worker.judge.proc.pid, signal.SIGKILL)  # the judge is gone: the next student gets a new one
        worker.judge.proc.wait()
        again = worker.grade_path(path, seed=SEED)
        timings, stats = dict(worker.timings), worker.stats()
    finally:
        worker.close()
    assert (again.status, again.score) == ("ok", 3)
    assert stats["judges_started"] == 2
    assert again.run.wall_seconds < timings["judge_ready"]  # the start-up was waited for before the run began


def test_a_judge_that_has_grown_is_replaced_between_students_not_during(tmp_path, monkeypatch):
    from autograder.grading.judge import client

    monkeypatch.setattr(client, "GROWN_SHARE", 0.0)  # every judge counts as grown after its judgement
    path = tmp_path / "ok.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    worker = Worker("selftest", LIMITS)
    try:
        results = [worker.grade_path(path, seed=SEED) for _ in range(2)]
        stats = worker.stats()
    finally:
        worker.close()
    assert [(r.status, r.score) for r in results] == [("ok", 3), ("ok", 3)]  # each judged whole, then replaced
    assert (stats["judges_started"], stats["judges_replaced"]) == (3, 2)


def test_the_workers_warm_up_is_not_the_first_submissions_grading_time(monkeypatch):
    """Two correct runs of ~1 s were reported as 12.7 s beside a 13.3 s hang: the zygote's warm-up (torch's
    import) and the judge's start-up are the worker's, not the first student's. Both are made slower here."""
    import time

    from autograder.grading.judge.client import JudgeProcess
    from autograder.sandbox.warm import Zygote

    slow = 3.0
    waited, readied = Zygote.wait_ready, JudgeProcess.ready

    def wait_ready(self, *args, **kwargs):
        if not self._ready:
            time.sleep(slow)
        return waited(self, *args, **kwargs)

    def ready(self, *args, **kwargs):
        time.sleep(slow)
        return readied(self, *args, **kwargs)

    monkeypatch.setattr(Zygote, "wait_ready", wait_ready)
    monkeypatch.setattr(JudgeProcess, "ready", ready)
    worker = Worker("selftest", LIMITS)
    try:
        started = time.monotonic()
        result = worker.grade_path(_files(SELFTEST, ["correct/plus.py"])[0], seed=SEED)
        wall = time.monotonic() - started
    finally:
        worker.close()
    assert result.score == result.max_score > 0
    assert 0 < result.execution_time < wall - 2 * slow, (result.execution_time, wall)


def test_the_fresh_paths_judge_start_up_is_not_the_submissions_grading_time(monkeypatch):
    import time

    from autograder.grading.judge.client import JudgeProcess

    readied = JudgeProcess.ready

    def ready(self, *args, **kwargs):
        time.sleep(3.0)
        return readied(self, *args, **kwargs)

    monkeypatch.setattr(JudgeProcess, "ready", ready)
    started = time.monotonic()
    result = grade_submission(spec=SELFTEST, path=_files(SELFTEST, ["correct/plus.py"])[0], seed=SEED, limits=LIMITS)
    wall = time.monotonic() - started
    assert result.score == result.max_score > 0
    assert 0 < result.execution_time < wall - 3.0, (result.execution_time, wall)


def test_the_job_made_from_the_judges_part_is_the_job_of_the_plan_drawn_afresh():
    from autograder.grading import pipeline

    submission = Submission("py", "def add(a, b):\n    return a + b  # 加法\n", "hand-in.py")
    worker = Worker("selftest", LIMITS)
    try:
        worker.start()
        made = [pipeline.job_for(worker.judge.job_part(seed), submission) for seed in (SEED, SEED + 1)]
        worker.judge.stop()  # a replaced judge draws the plan again: the same part
        again = pipeline.job_for(worker.judge.job_part(SEED), submission)
    finally:
        worker.close()
    fresh = [pipeline.job(SELFTEST, SELFTEST.make_plan(seed), submission) for seed in (SEED, SEED + 1)]
    assert made == fresh and again == fresh[0] and fresh[0] != fresh[1]
