"""Limits for the whole process tree: the cgroup files each version gets, and what they hold in a real run."""

from __future__ import annotations

import json
import textwrap

import pytest

from autograder.sandbox import GiB, Limits, probe_isolation, run_sandboxed
from autograder.sandbox.cgroups import CgroupSupport, cgroup_support, tree_report

ROOT_CGROUPS = pytest.mark.skipif(
    probe_isolation().mode == "rlimits" or cgroup_support() is None, reason="needs root and cgroup controllers"
)


def _fake_proc(tmp_path, cgroup: str, mountinfo: str):
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(cgroup)
    (proc / "mountinfo").write_text(mountinfo)
    return str(proc)


def test_v1_groups_nest_under_our_own_and_get_the_limits(tmp_path):
    mounts = {c: tmp_path / "fs" / c for c in ("memory", "pids", "cpu")}
    (mounts["memory"] / "outer").mkdir(parents=True)
    for c in ("pids", "cpu"):
        mounts[c].mkdir(parents=True)
    (mounts["memory"] / "outer" / "memory.memsw.limit_in_bytes").touch()
    info = "\n".join(
        f"{30 + i} 20 0:{40 + i} / {mounts[c]} rw,relatime shared:1 - cgroup cgroup rw,{c}"
        for i, c in enumerate(("memory", "pids", "cpu"))
    )
    proc = _fake_proc(tmp_path, "4:memory:/outer\n3:pids:/\n2:cpu,cpuacct:/\n0::/\n", info)
    support = CgroupSupport.detect(proc_root=proc, pid=123)
    assert support is not None and support.version == 1
    assert support.parents["memory"] == mounts["memory"] / "outer" / "autograder-123"
    for parent in support.parents.values():  # the memsw file exists in every real group; here, in ours
        (parent / "memory.memsw.limit_in_bytes").touch()
    group = support.run_group(memory_bytes=2 * GiB, max_processes=64, cpus=0.5)
    memory = group.dirs["memory"]
    assert (memory / "memory.limit_in_bytes").read_text() == str(2 * GiB)
    assert (group.dirs["pids"] / "pids.max").read_text() == "64"
    assert (group.dirs["cpu"] / "cpu.cfs_quota_us").read_text() == "50000"
    assert (group.dirs["cpu"] / "cpu.cfs_period_us").read_text() == "100000"
    assert sorted(group.procs_files) == sorted(str(d / "cgroup.procs") for d in group.dirs.values())
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    (memory / "memory.max_usage_in_bytes").write_text("12345\n")
    assert group.stats()["oom_kills"] == 2 and group.stats()["peak_memory"] == 12345
    report = tree_report(support, memory_bytes=2 * GiB, max_processes=64, cpus=0.5)
    assert report == {"by": "cgroup v1", "memory": "2 GiB", "processes": 64, "cpus": 0.5}


def test_v2_group_gets_memory_max_pids_max_and_cpu_max(tmp_path):
    fs = tmp_path / "fs" / "unified"
    (fs / "slice").mkdir(parents=True)
    (fs / "slice" / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    info = f"30 20 0:40 / {fs} rw,nosuid - cgroup2 cgroup2 rw"
    support = CgroupSupport.detect(proc_root=_fake_proc(tmp_path, "0::/slice\n", info), pid=7)
    assert support is not None and support.version == 2
    parent = fs / "slice" / "autograder-7"
    assert (parent / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    group = support.run_group(memory_bytes=GiB, max_processes=32, cpus=1.0)
    run = group.dirs["unified"]
    assert (run / "memory.max").read_text() == str(GiB)
    assert (run / "pids.max").read_text() == "32"
    assert (run / "cpu.max").read_text() == "100000 100000"
    (run / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.stats()["oom_kills"] == 1


def test_without_controllers_the_report_says_rlimits_and_why(tmp_path):
    proc = _fake_proc(tmp_path, "0::/\n", "30 20 0:40 / /sys rw - sysfs sysfs rw")
    assert CgroupSupport.detect(proc_root=proc, pid=1) is None
    report = tree_report(None, memory_bytes=GiB, max_processes=8, cpus=1)
    assert report["by"] == "rlimits" and report["why"]


@ROOT_CGROUPS
def test_memory_is_capped_for_the_whole_tree_not_per_process():
    # Four children of 400 MiB each: every one is under RLIMIT_AS (1 GiB), together they are over the cap.
    code = """
    import os, time
    kids = []
    for i in range(4):
        pid = os.fork()
        if pid == 0:
            block = bytearray(400 * 2**20)
            for j in range(0, len(block), 4096):
                block[j] = 1
            time.sleep(5)
            os._exit(0)
        kids.append(pid)
    statuses = [os.waitpid(pid, 0)[1] for pid in kids]
    os.write(FD, repr(statuses).encode())
    """
    result = run_sandboxed(
        module="autograder.runner.probe",
        stdin=textwrap.dedent(code).encode(),
        limits=Limits(wall_seconds=30, memory_bytes=GiB),
    )
    assert result.memory_exceeded, (result.evidence, result.stderr[-500:])
    assert result.isolation.as_dict()["tree_limits"]["by"].startswith("cgroup")
    assert "processes survived the kill" not in result.notes


@ROOT_CGROUPS
def test_busy_children_together_get_no_more_cpu_than_the_trees_quota():
    """Four busy-looping children, each in a new session, for 2 s of wall time, under a quota of 1/20 of a core
    for the whole tree: together they get at most 1/20 of the wall time as CPU time (plus a margin for the
    quota's accounting, under half of what they would take without it even on a machine loaded 10 times over
    its cores; 0.63-0.85 CPU s unlimited, measured at a load of 15 on 2 cores). A quota only lowers their
    share, so a loaded machine cannot make this fail; one that is not applied to the tree (or to children
    that left the session) does."""
    cpus, margin = 0.05, 0.05
    code = """
    import json, os, time
    start = time.monotonic()
    kids = []
    for i in range(4):
        r, w = os.pipe()
        if os.fork() == 0:
            os.setsid()
            end = time.monotonic() + 2.0
            while time.monotonic() < end:
                pass
            os.write(w, str(time.process_time()).encode())
            os._exit(0)
        os.close(w)
        kids.append(r)
    used = [float(os.read(r, 64) or 0) for r in kids]
    os.write(FD, json.dumps({"used": used, "wall": time.monotonic() - start}).encode())
    """
    result = run_sandboxed(
        module="autograder.runner.probe",
        stdin=textwrap.dedent(code).encode(),
        limits=Limits(wall_seconds=60, cpus=cpus),
    )
    assert result.isolation.as_dict()["tree_limits"]["cpus"] == cpus
    report = json.loads(result.evidence[2:])
    used, wall = sum(report["used"]), report["wall"]
    assert len(report["used"]) == 4 and wall >= 2.0
    assert used <= cpus * wall + margin, f"4 busy children got {used:.3f} CPU s in {wall:.2f} s under {cpus} cores"
