"""Benchmark (prints figures, asserts nothing): where a mixed class's CPU goes, per kind of notebook, stage by stage.

    .venv/bin/python scripts/bench_breakdown.py --n 48 --seed 7          # the class of `bench_grading.py scale`
    .venv/bin/python scripts/bench_breakdown.py --n 16 --extra w61_try_it_cell_endless_generate.ipynb  # + hangs

One warm worker (the pool's path, one submission at a time, so that each process's CPU belongs to one
submission) grades a mixed class (``bench_class.mixed_class``, the same mix as ``bench_grading.py scale``)
after one warm-up grade of the solution (its plan's reference values then kept, as for every student of a
class but the first). Each submission's CPU is split by process and by stage:

    coordinator    this process: reading the file, the run's pipes, decoding the judge's reply, the result
    zygote fork    the fork server's own CPU while it forks the run's child
    sandbox set-up + cells   the run's process tree (a cpuacct group of its own, joined with its other
                   groups before it forks) until its ``__load__`` frame arrives: namespaces, root, limits,
                   the job's frame, then the notebook's cells
    experiments    the same tree from ``__load__`` to its last frame, split per experiment by the arrival
                   of each experiment's frame (the CPU read as the frame is read: a few ms late at most)
    sandbox exit   the tree after its last frame (exit, kill, teardown)
    judging        the judge process (all its threads): the decode, run facts and suite (the job is this
                   process's, from the part the judge made of the plan once: ``pipeline.job_part``)
    judge restart  a judge replaced after a judgement (grown past its share of memory) and warm again
    other          the whole command's cpuacct group minus all of the above (kernel work for cgroups, ...)

An empty submission is graded too: its set-up + cells row is the sandbox's fixed cost per run. Files named
with --extra (hangs such as w61 or w62, slow attacks) get a row of their own, outside the mixed class's. CPU is read
from cgroup v1 cpuacct and ``/proc/PID/task/*/schedstat`` (ns), so this needs root and cgroup v1 cpuacct.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench_class import CALIBRATION, NOTEBOOK, mixed_class
from bench_clock import CpuClock

ACCT = Path("/sys/fs/cgroup/cpuacct")
STAGES = (
    "coordinator",
    "zygote fork",
    "sandbox set-up + cells",
    "experiments",
    "sandbox exit",
    "judging",
    "judge restart",
    "other",
)
_NAME = re.compile(rb'^\{"name":"([^"\\]{1,80})"')


def task_cpu(pid: int | None) -> float:
    """CPU seconds of every thread of `pid` (0 when it is gone): the first field of each task's schedstat."""
    if pid is None:
        return 0.0
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def self_cpu() -> float:
    t = os.times()
    return t.user + t.system


class RunMeter:
    """The current run's cpuacct group and the CPU it had used as each of its frames arrived."""

    def __init__(self, parent: Path) -> None:
        self.parent, self.count = parent, 0
        self.group: Path | None = None
        self.frames: list[tuple[str, float]] = []
        self.final = 0.0

    def usage(self) -> float:
        try:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError, TypeError):
            return self.final

    def new_group(self) -> Path:
        self.count += 1
        self.group = self.parent / f"run-{self.count}"
        self.group.mkdir()
        self.frames, self.final = [], 0.0
        return self.group

    def end_group(self) -> None:
        self.final = self.usage()
        for _ in range(100):
            try:
                self.group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)


def instrument(meter: RunMeter) -> None:
    """Each run joins a cpuacct group of its own too; each evidence frame's arrival reads that group's CPU."""
    from autograder.grading.pool import worker as worker_module
    from autograder.protocol.frames import HEADER, JSON_LENGTH
    from autograder.sandbox import warm
    from autograder.sandbox.capture import Sink

    real_run_cgroup = worker_module.run_cgroup

    class Metered:
        def __init__(self, group) -> None:
            self._group, self._acct = group, meter.new_group()

        @property
        def procs_files(self) -> list[str]:
            return [*self._group.procs_files, str(self._acct / "cgroup.procs")]

        def remove(self) -> None:
            self._group.remove()
            meter.end_group()

        def __getattr__(self, name):
            return getattr(self._group, name)

    def run_cgroup(limits, isolation):
        group, isolation = real_run_cgroup(limits, isolation)
        return (Metered(group) if group is not None else None), isolation

    class FrameClock(Sink):
        """The evidence pipe's sink (the only one kept whole past 64 bytes): each frame's arrival reads the clock."""

        parsed = 0

        def _keep(self, chunk: bytes) -> None:
            super()._keep(chunk)
            if not self.keep_all or self.cap <= 64:
                return
            while len(self.head) - self.parsed >= HEADER.size + JSON_LENGTH.size:
                (length,) = HEADER.unpack_from(self.head, self.parsed)
                if length > 16 << 20 or len(self.head) - self.parsed < HEADER.size + length:
                    break
                start = self.parsed + HEADER.size + JSON_LENGTH.size
                found = _NAME.match(bytes(self.head[start : start + 100]))
                meter.frames.append((found.group(1).decode() if found else "?", meter.usage()))
                self.parsed += HEADER.size + length

    worker_module.run_cgroup = run_cgroup
    warm.Sink = FrameClock  # a warm run's pipes are read in one loop (capture.drain) over Sinks


def split_run(meter: RunMeter) -> tuple[dict[str, float], dict[str, float]]:
    """(stages of the run's tree, CPU per experiment) from the frames' arrival times."""
    stages = {"sandbox set-up + cells": 0.0, "experiments": 0.0, "sandbox exit": 0.0}
    per_experiment: dict[str, float] = {}
    frames = [(n, t) for n, t in meter.frames if not n.startswith("__running__")]
    loaded = next((t for n, t in frames if n == "__load__"), None)
    if loaded is None:  # no load frame: the whole run counts as set-up + cells (a run stopped while loading)
        stages["sandbox set-up + cells"] = meter.final
        return stages, per_experiment
    stages["sandbox set-up + cells"] = loaded
    last = loaded
    for name, at in frames:
        if at >= loaded and name != "__load__":
            if not name.startswith("__"):
                per_experiment[name] = per_experiment.get(name, 0.0) + at - last
                stages["experiments"] += at - last
            else:
                stages["experiments"] += at - last
            last = at
    stages["sandbox exit"] = max(0.0, meter.final - last)
    return stages, per_experiment


def grade_one(worker, path: Path, seed: int, hide: tuple, clock: CpuClock, meter: RunMeter) -> dict:
    """One submission's CPU by stage, its score and its experiments' CPU."""
    started = worker.judge.started
    total0, own0 = clock.read(), self_cpu()
    zygote_pid, judge_pid = worker.zygote.proc.pid, worker.judge.proc.pid
    zygote0, judge0 = task_cpu(zygote_pid), task_cpu(judge_pid)
    result = worker.grade_path(path, seed=seed, hide=hide)
    judge_end = task_cpu(judge_pid)  # 0 when it was replaced: its CPU is then in "other"
    restart = 0.0
    if worker.judge.started != started:
        before = clock.read()
        worker.judge.ready(seed)
        restart = clock.read() - before
    own = self_cpu() - own0
    zygote = task_cpu(zygote_pid) - zygote0
    stages, per_experiment = split_run(meter)
    stages.update(
        {
            "coordinator": own,
            "zygote fork": zygote,
            "judging": max(0.0, judge_end - judge0),
            "judge restart": restart,
        }
    )
    total = clock.read() - total0
    stages["other"] = total - sum(stages.values())
    return {"total": total, "stages": stages, "experiments": per_experiment, "score": result.score}


def _kind(path: Path, kind: str) -> str:
    return "solution" if path == NOTEBOOK else kind


def table(title: str, rows: list[tuple[str, list[dict]]]) -> None:
    print(f"\n{title}  (CPU-s per submission, mean)")
    head = ["", "n", "total"] + [s for s in STAGES]
    widths = [max(len(r[0]) for r in rows) + 1, 4, 7] + [max(8, len(s) + 1) for s in STAGES]
    print("".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(head, widths, strict=True))))
    for name, runs in rows:
        total = statistics.fmean(r["total"] for r in runs)
        cells = [name.ljust(widths[0]), str(len(runs)).rjust(widths[1]), f"{total:.3f}".rjust(widths[2])]
        for stage, width in zip(STAGES, widths[3:], strict=True):
            mean = statistics.fmean(r["stages"][stage] for r in runs)
            cells.append(f"{mean:.3f}".rjust(width))
        print("".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=48, help="submissions in the mixed class")
    parser.add_argument("--seed", type=int, default=7, help="the judge's plan (fixed)")
    parser.add_argument("--top", type=int, default=10, help="the costliest files listed")
    parser.add_argument("--extra", nargs="*", default=[], help="calibration files added to the class (by name)")
    parser.add_argument(
        "--no-fold", action="store_true", help="leave the warm processes' memory in 4 KiB pages (the fold's A/B)"
    )
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be >= 1")
    clock = CpuClock()
    if clock.group is None:
        parser.error("needs root and cgroup v1 cpuacct (/sys/fs/cgroup/cpuacct): CPU per stage is read there")
    from autograder.grading.pool.worker import Worker
    from autograder.sandbox import Limits

    meter = RunMeter(clock.group)
    instrument(meter)
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="bench_breakdown_"))
    worker = Worker("weight_tying", Limits(wall_seconds=60), fold=not args.no_fold)
    try:
        folder = work / "class"
        folder.mkdir()
        students = [(p, _kind(p, k)) for p, k in mixed_class(work, args.n, nbgrader_safe=False)]
        for name in args.extra:
            found = sorted(CALIBRATION.glob(f"*/{name}"))
            if not found:
                parser.error(f"--extra {name!r}: no calibration file of that name under {CALIBRATION}")
            students.append((found[0], "extra"))  # its own row: the class's rows stay the mix
        empty = work / "empty.py"
        empty.write_text("# nothing handed in yet\n", encoding="utf-8")
        students.append((empty, "empty"))
        copies = []
        for i, (source, kind) in enumerate(students):
            copy = folder / f"s{i:05d}_{source.name}"
            shutil.copy(source, copy)
            copies.append((copy, kind, source.name))
        worker.start()
        worker.zygote.wait_ready()
        warm = grade_one(worker, NOTEBOOK, args.seed, (folder,), clock, meter)  # the plan's first student
        by_kind: dict[str, list[dict]] = defaultdict(list)
        every: list[tuple[str, str, dict]] = []
        start = time.perf_counter()
        for copy, kind, name in copies:
            measured = grade_one(worker, copy, args.seed, (folder,), clock, meter)
            by_kind[kind].append(measured)
            every.append((kind, name, measured))
            print(
                f"  {kind:9} {name[:48]:48} {measured['total']:.2f} CPU-s, score {measured['score']}", file=sys.stderr
            )
        wall = time.perf_counter() - start
    finally:
        worker.close()
        shutil.rmtree(work, ignore_errors=True)
        clock.close()
    pages = " (4 KiB pages: --no-fold)" if args.no_fold else ", its memory folded"
    print(
        f"\nbreakdown ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; seed {args.seed}; one worker{pages}, one "
        f"submission at a time; {os.cpu_count()} cores, load {load_before:.1f} before, {os.getloadavg()[0]:.1f} "
        f"at the end; {len(every)} submissions in {wall:.0f} s wall)"
    )
    kinds = [k for k in ("solution", "correct", "wrong", "attacks", "extra", "empty") if k in by_kind]
    graded = [m for kind, _, m in every if kind not in ("empty", "extra")]
    rows = [(k, by_kind[k]) for k in kinds] + [("the mixed class", graded), ("first of a plan", [warm])]
    table("By kind of notebook", rows)
    class_cpu = sum(m["total"] for m in graded)
    mix = [k for k in kinds if k not in ("empty", "extra")]
    shares = [f"{k} {sum(m['total'] for m in by_kind[k]) / class_cpu:.0%}" for k in mix]
    print("\nShare of the mixed class's CPU by kind: " + ", ".join(shares))
    per_experiment: dict[str, list[float]] = defaultdict(list)
    for _kind_name, _, m in every:
        for name, cpu in m["experiments"].items():
            per_experiment[name].append(cpu)
    print("\nExperiments (CPU-s, mean over the runs that sent the record; solution's own in brackets)")
    solution = defaultdict(list)
    for m in by_kind.get("solution", []):
        for name, cpu in m["experiments"].items():
            solution[name].append(cpu)
    for name, cpus in sorted(per_experiment.items(), key=lambda kv: -statistics.fmean(kv[1])):
        own = f" ({statistics.fmean(solution[name]):.3f})" if solution[name] else ""
        print(f"  {name:28} {statistics.fmean(cpus):.3f}{own}  max {max(cpus):.3f}  n={len(cpus)}")
    print(f"\nThe {args.top} costliest submissions (CPU-s: total; set-up + cells, experiments, judging)")
    for kind, name, m in sorted(every, key=lambda e: -e[2]["total"])[: args.top]:
        s = m["stages"]
        restart = f"; judge restart {s['judge restart']:.2f}" if s["judge restart"] else ""
        print(
            f"  {m['total']:6.2f}  {kind:8} {name[:52]:52} {s['sandbox set-up + cells']:.2f}, {s['experiments']:.2f}, "
            f"{s['judging']:.2f}{restart}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
