"""The warm fork server: a child per run, as isolated as a fresh interpreter, and nothing survives into the next."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from autograder.graders import get_assignment
from autograder.protocol.decode import decode_frames
from autograder.sandbox import Limits, probe_isolation
from autograder.sandbox.cgroups import cgroup_support
from autograder.sandbox.config import jail_config
from autograder.sandbox.runs import RUNNER_PACKAGES, run_cgroup
from autograder.sandbox.slots import Slot, _runs_as
from autograder.sandbox.view import build_view
from autograder.sandbox.warm import Zygote, run_forked

SPEC = get_assignment("selftest")
ISOLATION = probe_isolation()
LIMITS = Limits(wall_seconds=20)

# Submission A leaves everything it can behind: patched torch and dnnlpy, a file in /tmp, a thread, a child.
POLLUTER = """
import os, subprocess, threading, time, torch, dnnlpy, dnnlpy.nn.functional as F
torch.add = lambda a, b: a - b
torch.Tensor.__add__ = lambda a, b: a * 0
dnnlpy.LEFT_BEHIND = True
F.linear = None
os.environ["WTCAL_LEFT"] = "1"
open("/tmp/wtcal_left_behind", "w").write("A was here")
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
subprocess.Popen(["sleep", "60"])
def add(a, b):
    return a + b
"""

# Submission B is correct and reports what it finds.
OBSERVER = """
import os, torch, dnnlpy, dnnlpy.nn.functional as F
def add(a, b):
    return torch.add(a, b)
print("tmp", sorted(os.listdir("/tmp")), "patched", hasattr(dnnlpy, "LEFT_BEHIND"), F.linear is None,
      "env", os.environ.get("WTCAL_LEFT"), "add", torch.add(torch.ones(1), torch.ones(1)).item(),
      "rng", torch.rand(1).item(), "procs", len([p for p in os.listdir("/proc") if p.isdigit()]))
"""


def _job(source: str) -> bytes:
    from autograder.grading.pipeline import Submission, job

    buf = io.BytesIO()
    buf.write(job(SPEC, SPEC.make_plan(11), Submission("py", textwrap.dedent(source), "sub.py")))
    return buf.getvalue()


@pytest.fixture(scope="module")
def warm():
    zygote = Zygote(
        ("autograder.runner.__main__", "coursecheck.notebook", "autograder.graders.selftest.runner.experiments")
    )
    zygote.wait_ready()
    slot = Slot()
    view = build_view((*RUNNER_PACKAGES, SPEC.runner_package), []) if ISOLATION.mode == "namespaces" else None
    yield zygote, slot, view
    zygote.close()
    slot.release()


def _cfg(warm, limits: Limits, cgroup_procs: list[str] | None) -> dict:
    _, slot, view = warm
    return jail_config(
        mode=ISOLATION.mode, limits=limits, uid=slot.uid, workdir="/tmp", view=view, cgroup_procs=cgroup_procs
    )


def run(warm, source: str, limits: Limits = LIMITS):
    zygote = warm[0]
    group, isolation = run_cgroup(limits, ISOLATION)
    cfg = _cfg(warm, limits, group.procs_files if group else None)
    try:
        return run_forked(zygote, cfg=cfg, stdin=_job(source), limits=limits, isolation=isolation, group=group)
    finally:
        if group is not None:
            group.remove()


def _evidence(box) -> dict:
    evidence, notes = decode_frames(box.evidence)
    return {name: record for name, record in evidence.items()}, notes


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _tmp_entries(view: dict | None) -> list[str]:
    """What a run's own /tmp holds before it writes anything: nothing, except the top folders of the view's
    read-only mounts that lie under /tmp (a kit checked out under /tmp shows there at its own path, which
    its venv and editable install name)."""
    if view is None:
        return []
    shown = view["binds"] + view["kit_binds"] + ([view["kit_mask"]] if view["kit_mask"] else [])
    return sorted({p.split("/")[2] for p in shown if p.startswith("/tmp/")})


def test_a_submission_cannot_affect_the_next_one(warm):
    solo = run(warm, OBSERVER)
    polluted = run(warm, POLLUTER)
    after = run(warm, OBSERVER)
    assert polluted.exit_code == 0 and solo.exit_code == 0 and after.exit_code == 0, after.stderr
    expected = f"tmp {_tmp_entries(warm[2])} patched False False env None add 2.0"
    assert expected in solo.stdout, solo.stdout
    assert after.stdout == solo.stdout  # same files, modules, environment, torch, RNG, process count
    assert _same(_evidence(after)[0], _evidence(solo)[0])
    assert not after.notes and not polluted.notes, (after.notes, polluted.notes)


def test_wall_time_limit_kills_the_tree_and_the_zygote_serves_the_next_run(warm):
    start = time.monotonic()
    looping = run(
        warm,
        # SIGALRM ignored: the runner's own cell budget (runner/budget.py) cannot stop this loop, the sandbox must
        "import os, signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nif os.fork() == 0:\n    os.setsid()\n"
        "while True:\n    pass\n",
        Limits(wall_seconds=1.5),
    )
    assert looping.timed_out and looping.exit_code is None
    assert time.monotonic() - start < 15
    assert "processes survived the kill" not in looping.notes
    assert run(warm, OBSERVER).exit_code == 0


@pytest.mark.skipif(ISOLATION.mode == "rlimits" or cgroup_support() is None, reason="needs root and cgroup controllers")
@pytest.mark.parametrize("left", [0, 1])
def test_the_runs_cgroup_is_killed_before_its_uid_is_swept(warm, monkeypatch, left):
    """The cgroup's kill waits (up to 10 s) until its processes are gone; the uid sweep gives up after half a second.
    Swept first, under load, a fork bomb's children and children holding more memory than the cap were still going
    (calibrate's attacks a12 and a26: "processes survived"). With namespaces, a cgroup that ended empty leaves no
    process of the uid to sweep (none leaves its PID namespace or its cgroup): the sweep, which reads every process's
    status on the machine, runs only when the cgroup's kill left some."""
    from autograder.sandbox import cgroups
    from autograder.sandbox import warm as warm_path

    order, kill, sweep = [], cgroups.RunCgroup.kill, warm_path.kill_uid
    monkeypatch.setattr(cgroups.RunCgroup, "kill", lambda group: order.append("cgroup") or kill(group) + left)
    monkeypatch.setattr(warm_path, "kill_uid", lambda uid: order.append("uid") or sweep(uid))
    box = run(warm, OBSERVER)
    swept = ISOLATION.mode != "namespaces" or bool(left)
    assert box.exit_code == 0 and order[0] == "cgroup", (order, box.stderr)
    assert ("uid" in order) == swept and (not swept or order[1] == "uid"), order


def test_the_runners_end_is_reported_and_its_orphans_end_with_the_run(warm):
    """With namespaces the runner is not PID 1's child but the zygote's, which reports how it ended: a signal is
    a signal. A process it leaves behind (here a grandchild in a session of its own, an orphan once its parent
    exits, which PID 1 adopts and does not reap) is gone once the run is over."""
    box = run(
        warm,
        """
        import os, signal, subprocess, time
        if os.fork() == 0:
            os.setsid()
            subprocess.Popen(["sleep", "60"])
            os._exit(0)
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)
        """,
    )
    assert box.signal == signal.SIGKILL and box.exit_code is None, (box.signal, box.exit_code, box.stderr)
    assert "survived" not in box.notes, box.notes
    assert not [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if _runs_as(pid, warm[1].uid)]


FLOOD = """
import os, sys
def offer(fd):
    count, block = 0, b"x" * (1 << 20)
    for _ in range(256):  # 256 MiB
        try:
            count += os.write(fd, block)
        except OSError:
            break
    return count
evidence = int(sys.argv[-1])  # the runner's evidence channel
os.write(evidence, ("|%d,%d|" % (offer(1), offer(2))).encode())
os._exit(7 if offer(evidence) < 256 << 20 else 0)
"""


def test_a_flood_past_the_caps_is_read_to_a_bound_on_the_warm_path_too(warm):
    """Issue 45: no test held the warm path to reading a flood of stdout, stderr or the evidence pipe only so far
    (96 MiB read whole); each is read to its bound, then the run's writes fail, and the result says so."""
    box = run(warm, FLOOD, Limits(wall_seconds=20, capture_bytes=64 * 1024, evidence_bytes=1 << 20))
    accepted = [int(n) for n in box.evidence.split(b"|")[1].split(b",")]
    assert all(n < 10 << 20 for n in accepted), accepted  # 64 KiB kept, 8 MiB read past it, a pipe's buffer
    assert box.exit_code == 7 and box.evidence_overflow and len(box.evidence) <= (1 << 20) + 1
    assert box.flooded == ["stdout", "stderr", "evidence"]


def test_a_child_runs_its_own_exit_handlers_and_none_of_the_zygotes_finalizers(warm):
    # torch's import registers a finalizer per operator library (~40 ms of CPU at each child's exit): the
    # zygote turns them off; what the submission registers still runs when its process ends.
    box = run(
        warm,
        """
        import atexit, weakref
        class Box:
            pass
        box = Box()
        print("inherited", len([f for f in list(weakref.finalize._registry) if f.atexit]))
        weakref.finalize(box, print, "own finalizer ran")
        atexit.register(print, "own atexit ran")
        def add(a, b):
            return a + b
        """,
    )
    assert box.exit_code == 0, box.stderr
    assert "inherited 0" in box.stdout, box.stdout
    assert "own finalizer ran" in box.stdout and "own atexit ran" in box.stdout, box.stdout


def test_runner_is_unprivileged_and_sees_no_pid_1(warm):
    """The runner is PID 2 of its namespace, unprivileged; its PID 1 (root's ``sleep``, in the host's mount
    namespace) is not in its /proc at all: neither its command line nor the host's mount table it would show."""
    if ISOLATION.mode != "namespaces":
        pytest.skip("needs root and namespaces")
    box = run(
        warm,
        """
        import os
        print("uid", os.getuid(), "pid", os.getpid())
        for name in ("cmdline", "mountinfo", "environ", "root/etc/hostname"):
            try:
                print(name, repr(open("/proc/1/" + name).read()[:200]))
            except OSError as exc:
                print(name, type(exc).__name__)
        print("procs", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        print("mounts", len(open("/proc/self/mountinfo").read().splitlines()))
        def add(a, b):
            return a + b
        """,
    )
    lines = dict(line.split(" ", 1) for line in box.stdout.splitlines())
    assert int(lines["uid"].split()[0]) >= 60000 and lines["uid"].split()[-1] == "2", box.stderr[-2000:]
    for name in ("cmdline", "mountinfo", "environ", "root/etc/hostname"):
        assert lines[name] == "FileNotFoundError", (name, lines[name])
    assert lines["procs"] == "[2]", lines["procs"]  # its own process alone
    assert os.path.realpath(SPEC.judge_dir) not in box.stdout


# Student code looking for the run's configuration in its own process (issue 31): every frame's locals, every
# object the collector tracks, every module's globals. The configuration's own keys, the run's cgroup file
# and raw JSON are what it looks for.
CONFIG_HUNT = """
import gc, json, sys
KEYS = set("cgroup_procs kit_binds kit_mask root_mount tmp_bytes".split())
MARKS = {marks!r}  # written backwards, so that they are not themselves what is found
found = []
def look(value, where, depth=0):
    if isinstance(value, dict):
        if KEYS & {{k for k in value if isinstance(k, str)}}:
            found.append(where)
        if depth < 4:
            for key, item in list(value.items())[:2000]:
                look(item, f"{{where}}.{{str(key)[:30]}}", depth + 1)
    elif isinstance(value, (list, tuple)) and depth < 4:
        for i, item in enumerate(value[:2000]):
            look(item, f"{{where}}[{{i}}]", depth + 1)
    elif isinstance(value, (str, bytes)):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if any(mark[::-1] in text for mark in MARKS):
            found.append(where)
frame = sys._getframe()
while frame is not None:
    look(dict(frame.f_locals), f"frame {{frame.f_code.co_name}}")
    frame = frame.f_back
for obj in gc.get_objects():
    if isinstance(obj, (dict, list, tuple)):
        look(obj, f"gc {{type(obj).__name__}}", 3)
for name, module in list(sys.modules.items()):
    look(dict(getattr(module, "__dict__", {{}})), f"module {{name}}", 3)
print("CONFIG " + json.dumps(sorted(set(found))[:20]))
def add(a, b):
    return a + b
"""


def test_student_code_finds_none_of_the_runs_configuration_in_its_process(warm):
    """The zygote's child is configured in Python (uid, binds, cgroup paths): none of it is left in the process
    once student code runs."""
    limits = LIMITS
    group, isolation = run_cgroup(limits, ISOLATION)
    cfg = _cfg(warm, limits, group.procs_files if group else None)
    marks = [mark[::-1] for mark in (*cfg["cgroup_procs"], '"cgroup_procs"', '"root_mount"')]
    try:
        box = run_forked(
            warm[0],
            cfg=cfg,
            stdin=_job(CONFIG_HUNT.format(marks=marks)),
            limits=limits,
            isolation=isolation,
            group=group,
        )
    finally:
        if group is not None:
            group.remove()
    line = next((ln for ln in box.stdout.splitlines() if ln.startswith("CONFIG ")), None)
    assert line is not None, (box.stdout[-2000:], box.stderr[-2000:])
    found = json.loads(line[len("CONFIG ") :])
    assert found == [], found


def test_a_zygote_that_cannot_warm_up_says_why():
    zygote = Zygote(("autograder.no_such_module",))
    try:
        with pytest.raises(Exception, match="no_such_module"):
            zygote.wait_ready(timeout=120)
    finally:
        zygote.close()


# Run in a PID namespace of its own (as its PID 1), where nothing but this script and its zygote allocates
# pids: the freed pid then goes to the bystander every time, not to whichever process of the machine forks.
REUSED_PID = """
import os, signal, subprocess, sys, time
from autograder.sandbox.cgroups import cgroup_support
from autograder.sandbox.config import jail_config
from autograder.sandbox.limits import Limits
from autograder.sandbox.warm import Zygote, _Child

zygote = Zygote(())
zygote.wait_ready()
cfg = jail_config(mode="rlimits", limits=Limits(wall_seconds=20), uid=0, workdir="/tmp", view=None,
                  cgroup_procs=["/nonexistent-autograder-group/cgroup.procs"])  # joining it fails: the child ends
pipes = [os.pipe() for _ in range(5)]  # job, stdout, stderr, evidence, status
theirs = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1], pipes[4][1]]
pid, pidfd = zygote.spawn(cfg, theirs)
deadline = time.monotonic() + 15
while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
    time.sleep(0.05)
print("reaped", not os.path.exists(f"/proc/{pid}"))
try:
    signal.pidfd_send_signal(pidfd, 0)
    print("pidfd names a live process")
except ProcessLookupError:
    print("pidfd names the ended child")
with open("/proc/sys/kernel/ns_last_pid", "w") as fh:
    fh.write(str(pid - 1))
bystander = subprocess.Popen(["sleep", "30"])
print("bystander took the pid", bystander.pid == pid)
_Child(pidfd).kill()
time.sleep(0.2)
print("bystander alive", bystander.poll() is None)
print("zygote alive", zygote.alive())
bystander.kill()
zygote.close()
"""


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root and util-linux unshare")
def test_a_child_that_ended_early_is_killed_by_pidfd_never_by_its_reused_pid():
    """A child whose set-up fails ends at once and the zygote reaps it; when the grader then kills the run,
    the kill must not reach the process that took the pid since (a bare pid kill would: the bystander)."""
    command = [shutil.which("unshare"), "--pid", "--fork", "--mount-proc", sys.executable, "-I", "-c", REUSED_PID]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd="/")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == 5, (proc.stdout, proc.stderr[-3000:])
    assert lines[0] == "reaped True", "the zygote did not reap a child that had ended"
    assert lines[1] == "pidfd names the ended child", lines[1]
    assert lines[2] == "bystander took the pid True", "the namespace's next pid did not go to the bystander"
    assert lines[3] == "bystander alive True", "the grader's kill reached a process that reused the child's pid"
    assert lines[4] == "zygote alive True"
