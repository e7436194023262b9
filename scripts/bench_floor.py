"""Benchmark (prints figures, asserts nothing): the floor of one sandboxed run, what every submission pays.

    .venv/bin/python scripts/bench_grading.py floor --repeats 30 --seed 7

Three runs, taken in turn round after round (so that the machine's load lands on each alike), each one's CPU
counted in a cpuacct group, kernel time included (a run's set-up is mostly system calls):

    fork          a fork of a process warmed as the pool's zygote is (its imports, environment and heap), whose
                  child exits at once: what the size of the zygote alone costs (page tables copied, then torn down)
    sandbox       the same fork made into a run by the kit's own code (``forked.fork_run``: a cgroup made and
                  removed, namespaces, the private root, rlimits, the uid drop, seccomp, a small PID 1 spawned in a
                  PID namespace of its own) whose runner returns at once; split into the grader's side and the run's
                  tree, and the tree's steps by the CPU each process spent in them
    empty file    the kit's grade of an empty file on a warm pool worker, every process (coordinator, zygote,
                  sandbox, judge): the floor of a submission as graded

and, after them, one measured with this process's own CPU clock:

    experiments   the plan's experiments on the reference solution in this very process (no sandbox, frames or
                  judge): what the plan costs whatever runs it; with the empty file, a bound no correct file can
                  beat, set against the pace of 1,000 files in 60 s on this machine's cores

The first two run in a helper process that imports what the worker's zygote does, with its environment (read
from the live zygote), so its heap is the zygote's; run as ``python scripts/bench_floor.py``, it is that helper.
Needs root and cgroup v1 cpuacct, as ``bench_breakdown.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROUNDS_IN_ALL = 20  # `all` passes on the slow modes' --repeats (3): too few runs for a floor's median
# The goal's pace: 1,000 files in 60 s with every core busy, start-up included (``bench_grading.py scale`` too)
PACE_SECONDS = 60.0 * (os.cpu_count() or 1) / 1000
STEPS = ("join_cgroup", "unshare", "build_root", "enter_root", "set_limits", "drop_privileges", "restrict_syscalls")


def floor(args, clock) -> list[tuple[str, str]]:
    """The rows of ``bench_grading.py floor``."""
    from autograder.grading.pool.worker import Worker
    from autograder.sandbox import Limits
    from autograder.sandbox.config import jail_config

    if clock.group is None:
        raise SystemExit("floor needs root and cgroup v1 cpuacct (/sys/fs/cgroup/cpuacct)")
    work = Path(tempfile.mkdtemp(prefix="bench_floor_"))
    empty = work / "empty.py"
    empty.write_text("# nothing handed in yet\n", encoding="utf-8")
    worker = Worker("weight_tying", Limits(wall_seconds=60))
    helper = None
    acct = clock.group / "floor-helper"
    acct.mkdir()
    try:
        worker.start()
        worker.zygote.wait_ready()
        worker.grade_path(empty, seed=args.seed)  # the plan's first student: its reference values, once
        cfg = jail_config(
            mode=worker.mode,
            limits=worker.limits,
            uid=worker.slot.uid,  # the worker's own: its runs and the helper's never overlap
            workdir=str(work),
            view=worker.view,
            library=worker.library,
        )
        setup = {"modules": list(worker.preload), "optional": list(worker.warm_imports), "library": worker.library}
        env = _environ(worker.zygote.proc.pid)
        helper = subprocess.Popen(
            [sys.executable, "-I", "-B", __file__, str(acct)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd="/",
            text=True,
        )
        helper.stdin.write(json.dumps({**setup, "cfg": cfg}) + "\n")
        helper.stdin.flush()
        if helper.stdout.readline().strip() != "ready":
            raise RuntimeError("the floor's helper did not warm up")
        samples: dict[str, list[float]] = defaultdict(list)
        rounds = args.repeats if args.mode == "floor" else ROUNDS_IN_ALL
        for rep in range(rounds + 1):  # round 0 warms each up and is discarded
            for kind in ("fork", "sandbox"):
                helper.stdin.write(kind + "\n")
                helper.stdin.flush()
                measured = json.loads(helper.stdout.readline())
                for name, cpu in measured.items():
                    if rep:
                        samples[f"{kind}: {name}"].append(cpu)
            before, start = clock.read(), time.perf_counter()
            worker.grade_path(empty, seed=args.seed)
            if rep:
                samples["empty file: total"].append(clock.read() - before)
                samples["empty file: wall"].append(time.perf_counter() - start)
        samples["experiments in process"] = _experiments_in_process(args.seed, rounds)
        return _rows(samples, rounds)
    finally:
        if helper is not None:
            helper.stdin.close()
            helper.wait(timeout=60)
        worker.close()
        for _ in range(50):
            try:
                acct.rmdir()
                break
            except OSError:
                time.sleep(0.1)
        shutil.rmtree(work, ignore_errors=True)


def _experiments_in_process(seed: int, rounds: int) -> list[float]:
    """CPU seconds of the plan's experiments on the reference solution in this process, one thread, with no
    sandbox, no frames, no seal checks of the judge's and no judge: what the plan itself costs, whatever runs it."""
    import importlib

    import torch

    from autograder.graders import get_assignment
    from autograder.qa.inprocess import namespace_of

    torch.set_num_threads(1)
    spec = get_assignment("weight_tying")
    module, _, name = spec.experiments.partition(":")
    run, plan = getattr(importlib.import_module(module), name), spec.make_plan(seed)
    namespace = namespace_of(Path(__file__).resolve().parents[1] / "solutions" / "weight_tying.py")
    times = []
    for rep in range(rounds + 1):  # the first warms torch's kernels up and is discarded
        start = time.process_time()
        run(namespace, plan, lambda *_: None)
        if rep:
            times.append(time.process_time() - start)
    return times


def _environ(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as fh:
        pairs = [item.partition(b"=") for item in fh.read().split(b"\0") if item]
    return {key.decode(): value.decode() for key, _, value in pairs}


def _ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.2f} ms (min {min(samples) * 1000:.2f}, max {max(samples) * 1000:.2f})"


def _rows(samples: dict[str, list[float]], repeats: int) -> list[tuple[str, str]]:
    fork, sandbox = samples["fork: total"], samples["sandbox: total"]
    empty = samples["empty file: total"]
    rows = [
        ("runs of each (after one warm-up round)", str(repeats)),
        ("HEADLINE fork of a warm zygote that runs nothing (no namespaces), CPU", _ms(fork)),
        ("HEADLINE the same fork into a sandbox that runs nothing, CPU", _ms(sandbox)),
        ("  of which the zygote's and grader's side (the forks, cgroup, pipes, kill)", _ms(samples["sandbox: grader"])),
        ("  of which the run's tree (its set-up, its processes' start and exit)", _ms(samples["sandbox: tree"])),
    ]
    steps = sum(statistics.median(samples[f"sandbox: {step}"]) for step in STEPS if samples[f"sandbox: {step}"])
    for step in STEPS:
        if samples[f"sandbox: {step}"]:
            rows.append((f"    step {step}", _ms(samples[f"sandbox: {step}"])))
    rows.append(("    the rest: its processes' start and exit", _tree_rest(samples, steps)))
    rows.append(("HEADLINE the kit's empty file on a warm worker, CPU of every process", _ms(empty)))
    rows.append(("the kit's empty file, wall", _ms(samples["empty file: wall"])))
    share = statistics.median(sandbox) / statistics.median(empty)
    rows.append(("the sandbox's floor as a share of the empty file's CPU", f"{share:.0%}"))
    plan = samples["experiments in process"]
    rows.append(("HEADLINE the plan's experiments on the solution, in process (no sandbox, no judge)", _ms(plan)))
    for how, pick in (("medians", statistics.median), ("the fastest runs", min)):
        bound = pick(empty) + pick(plan)
        pace = f"the pace of 1,000 in 60 s ({PACE_SECONDS * 1000:.0f} ms a file)"
        rows.append(
            (
                f"a correct file costs at least the empty file plus those experiments ({how})",
                f"{bound * 1000:.2f} ms = {bound / PACE_SECONDS:.2f}x {pace}",
            )
        )
    return rows


def _tree_rest(samples: dict[str, list[float]], steps: float) -> str:
    return f"{(statistics.median(samples['sandbox: tree']) - steps) * 1000:.2f} ms (median tree minus median steps)"


# ---- the helper: a process warmed as the zygote is, running the two runs that do nothing on request ----


def _helper(acct: str) -> int:
    with open(os.path.join(acct, "cgroup.procs"), "w") as fh:
        fh.write("0")  # before anything: every process of ours is counted from here on
    from autograder.sandbox import forked, rootfs, zygote
    from autograder.sandbox.cgroups import cgroup_support
    from autograder.sandbox.jail import report_exit
    from autograder.sandbox.template import import_torch

    setup = json.loads(sys.stdin.readline())
    import_torch()  # as the template does before it forks a zygote
    rng_state = zygote._warm(setup["modules"], setup["optional"], setup["library"])
    forked.prepare()
    usage = Path(acct) / "cpuacct.usage"
    report_r, report_w = os.pipe()
    _report_steps(rootfs, report_w)
    forked.become_runner = lambda env, rng: 0  # the runner returns at once: the run does nothing
    support = cgroup_support()
    cfg = setup["cfg"]
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY)  # as the zygote: each run's fork comes back to it
    print("ready", flush=True)
    for line in sys.stdin:
        before, own = int(usage.read_text()), time.thread_time()
        steps: dict[str, float] = {}
        if line.strip() == "fork":
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
        else:
            steps = _sandbox_run(support, cfg, rng_state, report_r, own_pid_ns, forked, report_exit)
        total = (int(usage.read_text()) - before) / 1e9
        grader = time.thread_time() - own
        print(json.dumps({"total": total, "grader": grader, "tree": total - grader, **steps}), flush=True)
    return 0


def _report_steps(rootfs, fd: int) -> None:
    """Each set-up step writes the CPU its process spent in it to `fd` (kept open through the run's fd sweeps)."""
    for name in STEPS:
        real = getattr(rootfs, name)

        def timed(*args, _real=real, _name=name, **kwargs):
            start = time.thread_time()
            try:
                return _real(*args, **kwargs)
            finally:
                os.write(fd, f"{_name} {time.thread_time() - start:.9f}\n".encode())

        setattr(rootfs, name, timed)
    close = rootfs.close_fds_except
    rootfs.close_fds_except = lambda keep: close({*keep, fd})


def _sandbox_run(support, cfg: dict, rng_state: bytes, report_r: int, own_pid_ns: int, forked, report_exit) -> dict:
    """One run as ``warm.run_forked`` makes it, its runner doing nothing; the steps' CPU as its processes wrote it."""
    group = support.run_group(memory_bytes=2 << 30, max_processes=64, cpus=1.0) if support else None
    run_cfg = {**cfg, "cgroup_procs": group.procs_files if group else []}
    pipes = [os.pipe() for _ in range(5)]  # job, stdout, stderr, evidence, status
    theirs = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1], pipes[4][1]]
    ours = [pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][0], pipes[4][0]]
    pid, runner = forked.fork_run(run_cfg, theirs, [report_r, own_pid_ns], rng_state, own_pid_ns)
    for fd in theirs if runner is None else theirs[:4]:
        os.close(fd)
    os.close(ours[0])  # no job: the runner reads none
    if runner is not None:  # with namespaces the runner is this process's child: its exit is reported here
        report_exit(theirs[4], os.waitpid(runner, 0)[1])
        os.close(theirs[4])
    while os.read(ours[4], 64):  # the status pipe closes once the runner's exit is reported
        pass
    os.kill(pid, signal.SIGKILL)
    if group is not None:
        group.kill()
    for fd in ours[1:]:
        os.close(fd)
    os.waitpid(pid, 0)
    if group is not None:
        group.remove()
    os.set_blocking(report_r, False)
    steps: dict[str, float] = defaultdict(float)
    try:
        text = os.read(report_r, 1 << 16).decode()
    except BlockingIOError:
        text = ""
    for line in text.splitlines():
        name, _, cpu = line.partition(" ")
        steps[name] += float(cpu)
    return dict(steps)


if __name__ == "__main__":
    sys.exit(_helper(sys.argv[1]))
