"""Trusted: what a sandboxed run may use (Limits), and what each isolation mode does and does not enforce."""

from __future__ import annotations

import functools
from dataclasses import dataclass

__all__ = ["KiB", "MiB", "GiB", "Limits", "Isolation", "isolation_for", "parse_size", "MODES"]

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

MODES = ("namespaces", "uid", "rlimits")  # strongest first
_ENFORCED = {
    "namespaces": [
        "wall time",
        "CPU time",
        "memory",
        "process count",
        "file size",
        "no core dumps",
        "capped output",
        "no network",
        "whole process tree killed (PID namespace)",
        "unprivileged uid",
        "of the kit only the runner's own packages, dnnlpy and the venv visible "
        "(allow-list: suites, solutions, nbgrader course copies, gradebooks unreadable)",
        "kit read-only",
    ],
    "uid": [
        "wall time",
        "CPU time",
        "memory",
        "process count",
        "file size",
        "no core dumps",
        "capped output",
        "unprivileged uid",
        "every process of that uid killed afterwards",
    ],
    "rlimits": [
        "wall time",
        "CPU time",
        "memory",
        "file size",
        "no core dumps",
        "capped output",
        "process group killed afterwards",
    ],
}
_NOT_ENFORCED = {
    "namespaces": [],
    "uid": [
        "network (no network namespace)",
        "no file hiding: suites, solutions and any kit file readable as far as others' permission bits allow",
        "kit writable where permission bits allow",
    ],
    "rlimits": [
        "network",
        "unprivileged user (student code runs as you: it can read hidden suites and write your files)",
        "children that call setsid survive",
        "process cap",
    ],
}


def parse_size(text: str | int) -> int:
    """'2GiB', '512MiB', '1500M', '2G' or a number of bytes -> bytes."""
    if isinstance(text, int):
        return text
    units = {
        "": 1,
        "B": 1,
        "K": KiB,
        "KB": KiB,
        "KIB": KiB,
        "M": MiB,
        "MB": MiB,
        "MIB": MiB,
        "G": GiB,
        "GB": GiB,
        "GIB": GiB,
    }
    raw = str(text).strip().upper()
    number = raw.rstrip("KMGIB")
    unit = raw[len(number) :]
    message = f"memory size {text!r} is not understood: write e.g. '2GiB', '512MiB' or a byte count"
    try:
        value = float(number)
    except ValueError:
        raise ValueError(message) from None
    if unit not in units or value <= 0:
        raise ValueError(message)
    return int(value * units[unit])


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 60.0  # wall-clock limit; the tree is killed after it
    memory_bytes: int = 2 * GiB  # RLIMIT_AS (torch needs ~650 MB of address space after import)
    max_processes: int = 64  # RLIMIT_NPROC of the sandbox uid (threads count too)
    max_file_bytes: int = 16 * MiB  # RLIMIT_FSIZE: largest file the code may write
    capture_bytes: int = 64 * KiB  # kept of stdout and of stderr each (head and tail)
    evidence_bytes: int = 32 * MiB  # kept of the evidence channel
    cpus: float = 1.0  # cores the whole process tree may use at once (cgroup CPU quota, when root)
    judge_seconds: float = 30.0  # wall seconds the judge may spend on one submission's evidence
    judge_memory_bytes: int = 3 * GiB  # the judge process's memory cap (RLIMIT_AS, and its cgroup when root)

    def __post_init__(self) -> None:
        if not self.wall_seconds > 0:
            raise ValueError(f"wall_seconds={self.wall_seconds!r}: give a positive number of seconds")
        if self.memory_bytes < 256 * MiB:
            raise ValueError(
                f"memory_bytes={self.memory_bytes} is below 256 MiB: torch alone needs ~650 MB; use at least 1GiB"
            )
        for name in ("max_processes", "max_file_bytes", "capture_bytes", "evidence_bytes", "judge_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}={getattr(self, name)!r}: give a positive number")
        if not 0.01 <= self.cpus <= 1024:
            raise ValueError(f"cpus={self.cpus!r}: give the cores one submission may use, e.g. 1 or 0.5")
        if self.judge_memory_bytes < 1 * GiB:
            raise ValueError(
                f"judge_memory_bytes={self.judge_memory_bytes} is below 1 GiB: the judge imports torch (use 2GiB+)"
            )

    @property
    def cpu_seconds(self) -> int:
        return int(self.wall_seconds) + 5


@dataclass(frozen=True)
class Isolation:
    mode: str  # "namespaces" | "uid" | "rlimits"
    enforced: tuple[str, ...]
    not_enforced: tuple[str, ...]
    # How the limits of the whole process tree are held: {"by": "cgroup v1", "memory": "2 GiB", "processes": 64,
    # "cpus": 1.0} when root with the controllers, else {"by": "rlimits", "why": "..."} (per process only).
    tree: tuple[tuple[str, object], ...] = ()

    def as_dict(self) -> dict:
        out = {"mode": self.mode, "enforced": list(self.enforced), "not_enforced": list(self.not_enforced)}
        if self.tree:
            out["tree_limits"] = dict(self.tree)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Isolation:
        """``as_dict``'s dict read back (a judge process rebuilds a run's isolation from it)."""
        return cls(
            str(data.get("mode", "?")),
            tuple(data.get("enforced", ())),
            tuple(data.get("not_enforced", ())),
            tuple((data.get("tree_limits") or {}).items()),
        )

    def with_tree(self, tree: dict) -> Isolation:
        """This isolation, saying how the tree's limits were held for one run."""
        extra = (
            ["memory, process count and CPU share of the whole process tree"] if tree.get("by", "") != "rlimits" else []
        )
        missing = [] if extra else [f"limits per process only, not per submission ({tree.get('why', 'no cgroups')})"]
        return Isolation(
            self.mode,
            self.enforced + tuple(e for e in extra if e not in self.enforced),
            self.not_enforced + tuple(m for m in missing if m not in self.not_enforced),
            tuple(tree.items()),
        )


@functools.cache
def isolation_for(mode: str) -> Isolation:
    """What `mode` enforces on this machine: the same all process long (the seccomp library, whose presence it
    reports, is loaded once, when ``seccomp`` is imported), so it is worked out once per mode."""
    if mode not in MODES:
        raise ValueError(f"isolation mode {mode!r} is not one of {MODES}")
    from autograder.sandbox.seccomp import status  # every mode installs it, where libseccomp is there

    enforced, not_enforced = list(_ENFORCED[mode]), list(_NOT_ENFORCED[mode])
    held, what = status()
    (enforced if held else not_enforced).append(what)
    return Isolation(mode, tuple(enforced), tuple(not_enforced))
