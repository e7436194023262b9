"""Trusted: what both sandbox paths share (the fresh ``launch`` and the warm ``warm``): a run's cgroup, its
``SandboxResult`` from its four pipes, PID 1's exit status.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass, field
from typing import Any

from autograder.protocol.typed import fields_from_wire, wire_fields
from autograder.sandbox.capture import Sink
from autograder.sandbox.cgroups import RunCgroup, cgroup_support, measured, tree_report
from autograder.sandbox.limits import Isolation, Limits

__all__ = [
    "RUNNER_PACKAGES",
    "SandboxResult",
    "finish_run",
    "pid1_status",
    "run_cgroup",
]

# What every runner imports of the kit besides its grader's own runner package and dnnlpy (exposed whole): the
# runner, the evidence format, and the notebook reader (``coursecheck.notebook``), which runs the cells.
RUNNER_PACKAGES = ("autograder.runner", "autograder.protocol", "coursecheck")


@dataclass
class SandboxResult:
    exit_code: int | None  # the runner's exit status, when it exited
    signal: int | None  # the signal that killed the runner, when one did
    timed_out: bool
    wall_seconds: float
    stdout: str
    stderr: str
    evidence: bytes  # raw bytes of the evidence channel (frames are decoded by the engine)
    evidence_overflow: bool
    isolation: Isolation
    notes: list[str] = field(default_factory=list)
    memory_exceeded: bool = False  # the tree's cgroup hit its memory cap (the kernel killed a process)
    # The channels the run flooded, whose reading the sandbox stopped ("stdout", "stderr": past the bytes read
    # beyond what is kept, ``capture.READ_PAST_CAP``; "evidence": past its cap): a value, the notes say it in words
    flooded: list[str] = field(default_factory=list)

    def to_wire(self) -> dict:
        """Every field but the evidence bytes (they travel apart, as a blob), the isolation as its dict."""
        return {**wire_fields(self, skip=("evidence", "isolation")), "isolation": self.isolation.as_dict()}

    @classmethod
    def from_wire(cls, data: Any, evidence: bytes) -> SandboxResult:
        """ValueError naming the field that is not what it should be."""
        fields = fields_from_wire(cls, data, "a sandbox result", skip=("evidence", "isolation"))
        return cls(evidence=evidence, isolation=Isolation.from_dict(data.get("isolation") or {}), **fields)


def run_cgroup(limits: Limits, isolation: Isolation) -> tuple[RunCgroup | None, Isolation]:
    """The run's own cgroup when root (None otherwise), and the isolation report saying which held."""
    support = cgroup_support() if isolation.mode != "rlimits" else None
    sizes = {"memory_bytes": limits.memory_bytes, "max_processes": limits.max_processes, "cpus": limits.cpus}
    group = None
    if support is not None:
        try:
            group = support.run_group(**sizes)
        except OSError:
            support = None
    tree = tree_report(support, **sizes)
    if isolation.mode == "rlimits":
        tree["why"] = "not root" if os.geteuid() != 0 else "isolation mode rlimits"
    return group, isolation.with_tree(tree)


def finish_run(
    readers: list[Sink],
    limits: Limits,
    *,
    group: RunCgroup | None,
    feeder: threading.Thread | None,
    feed_error: list[BaseException],
    returncode: int | None,
    timed_out: bool,
    wall: float,
    isolation: Isolation,
    survivors: int,
) -> SandboxResult:
    """The run's result once its tree is gone (the caller killed its first process, then what was left in its
    cgroup, then every process of its sandbox uid: `survivors`, those that outlived that): both paths, fresh and
    warm, end here. The cgroup's measures go into its isolation report, the job's `feeder` thread, if any, is
    waited for (a job that could not be made is re-raised, `feed_error`, once the pipes are drained), then the
    result is read from its four pipes (stdout, stderr, evidence, PID 1's status: ``Capture`` threads, or
    ``Sink``s a ``drain`` loop read). `returncode`: the run's own exit status when its
    first process became the runner (``Popen.returncode``, negative for a signal); None when PID 1 reports it on
    the status pipe."""
    stats = group.stats() if group is not None else None
    if stats is not None:
        isolation = measured(isolation, stats)
    if feeder is not None:
        feeder.join()
    notes: list[str] = ["processes survived the kill"] if survivors else []
    for reader in readers:
        reader.join(timeout=2.0)
        if reader.is_alive():
            notes.append("a process outside the sandbox's reach kept an output pipe open")
    if feed_error:
        raise feed_error[0]
    out, err, ev = readers[0], readers[1], readers[2]
    flooded: list[str] = []
    for name, cap in (("stdout", out), ("stderr", err)):
        if cap.dropped > 0:
            notes.append(f"{cap.dropped} bytes of {name} dropped (cap {limits.capture_bytes} bytes)")
        if cap.refused:
            notes.append(f"{name} past {cap.most} bytes was not read: the run's later writes to it failed")
            flooded.append(name)
    stdout, stderr = out.text(), err.text()
    if returncode is None:
        exit_code, sig = pid1_status(readers[3])
    else:
        exit_code, sig = (None, -returncode) if returncode < 0 else (returncode, None)
    return SandboxResult(
        exit_code=exit_code,
        signal=sig,
        timed_out=timed_out,
        wall_seconds=round(wall, 3),
        stdout=stdout,
        stderr=stderr,
        evidence=bytes(ev.head),
        evidence_overflow=ev.total > limits.evidence_bytes,
        isolation=isolation,
        notes=notes,
        memory_exceeded=bool(stats and stats["oom_kills"] > 0),
        flooded=flooded if ev.total <= limits.evidence_bytes else [*flooded, "evidence"],
    )


def pid1_status(status: Sink) -> tuple[int | None, int | None]:
    """(exit code, signal) of the runner as the sandbox's PID 1 wrote it ("exit N" / "signal N") on its status
    pipe; nothing written means PID 1 itself was killed, by us (the time limit)."""
    words = bytes(status.head).decode(errors="replace").split()
    if len(words) == 2 and words[1].lstrip("-").isdigit():
        return (int(words[1]), None) if words[0] == "exit" else (None, int(words[1]))
    return None, signal.SIGKILL  # PID 1 itself was killed: we did it (time limit)
