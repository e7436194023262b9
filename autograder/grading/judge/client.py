"""Trusted: the grader's side of a warm judge process: start it, ask it, hold it to its limits, replace it.

``JudgeProcess`` starts a judge (``autograder.grading.judge.server``): in the pool a fork of the worker's
``Template``, which has torch imported already, else ``python -m autograder.grading.judge.server``; in a cgroup
with its memory cap when root, before it is told which assignment to load. It asks it to draw the plan
for a seed (the answer holds what every job of that plan holds: ``pipeline.job_part``) and for a judgement,
and waits at most ``Limits.judge_seconds`` for each. Past that, or when the judge runs out of memory or dies,
the reply says so (``Judgement.limit``) with whatever the judge had decided by then, and the process is killed;
the next request starts a fresh one.

A judge's start-up (imports, the plan, the suite) is never anyone's time: ``ready(seed)`` waits for it
before a student's run starts, and a judgement's clock starts only once the judge is ready. A judge that
has grown (resident memory past ``GROWN_SHARE`` of its cap after a judgement) is replaced then, between two
students, so that the next one is judged by a judge with its whole memory limit.
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

from autograder.grading.judge.wire import GROWN_SHARE, receive, send
from autograder.sandbox.cgroups import RunCgroup, cgroup_support
from autograder.sandbox.limits import Limits
from autograder.sandbox.warm import Forked, Template, peak_rss, resident_bytes

__all__ = ["JudgeProcess", "Judgement", "JudgeLimitError", "GROWN_SHARE", "STARTUP_SECONDS", "resident_bytes"]

STARTUP_SECONDS = 120.0  # a judge's imports, plan and suite on a loaded machine; nobody's time limit


class JudgeLimitError(RuntimeError):
    """The judge did not answer in time (or died) while preparing a job."""


@dataclass
class Judgement:
    run: dict | None = None  # the run facts the judge derived (None if it died before)
    tests: list[list] | None = None  # [[name, points, area], ...] in suite order
    outcomes: list[dict] = field(default_factory=list)  # TestOutcome.to_wire() dicts, as decided
    limit: str | None = None  # "time" | "memory" | "died" when the judge stopped early
    seconds: float = 0.0  # from the judgement's request to its end: the judge was ready before
    resident: int = 0  # the judge's resident memory after the judgement, bytes (0 when it stopped)


class JudgeProcess:
    def __init__(self, assignment: str, limits: Limits, template: Template | None = None) -> None:
        """`template`: each judge is a fork of it (a replacement too: no new torch import); else a new interpreter."""
        self.assignment, self.limits, self.template = assignment, limits, template
        self.proc: subprocess.Popen | Forked | None = None
        self.conn: Connection | None = None
        self.group: RunCgroup | None = None
        self.started = 0  # how many judge processes this worker has started
        self.replaced = 0  # how many of them were replaced because they had grown
        self.peak = 0  # the largest peak RSS seen among them, bytes
        self.ready_at: float | None = None  # time.monotonic() when the current judge said it was ready
        self._warm: int | None = None  # the seed whose plan and suite the current judge has loaded
        self._asked: int | None = None  # the seed the current judge was asked to warm up for, not yet answered
        self._part: tuple[bytes, bytes] = (b"", b"")  # the warm seed's ``pipeline.job_part``, as the judge made it
        self._tests: list[list] | None = None  # the suite's listing, once a judge has said it

    def command(self, fd: int) -> list[str]:
        """The judge's command line when it is a new interpreter (the socket's fd is its argument)."""
        return [sys.executable, "-I", "-B", "-m", "autograder.grading.judge.server", str(fd)]

    def start(self) -> None:
        """Start a judge if none is running (it imports in the background: ``ready`` waits for it)."""
        if self.proc is not None and self.proc.poll() is None:
            return
        self.stop()
        ours, theirs = socket.socketpair()
        env = {**_judge_env(), "OMP_NUM_THREADS": "1"}
        if self.template is not None:
            self.proc = self.template.fork("autograder.grading.judge.server", theirs.fileno(), 2)
        else:
            self.proc = subprocess.Popen(
                self.command(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # Ctrl-C is the grader's to handle
            )
        theirs.close()
        self.conn = Connection(ours.detach())
        self.started += 1
        pid = self.proc.pid  # a fork of the template's: known once the template has forked it
        memory = self.limits.judge_memory_bytes
        support = cgroup_support()
        if support is not None:  # the whole judge under its memory cap, not only its address space
            with contextlib.suppress(OSError):
                self.group = support.run_group(memory_bytes=memory, max_processes=256, cpus=float(os.cpu_count() or 1))
                for procs in self.group.procs_files:
                    with open(procs, "w") as fh:
                        fh.write(str(pid))
        with contextlib.suppress(OSError):  # a judge that died says so at ``ready``
            send(self.conn, {"assignment": self.assignment, "memory": memory, "env": env})

    def stop(self) -> None:
        if self.proc is not None:
            self.peak = max(self.peak, peak_rss(self.proc.pid))
            if self.conn is not None:
                with contextlib.suppress(OSError):
                    self.conn.close()
            with contextlib.suppress(OSError):
                self.proc.kill()
            self.proc.wait()
            if isinstance(self.proc, Forked):
                self.proc.close()
        if self.group is not None:
            self.group.remove()
        self.proc, self.conn, self.group = None, None, None
        self.ready_at, self._warm, self._asked = None, None, None

    def peak_rss(self) -> int:
        return max(self.peak, peak_rss(self.proc.pid) if self.proc is not None else 0)

    def _started(self, timeout: float = STARTUP_SECONDS) -> None:
        """A running judge whose imports are done (started now if there is none)."""
        self.start()
        if self.ready_at is not None:
            return
        hello = self._next(time.monotonic() + timeout)
        if hello is None or not hello.get("ready"):
            why = "it ended" if self.proc is None or self.proc.poll() is not None else f"not within {timeout:g} s"
            self.stop()
            raise JudgeLimitError(
                f"the judge process did not start ({why}): check that `python -c 'import torch, autograder'` "
                "works in this environment"
            )
        self.ready_at = time.monotonic()
        if self._asked is not None:  # its answer comes before any other: read it now
            self._warmed(self._asked, timeout)

    def prepare(self, seed: int) -> None:
        """Ask the judge (started now if there is none) to draw the plan for `seed` and load the suite, without
        waiting: it does so while the sandbox warms up, and ``ready`` reads its answer."""
        self.start()
        if self._warm != seed and self._asked is None:
            with contextlib.suppress(OSError):  # a judge that died says so at ``ready``
                send(self.conn, {"op": "warm", "seed": seed})
                self._asked = seed

    def ready(self, seed: int, timeout: float = STARTUP_SECONDS) -> None:
        """A judge with its imports done, the plan for `seed` drawn and the suite loaded: call it before a
        student's clock starts, so that a judge's start-up (after a restart, too) is never charged to them."""
        self._started(timeout)
        if self._warm != seed:
            send(self.conn, {"op": "warm", "seed": seed})
            self._warmed(seed, timeout)

    def _warmed(self, seed: int, timeout: float) -> None:
        """Read the judge's answer to a warm-up for `seed`."""
        self._asked = None
        reply = self._next(time.monotonic() + timeout)
        if reply is None or reply.get("warm") != seed or len(reply["_blobs"]) != 2:
            self.stop()
            raise JudgeLimitError(f"the judge could not draw the plan for seed {seed}: {reply}")
        self._warm, self._part = seed, tuple(reply["_blobs"])

    def _next(self, deadline: float) -> dict | None:
        """The judge's next message, or None at the deadline or when it died."""
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0 or not self.conn.poll(remaining):
                return None
            header, blobs = receive(self.conn)
        except (EOFError, OSError):
            return None
        header["_blobs"] = blobs
        return header

    def job_part(self, seed: int, timeout: float = STARTUP_SECONDS) -> tuple[bytes, bytes]:
        """What every job of `seed`'s plan holds (``pipeline.job_part``), as the judge made it when it drew the
        plan: the grader makes each submission's job from it (``pipeline.job_for``) without asking the judge."""
        self.ready(seed, timeout)
        return self._part

    def collect(self, *, seed: int, timeout: float = 120.0) -> list[list]:
        """The suite's tests, [[name, points, area], ...]: known from an earlier judgement, else asked of a judge
        (started for it: after a judge's limit, the listing names what was not judged)."""
        if self._tests is not None:
            return self._tests
        self._started(timeout)
        send(self.conn, {"op": "collect", "seed": seed})
        reply = self._next(time.monotonic() + timeout + self.limits.judge_seconds)
        if reply is None or "tests" not in reply:
            self.stop()
            raise JudgeLimitError(f"the judge could not list its tests: {reply}")
        self._tests = reply["tests"]
        return self._tests

    def judge(self, *, seed: int, box, evidence: bytes) -> Judgement:
        """Judge one run's evidence; past the judge's limits, what it had decided (``Judgement.limit``).

        The judge's time limit counts from a ready judge (a restarted one starts first, on nobody's time).
        Afterwards a judge that has grown is replaced, before the next submission.
        """
        self.ready(seed)
        request = {"op": "judge", "seed": seed, "box": box.to_wire(), "limits": asdict(self.limits)}
        send(self.conn, request, (evidence,))
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
            for item in message.get("batch", ()):  # what the judgement decided, sent together (``server.Outbox``)
                if "run" in item:
                    out.run = item["run"]
                elif "tests" in item:
                    out.tests = self._tests = item["tests"]
                elif "outcome" in item:
                    out.outcomes.append(item["outcome"])
            if "limit" in message:
                out.limit = str(message["limit"])
                break
            if "error" in message:
                raise RuntimeError(f"the judge failed: {message['error']}")
            if message.get("done"):
                break
        out.seconds = time.monotonic() - start
        if out.limit is not None:
            self.stop()  # killed at its limit: the next request starts a fresh judge
        else:
            out.resident = resident_bytes(self.proc.pid)
            if out.resident > GROWN_SHARE * self.limits.judge_memory_bytes:
                self.stop()  # grown: replaced now, between two students, never during one
                self.replaced += 1
                self.start()  # imports while the next submission is read; ``ready`` waits for it
        return out


def _judge_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "AUTOGRADER_SANDBOX_MODE")
    return {k: v for k, v in os.environ.items() if k in keep}
