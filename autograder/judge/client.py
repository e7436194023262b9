"""Trusted: the grader's side of a warm judge process: start it, ask it, hold it to its limits, replace it.

``JudgeProcess`` starts ``python -m autograder.judge.server`` (in a cgroup with its memory cap when root),
asks it for a job (the plan drawn for a seed, and the submission) and for a judgement, and waits at most
``Limits.judge_seconds`` for each. Past that, or when the judge runs out of memory or dies, the reply says
so (``Judgement.limit``) with whatever the judge had decided by then, and the process is killed; the next
request starts a fresh one.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection

from autograder.judge.wire import receive, send
from autograder.sandbox.cgroups import RunCgroup, cgroup_support
from autograder.sandbox.limits import Limits
from autograder.sandbox.warm import peak_rss

__all__ = ["JudgeProcess", "Judgement", "JudgeLimitError"]


class JudgeLimitError(RuntimeError):
    """The judge did not answer in time (or died) while preparing a job."""


@dataclass
class Judgement:
    run: dict | None = None  # the run facts the judge derived (None if it died before)
    tests: list[list] | None = None  # [[name, points, area], ...] in suite order
    outcomes: list[dict] = field(default_factory=list)  # Gradescope test dicts, as decided
    limit: str | None = None  # "time" | "memory" | "died" when the judge stopped early
    seconds: float = 0.0


class JudgeProcess:
    def __init__(self, assignment: str, limits: Limits) -> None:
        self.assignment, self.limits = assignment, limits
        self.proc: subprocess.Popen | None = None
        self.conn: Connection | None = None
        self.group: RunCgroup | None = None
        self.started = 0  # how many judge processes this worker has started
        self.peak = 0  # the largest peak RSS seen among them, bytes

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self.stop()
        ours, theirs = socket.socketpair()
        memory = self.limits.judge_memory_bytes
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-m", "autograder.judge.server", str(theirs.fileno()), self.assignment]
            + [str(memory)],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env={**_judge_env(), "OMP_NUM_THREADS": "1"},
            start_new_session=True,  # Ctrl-C is the grader's to handle
        )
        theirs.close()
        self.conn = Connection(ours.detach())
        self.started += 1
        support = cgroup_support()
        if support is not None:  # the whole judge under its memory cap, not only its address space
            with contextlib.suppress(OSError):
                self.group = support.run_group(memory_bytes=memory, max_processes=256, cpus=float(os.cpu_count() or 1))
                for procs in self.group.procs_files:
                    with open(procs, "w") as fh:
                        fh.write(str(self.proc.pid))

    def stop(self) -> None:
        if self.proc is not None:
            self.peak = max(self.peak, peak_rss(self.proc.pid))
            if self.conn is not None:
                with contextlib.suppress(OSError):
                    self.conn.close()
            with contextlib.suppress(OSError):
                self.proc.kill()
            self.proc.wait()
        if self.group is not None:
            self.group.remove()
        self.proc, self.conn, self.group = None, None, None

    def peak_rss(self) -> int:
        return max(self.peak, peak_rss(self.proc.pid) if self.proc is not None else 0)

    def _next(self, deadline: float) -> dict | None:
        """The judge's next message, or None at the deadline or when it died."""
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0 or not self.conn.poll(remaining):
                return None
            header, blobs = receive(self.conn)
        except (EOFError, OSError):
            return None
        if blobs:
            header["_blob"] = blobs[0]
        return header

    def job(self, *, seed: int, kind: str, source: str, filename: str, timeout: float = 120.0) -> bytes:
        """The runner's job for `seed` (plan drawn, or reused, by the judge)."""
        self.start()
        # The first job waits for the judge's own start (torch, the grader): allow that on top.
        send(self.conn, {"op": "job", "seed": seed, "kind": kind, "source": source, "filename": filename})
        reply = self._next(time.monotonic() + timeout + self.limits.judge_seconds)
        if reply is None or "_blob" not in reply:
            why = "it stopped at its limit" if reply is None else reply.get("error", reply)
            self.stop()
            raise JudgeLimitError(f"the judge could not prepare the job: {why}")
        return reply["_blob"]

    def collect(self, *, seed: int, timeout: float = 120.0) -> list[list]:
        self.start()
        send(self.conn, {"op": "collect", "seed": seed})
        reply = self._next(time.monotonic() + timeout + self.limits.judge_seconds)
        if reply is None or "tests" not in reply:
            self.stop()
            raise JudgeLimitError(f"the judge could not list its tests: {reply}")
        return reply["tests"]

    def judge(self, *, seed: int, box, evidence: bytes) -> Judgement:
        """Judge one run's evidence; past the judge's limits, what it had decided (``Judgement.limit``)."""
        self.start()
        fields = {k: v for k, v in asdict(box).items() if k not in ("evidence", "isolation")}
        fields["isolation"] = box.isolation.as_dict()
        send(self.conn, {"op": "judge", "seed": seed, "box": fields, "limits": asdict(self.limits)}, (evidence,))
        out = Judgement()
        start = time.monotonic()
        deadline = start + self.limits.judge_seconds
        while True:
            message = self._next(deadline)
            if message is None:
                out.limit = "time" if time.monotonic() >= deadline else "died"
                if out.limit == "died" and self.group is not None and self.group.stats()["oom_kills"]:
                    out.limit = "memory"
                break
            if "run" in message:
                out.run = message["run"]
            elif "tests" in message:
                out.tests = message["tests"]
            elif "outcome" in message:
                out.outcomes.append(message["outcome"])
            elif "limit" in message:
                out.limit = str(message["limit"])
                break
            elif "error" in message:
                raise RuntimeError(f"the judge failed: {message['error']}")
            elif message.get("done"):
                break
        out.seconds = time.monotonic() - start
        if out.limit is not None:
            self.stop()  # killed at its limit: the next request starts a fresh judge
        return out


def _judge_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "AUTOGRADER_SANDBOX_MODE")
    return {k: v for k, v in os.environ.items() if k in keep}
