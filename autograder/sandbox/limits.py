"""Trusted: what a sandboxed run may use (Limits), and what each isolation mode does and does not enforce."""

from __future__ import annotations

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

    def __post_init__(self) -> None:
        if not self.wall_seconds > 0:
            raise ValueError(f"wall_seconds={self.wall_seconds!r}: give a positive number of seconds")
        if self.memory_bytes < 256 * MiB:
            raise ValueError(
                f"memory_bytes={self.memory_bytes} is below 256 MiB: torch alone needs ~650 MB; use at least 1GiB"
            )
        for name in ("max_processes", "max_file_bytes", "capture_bytes", "evidence_bytes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name}={getattr(self, name)!r}: give a positive number")

    @property
    def cpu_seconds(self) -> int:
        return int(self.wall_seconds) + 5


@dataclass(frozen=True)
class Isolation:
    mode: str  # "namespaces" | "uid" | "rlimits"
    enforced: tuple[str, ...]
    not_enforced: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"mode": self.mode, "enforced": list(self.enforced), "not_enforced": list(self.not_enforced)}


def isolation_for(mode: str) -> Isolation:
    if mode not in MODES:
        raise ValueError(f"isolation mode {mode!r} is not one of {MODES}")
    return Isolation(mode, tuple(_ENFORCED[mode]), tuple(_NOT_ENFORCED[mode]))
