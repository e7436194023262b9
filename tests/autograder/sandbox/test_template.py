"""The template: one torch import for a pool; every zygote and judge forked from it, replacements included, and a
zygote's runs hold nothing of the judge's side nor the real dnnlpy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from autograder.graders import get_assignment
from autograder.grading.pool.local import LocalPool
from autograder.grading.pool.worker import Worker
from autograder.sandbox import Limits

WEIGHT_TYING = get_assignment("weight_tying")
SEED = 20261202
LIMITS = Limits(wall_seconds=60)
# What a run finds of the grader in its own process: the judge's side (suite, plan, marking, outputs) and
# which dnnlpy it imported.
PROBE = """
import sys as _sys
_judging = ("autograder.grading", "autograder.graders.weight_tying.judge", "autograder.qa", "autograder.outputs")
print("judging modules:", sorted(m for m in _sys.modules if m.startswith(_judging)))
print("dnnlpy from:", _sys.modules["dnnlpy"].__file__)
"""


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


def _lines(result, prefix: str) -> list[str]:
    return [line[len(prefix) :].strip() for line in result.run.stdout_tail.splitlines() if line.startswith(prefix)]


def test_a_pools_zygotes_and_judges_are_forks_of_one_template_replacements_too(tmp_path):
    path = tmp_path / "ok.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    with LocalPool(assignment="selftest", limits=LIMITS, workers=2) as pool:
        results = pool.grade({"a": path, "b": path}, seed=SEED)
        template = pool.template.proc.pid
        parents = {_parent(p) for w in pool.workers for p in (w.zygote.proc.pid, w.judge.proc.pid)}
        worker = pool.workers[0]
        worker.judge.stop()  # as when a judge is replaced at its limits or once it has grown
        worker.restart()
        again = worker.grade_path(path, seed=SEED)
        replaced = {_parent(worker.zygote.proc.pid), _parent(worker.judge.proc.pid)}
        started = pool.template.started
    assert [r.score for r in results.values()] == [3, 3] and again.score == 3
    assert parents == {template} and replaced == {template}
    assert started == 1  # torch was imported once for the whole pool


def test_a_run_holds_nothing_of_the_judge_and_imports_the_graders_copy_of_dnnlpy(tmp_path):
    """The zygote is forked from the template after the judge was (and again after it had judged): neither
    the template nor a zygote holds the judge's modules, and the real dnnlpy was never imported before the
    zygote put the grader's copy first."""
    path = tmp_path / "solution.py"
    path.write_text(WEIGHT_TYING.solution_path.read_text() + PROBE)
    worker = Worker("weight_tying", LIMITS)
    try:
        first = worker.grade_path(path, seed=SEED)
        os.kill(worker.zygote.proc.pid, signal.SIGKILL)  # the next run is a child of a replacement zygote
        worker.zygote.proc.wait()
        second = worker.grade_path(path, seed=SEED)
        library, started = worker.library, worker.stats()["zygotes_started"]
    finally:
        worker.close()
    assert started == 2
    for result in (first, second):
        assert result.score == 100, result.output
        assert _lines(result, "judging modules:") == ["[]"], result.run.stdout_tail
        (found,) = _lines(result, "dnnlpy from:")
        assert library is not None and found.startswith(os.path.join(library, "dnnlpy")), (found, library)


def test_a_template_that_died_is_started_again_and_grading_goes_on(tmp_path):
    path = tmp_path / "ok.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    worker = Worker("selftest", LIMITS)
    try:
        assert worker.grade_path(path, seed=SEED).score == 3
        os.kill(worker.template.proc.pid, signal.SIGKILL)
        worker.template.proc.wait()
        worker.restart()  # what a pool does after a grader error
        again = worker.grade_path(path, seed=SEED)
        started = worker.template.started
    finally:
        worker.close()
    assert (again.status, again.score, started) == ("ok", 3, 2)


def test_torchs_objects_are_left_out_of_every_later_collection():
    """What the template imported is frozen before it forks: a child's collections (the judge's, a zygote's)
    never walk torch's objects, while the collector runs again and an object made afterwards is collected."""
    code = (
        "import gc\n"
        "from autograder.sandbox.template import import_torch\n"
        "import_torch()\n"
        "import torch\n"
        "after = type('After', (), {})\n"
        "tracked = gc.get_objects()\n"
        "print(any(o is torch.nn.Module for o in tracked), any(o is after for o in tracked), gc.isenabled())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"]


def _mapped(pid: int) -> dict[str, bool]:
    """Which libraries' shared objects a process maps."""
    with open(f"/proc/{pid}/maps") as fh:
        text = fh.read()
    return {name: f"/{name}/" in text for name in ("torch", "matplotlib")}


def test_a_pool_imports_matplotlib_once_in_its_template_and_a_single_grade_does_not(tmp_path):
    """A pool whose zygotes would each import matplotlib (the notebook plots) has its template import it before
    it forks them (their own import was ~0.6 CPU-s each); a template for a class of one, or for an assignment
    that warms no plotting, imports torch alone; the runs grade as before."""
    solution = tmp_path / "solution.py"
    solution.write_text(WEIGHT_TYING.solution_path.read_text())
    ok = tmp_path / "ok.py"
    ok.write_text("def add(a, b):\n    return a + b\n")
    seen = {}
    for name, assignment, path, options in (
        ("pool", "weight_tying", solution, {"workers": 2}),
        ("one", "weight_tying", solution, {"workers": 1, "warm_named": True}),
        ("selftest", "selftest", ok, {"workers": 2}),
    ):
        with LocalPool(assignment=assignment, limits=LIMITS, **options) as pool:
            results = pool.grade({"a": path, "b": path}, seed=SEED)  # the template has forked: it is warm
            seen[name] = (pool.template.shared, _mapped(pool.template.proc.pid), [r.score for r in results.values()])
    plotting = ("matplotlib", "matplotlib.pyplot", "numpy")
    assert seen["pool"] == (plotting, {"torch": True, "matplotlib": True}, [100] * 2)
    assert seen["one"] == ((), {"torch": True, "matplotlib": False}, [100] * 2)
    assert seen["selftest"] == ((), {"torch": True, "matplotlib": False}, [3, 3])


def test_the_template_imports_no_module_but_public_libraries():
    from autograder.sandbox.template import import_torch
    from autograder.sandbox.warm import Template

    secret = "autograder.graders.weight_tying.judge.suite"
    with pytest.raises(ValueError, match="imports only"):
        Template(shared=(secret,))
    with pytest.raises(ValueError, match="imports only"):
        import_torch(shared=("matplotlib", secret))  # the process side refuses too, before importing anything
