"""Trusted: limits for a submission's whole process tree (memory, process count, CPU share) through cgroups.

Rlimits hold per process: four children under ``RLIMIT_AS = 2 GiB`` may hold 8 GiB between them, and ten busy
children take ten cores' worth of time slices from a neighbouring run. A cgroup holds the whole tree. As root,
each run gets its own group, made before the run and removed after it::

    v1 (one hierarchy per controller)   memory/<ours>/autograder-<pid>/<run>/memory.limit_in_bytes (+ memsw)
                                        pids/<ours>/autograder-<pid>/<run>/pids.max
                                        cpu/<ours>/autograder-<pid>/<run>/cpu.cfs_quota_us
    v2 (one unified hierarchy)          <ours>/autograder-<pid>/<run>/{memory.max, memory.swap.max, pids.max, cpu.max}

``<ours>`` is this process's own group (``/proc/self/cgroup``), so a grader in a container or a delegated
slice nests below what it was given. The first process of a run writes ``0`` (itself) into each
``cgroup.procs`` before it forks anything, so every descendant is counted. Without root, or without the
three controllers, ``CgroupSupport.detect`` returns None and runs keep per-process rlimits only; the run's
isolation report says which held (``Isolation.tree``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.sandbox.pidfd import kill_if_member

__all__ = ["CONTROLLERS", "CgroupSupport", "RunCgroup", "cgroup_support", "measured", "tree_report"]

CONTROLLERS = ("memory", "pids", "cpu")
_PERIOD_US = 100_000  # the CPU quota's period: 100 ms
_counter = itertools.count()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, value: str) -> None:
    with open(path, "w") as fh:  # one write(2): cgroup files reject partial or buffered writes
        fh.write(value)


def _own_paths(proc_cgroup: str) -> dict[str, str]:
    """controller -> this process's group in it ("" for the v2 hierarchy), from /proc/self/cgroup's text."""
    out: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for name in controllers.split(",") if controllers else [""]:
            out[name] = path
    return out


def _mounts(mountinfo: str) -> tuple[dict[str, str], str | None]:
    """(v1 controller -> mount point, v2 mount point or None) from /proc/self/mountinfo's text."""
    v1: dict[str, str] = {}
    v2 = None
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        point, fstype, options = fields[4], tail[0], tail[2].split(",")
        if fstype == "cgroup2" and v2 is None:
            v2 = point
        elif fstype == "cgroup":
            for name in CONTROLLERS:
                if name in options:
                    v1.setdefault(name, point)
    return v1, v2


@dataclass(frozen=True)
class CgroupSupport:
    """Where this grader may make run groups: version 1 or 2, and the parent folder per controller."""

    version: int
    parents: dict[str, Path] = field(default_factory=dict)  # controller -> our autograder-<pid> folder

    @classmethod
    def detect(cls, *, proc_root: str = "/proc/self", pid: int | None = None) -> CgroupSupport | None:
        """The cgroups this (root) process can use for runs, made ready; None when it cannot (it says why
        in ``why_not``)."""
        support, why = cls._detect(proc_root, os.getpid() if pid is None else pid)
        cls.why_not = why
        return support

    why_not = ""

    @classmethod
    def _detect(cls, proc_root: str, pid: int) -> tuple[CgroupSupport | None, str]:
        if os.geteuid() != 0 and proc_root == "/proc/self":
            return None, "not root"
        own = _own_paths(_read(Path(proc_root) / "cgroup"))
        v1, v2 = _mounts(_read(Path(proc_root) / "mountinfo"))
        name = f"autograder-{pid}"
        if all(c in v1 for c in CONTROLLERS):
            parents = {c: Path(v1[c] + own.get(c, "/")) / name for c in CONTROLLERS}
            try:
                for parent in parents.values():
                    _sweep_stale(parent.parent)
                    parent.mkdir(exist_ok=True)
            except OSError as exc:
                return None, f"cgroup v1 not writable ({exc.strerror})"
            return cls(1, parents), ""
        if v2 is not None:
            base = Path(v2 + own.get("", "/"))
            available = _read(base / "cgroup.controllers").split()
            if not all(c in available for c in CONTROLLERS):
                return None, f"cgroup v2 without the {', '.join(CONTROLLERS)} controllers"
            parent = base / name
            try:
                _sweep_stale(base)
                parent.mkdir(exist_ok=True)
                _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS))
            except OSError as exc:
                return None, f"cgroup v2 controllers not delegated here ({exc.strerror})"
            return cls(2, {"unified": parent}), ""
        return None, "no cgroup memory, pids and cpu controllers mounted"

    def run_group(self, *, memory_bytes: int, max_processes: int, cpus: float) -> RunCgroup:
        """A fresh group for one run, its limits written; the caller removes it (``RunCgroup.remove``)."""
        name = f"run-{next(_counter)}-{os.urandom(3).hex()}"
        dirs = {c: p / name for c, p in self.parents.items()}
        group = RunCgroup(self.version, dirs)
        try:
            for folder in dirs.values():
                folder.mkdir()
            group.set_limits(memory_bytes=memory_bytes, max_processes=max_processes, cpus=cpus)
        except OSError:
            group.remove()
            raise
        return group

    def remove(self) -> None:
        """Remove the parent folders (only possible once every run group is gone)."""
        for parent in self.parents.values():
            with contextlib.suppress(OSError):
                parent.rmdir()


@dataclass
class RunCgroup:
    version: int
    dirs: dict[str, Path]  # controller (or "unified") -> the run's folder

    @property
    def procs_files(self) -> list[str]:
        """Where the run's first process writes "0" (itself) to join, before it forks anything."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def _file(self, controller: str, name: str) -> Path:
        return self.dirs["unified" if self.version == 2 else controller] / name

    def set_limits(self, *, memory_bytes: int, max_processes: int, cpus: float) -> None:
        quota = max(1000, int(cpus * _PERIOD_US))
        if self.version == 1:
            _write(self._file("memory", "memory.limit_in_bytes"), str(memory_bytes))
            swap = self._file("memory", "memory.memsw.limit_in_bytes")
            if swap.exists():  # memory + swap: no swapping past the cap either
                _write(swap, str(memory_bytes))
            _write(self._file("pids", "pids.max"), str(max_processes))
            _write(self._file("cpu", "cpu.cfs_period_us"), str(_PERIOD_US))
            _write(self._file("cpu", "cpu.cfs_quota_us"), str(quota))
        else:
            _write(self._file("memory", "memory.max"), str(memory_bytes))
            swap = self._file("memory", "memory.swap.max")
            if swap.exists():
                _write(swap, "0")
            _write(self._file("pids", "pids.max"), str(max_processes))
            _write(self._file("cpu", "cpu.max"), f"{quota} {_PERIOD_US}")

    def stats(self) -> dict[str, int]:
        """peak_memory (bytes), oom_kills, pids_refused (forks refused at pids.max), cpu_throttled_ms."""
        memory = self._file("memory", "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak")
        events = _keyed(_read(self._file("memory", "memory.oom_control" if self.version == 1 else "memory.events")))
        cpu = _keyed(_read(self._file("cpu", "cpu.stat")))
        oom = events.get("oom_kill", 0)
        if self.version == 1 and "oom_kill" not in events:  # kernels before 4.13: limit hits are all we see
            oom = int(_read(self._file("memory", "memory.failcnt")).strip() or 0)
        pids = _keyed(_read(self._file("pids", "pids.events")))
        throttled = (
            cpu.get("throttled_time", 0) // 1_000_000 if self.version == 1 else cpu.get("throttled_usec", 0) // 1000
        )
        return {
            "peak_memory": int(_read(memory).strip() or 0),
            "oom_kills": oom,
            "pids_refused": pids.get("max", 0),
            "cpu_throttled_ms": throttled,
        }

    def pids(self) -> list[int]:
        found: set[int] = set()
        for folder in self.dirs.values():
            found |= {int(p) for p in _read(folder / "cgroup.procs").split()}
        return sorted(found)

    def kill(self, patience: float = 10.0) -> int:
        """SIGKILL every process in the group until none is left; returns how many remain after `patience`
        seconds (a process the kernel is reclaiming memory from at the group's cap can take seconds to go)."""
        deadline = time.monotonic() + patience
        pause = 0.0005  # a killed process of a zygote's size is gone in a few ms: look again soon, then less often
        while True:
            left = self.pids()
            if not left or time.monotonic() > deadline:
                return len(left)
            for pid in left:  # the list may be stale: only a process still in the group is signalled
                kill_if_member(pid, lambda pid: pid in self.pids())
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def remove(self) -> None:
        """Kill what is left and remove the run's folders (a group with processes cannot be removed)."""
        self.kill()
        for folder in self.dirs.values():
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # the kernel frees a dying group's last process asynchronously
                    time.sleep(0.01)


def _sweep_stale(base: Path) -> None:
    """Remove the groups a killed grader left behind (autograder-<pid> of a process that is gone)."""
    for folder in base.glob("autograder-*"):
        pid = folder.name.rpartition("-")[2]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        for run in folder.glob("run-*"):
            RunCgroup(1, {"any": run}).remove()
        with contextlib.suppress(OSError):
            folder.rmdir()


_support: list = []


def cgroup_support() -> CgroupSupport | None:
    """This process's cgroup support, detected once (its parent groups are removed at exit)."""
    if not _support:
        import atexit

        found = CgroupSupport.detect()
        _support.append(found)
        if found is not None:
            atexit.register(found.remove)
    return _support[0]


def _keyed(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def measured(isolation, stats: dict):
    """`isolation` with what the run's group measured added to its tree limits (peak memory, OOM kills)."""
    tree = dict(isolation.tree)
    tree.update(peak_memory=f"{stats['peak_memory'] / (1 << 20):.0f} MiB", oom_kills=stats["oom_kills"])
    return isolation.with_tree(tree)


def tree_report(support: CgroupSupport | None, *, memory_bytes: int, max_processes: int, cpus: float) -> dict:
    """What ``extra_data.run.isolation.tree_limits`` says: the cgroup limits, or why rlimits only."""
    if support is None:
        return {"by": "rlimits", "why": CgroupSupport.why_not or "no cgroups"}
    return {
        "by": f"cgroup v{support.version}",
        "memory": f"{memory_bytes / (1 << 30):g} GiB",
        "processes": max_processes,
        "cpus": cpus,
    }
