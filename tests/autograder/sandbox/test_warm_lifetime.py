"""The warm path's runs end with their grader: a grader killed mid-run (no sweep, no time limit) leaves nothing of
the run behind (the fresh path's twin: ``test_launch.test_sandbox_dies_with_a_killed_grader``)."""

from __future__ import annotations

import os

from killed_grader import left_after_killing

# A grader that starts one warm run whose submission names itself and sleeps, for a test that kills the grader.
GRADER = """
from autograder.graders import get_assignment
from autograder.grading.pipeline import Submission, job
from autograder.sandbox import Limits, probe_isolation
from autograder.sandbox.config import jail_config
from autograder.sandbox.runs import RUNNER_PACKAGES, run_cgroup
from autograder.sandbox.slots import Slot
from autograder.sandbox.view import build_view
from autograder.sandbox.warm import Zygote, run_forked

spec, isolation, limits = get_assignment("selftest"), probe_isolation(), Limits(wall_seconds=100)
zygote = Zygote(
    ("autograder.runner.__main__", "coursecheck.notebook", "autograder.graders.selftest.runner.experiments")
)
zygote.wait_ready()
view = build_view((*RUNNER_PACKAGES, spec.runner_package), []) if isolation.mode == "namespaces" else None
group, isolation = run_cgroup(limits, isolation)
cfg = jail_config(mode=isolation.mode, limits=limits, uid=Slot().uid, workdir="/tmp", view=view,
                  cgroup_procs=group.procs_files if group else None)
payload = Submission("py", PAYLOAD, "sub.py")
stdin = job(spec, spec.make_plan(11), payload)
run_forked(zygote, cfg=cfg, stdin=stdin, limits=limits, isolation=isolation, group=group)
"""


def test_a_warm_run_dies_with_a_killed_grader(tmp_path):
    """The run's PID 1 is the zygote's child and dies with it (PDEATHSIG); the zygote ends when the grader's end
    of its socket closes. So a grader killed mid-run (no sweep, no time limit) leaves none of the run behind: the
    kernel kills every process of the run's PID namespace with its PID 1, the runner's own children included."""
    token = f"agwarm{os.getpid() % 100000}"
    payload = (
        "import ctypes, subprocess, time\n"
        f"ctypes.CDLL(None).prctl(15, b'{token}', 0, 0, 0)\n"
        "subprocess.Popen(['sleep', '120'])\n"  # a child of the runner's, in the run's namespace too
        "time.sleep(120)\n"
    )
    grader = tmp_path / "grader.py"
    grader.write_text(GRADER.replace("PAYLOAD", repr(payload)))
    left = left_after_killing(grader, token, start_seconds=30, end_seconds=10, cwd=tmp_path)
    assert left == [], "the warm run outlived its grader"
