"""Trusted: the grader's side of the warm processes: a ``template``, a ``zygote`` forked from it, one sandboxed run.

``Template`` starts ``python -m autograder.sandbox.template``, which imports torch once and forks the pool's
warm processes (``Template.fork``: a zygote, a judge), each a ``Forked`` handle held through a pidfd. ``Zygote``
is one such fork, warmed (dnnlpy, the runner and a grader's experiments, imported once). ``run_forked`` asks
it for one child per run and then does what ``launch.run_sandboxed`` does for a fresh interpreter: feeds the
job, drains stdout/stderr/evidence into capped buffers, enforces the wall-time limit, kills the whole tree and
reports how the run ended, in the same ``SandboxResult``. Isolation and limits are the same as the fresh
path's (``config.jail_config``).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable

from autograder.sandbox.capture import Capture, Sink, drain, write_all
from autograder.sandbox.cgroups import RunCgroup
from autograder.sandbox.limits import Isolation, Limits
from autograder.sandbox.runs import SandboxResult, finish_run
from autograder.sandbox.slots import kill_uid
from autograder.sandbox.template import invocation

__all__ = ["Template", "Forked", "Zygote", "ZygoteError", "run_forked", "peak_rss", "resident_bytes"]


class ZygoteError(RuntimeError):
    """The fork server could not start or died: the caller starts a new one."""


def peak_rss(pid: int) -> int:
    """A live process's peak resident memory (VmHWM) in bytes, 0 when unknown."""
    return _status_bytes(pid, "VmHWM:")


def resident_bytes(pid: int | str = "self") -> int:
    """A live process's resident memory now (VmRSS) in bytes, 0 when unknown: what the grader measures of a judge
    after a judgement, and what the judge measures of itself before it."""
    return _status_bytes(pid, "VmRSS:")


def _status_bytes(pid: int | str, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


class Forked:
    """A child of the template, held through a pidfd (``Template.fork``): a signal through it reaches that
    child or nobody. Its pid is known once the template has forked it (it may still be importing torch)."""

    def __init__(self, reply: socket.socket) -> None:
        self._reply, self._pid, self._pidfd = reply, None, None
        self._lock = threading.Lock()

    def _resolve(self, timeout: float = 300.0) -> int | None:
        with self._lock:
            if self._reply is not None:
                self._reply.settimeout(timeout)
                try:
                    data, fds, _flags, _addr = socket.recv_fds(self._reply, 4096, 1)
                except OSError:  # the template died before forking it, or is stuck
                    data, fds = b"", []
                self._reply.close()
                self._reply = None
                if data and len(fds) == 1:
                    self._pid, self._pidfd = int(json.loads(data)["pid"]), fds[0]
                else:
                    for fd in fds:
                        os.close(fd)
            return self._pidfd

    @property
    def pid(self) -> int:
        self._resolve()
        return self._pid if self._pid is not None else -1

    def poll(self) -> int | None:
        """None while the child runs, else a non-None value (its status is the template's to reap)."""
        pidfd = self._resolve()
        if pidfd is None:
            return -1
        return None if not select.select([pidfd], [], [], 0)[0] else 0

    def wait(self, timeout: float | None = None) -> int:
        pidfd = self._resolve()
        if pidfd is not None and not select.select([pidfd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired("template child", timeout)
        return 0

    def kill(self) -> None:
        pidfd = self._resolve()
        if pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)

    def close(self) -> None:
        """Forget the child (kill it first if it must end)."""
        self._resolve(timeout=5.0)
        with self._lock:
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None


class _Served:
    """A warm process the grader talks to over `_sock` (`proc`: a ``subprocess.Popen`` or a ``Forked``), which
    ends when that socket closes."""

    _sock: socket.socket
    proc: subprocess.Popen | Forked

    def alive(self) -> bool:
        return self.proc.poll() is None

    def peak_rss(self) -> int:
        return peak_rss(self.proc.pid)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Template(_Served):
    """The process that imports torch once and forks the pool's warm processes from it (``sandbox.template``);
    shared by every worker of a pool, started again when it has died."""

    def __init__(self, fold: bool = True, shared: tuple[str, ...] = ()) -> None:
        """`fold`: fold torch's memory into huge pages before forking (``hugepages``; a class of one does not).
        `shared`: libraries of ``template.SHARED_IMPORTS`` imported once here rather than in each zygote (any
        other name: ValueError, before anything starts)."""
        self.fold, self.shared = fold, tuple(shared)
        self._lock = threading.Lock()
        self.started = 0
        self._start()

    def _start(self) -> None:
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            argv, env = invocation(theirs.fileno(), self.shared, fold=self.fold)
            self.proc = subprocess.Popen(
                argv,
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
                cwd="/",
                start_new_session=True,  # a Ctrl-C meant for the grader is the grader's to handle
            )
        except BaseException:
            self._sock.close()
            raise
        finally:
            theirs.close()
        self.started += 1

    def fork(self, entry: str, channel: int, stderr: int) -> Forked:
        """Ask for a child that runs `entry` (a module of ``template.ENTRIES``) on `channel` with `stderr`; the
        request is queued at once, so it is served as soon as the template has imported torch."""
        ours, reply = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with self._lock:
                if self.proc.poll() is not None:
                    self._sock.close()
                    self._start()
                message = json.dumps({"entry": entry}).encode()
                socket.send_fds(self._sock, [message], [channel, stderr, reply.fileno()])
        finally:
            reply.close()
        return Forked(ours)


class Zygote(_Served):
    """One warm fork server, forked from `template` (a template of its own when none is given); `modules` are
    imported in it before it forks anything (dnnlpy from the grader's copy in `library`, when given: see
    ``autograder.sandbox.library``); `fold`: its memory folded into huge pages once warm (``hugepages``), as its
    template's is when not given."""

    def __init__(
        self,
        modules: tuple[str, ...],
        optional: tuple[str, ...] = (),
        library: str | None = None,
        warm_up: str = "",
        template: Template | None = None,
        fold: bool | None = None,
        plan_ready: str = "",
    ) -> None:
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._lock = threading.Lock()
        self._own_template = template is None
        self.template = Template(fold is not False) if template is None else template
        err_r, err_w = os.pipe()
        try:
            self.proc = self.template.fork("autograder.sandbox.zygote", theirs.fileno(), err_w)
        finally:
            theirs.close()
            os.close(err_w)
        self._errors = Capture(err_r, 8192)
        self._errors.start()
        warm = {
            "op": "warm",
            "modules": list(modules),
            "optional": list(optional),
            "library": library,
            "warm_up": warm_up,  # the grader's warm-up function (AssignmentSpec.warm_up), after the imports
            "fold": self.template.fold if fold is None else fold,
            "plan_ready": plan_ready,  # what it draws once a plan (AssignmentSpec.plan_ready): ``plan``
        }
        self._sock.send(json.dumps(warm).encode())
        self._ready = False
        self.plan_digest: str | None = None  # the plan whose memo it holds (``plan``)
        self.plan_error = ""

    def wait_ready(self, timeout: float = 300.0) -> None:
        if self._ready:
            return
        reply, fds = self._reply(timeout)
        for fd in fds:
            os.close(fd)
        if "ready" not in reply:
            raise ZygoteError(f"the fork server did not warm up: {reply.get('error', reply)}")
        self._ready = True

    def _reply(self, timeout: float, max_fds: int = 0) -> tuple[dict, list[int]]:
        """The fork server's next message and the descriptors that came with it."""
        self._sock.settimeout(timeout)
        try:
            data, fds, _flags, _addr = socket.recv_fds(self._sock, 1 << 16, max(max_fds, 1))
        except (TimeoutError, OSError) as exc:
            raise ZygoteError(f"the fork server did not answer ({exc}); its stderr: {self._stderr()}") from None
        if not data:
            for fd in fds:
                os.close(fd)
            raise ZygoteError(f"the fork server died; its stderr: {self._stderr()}")
        return json.loads(data), fds

    def _stderr(self) -> str:
        return self._errors.text()[-2000:] or "(nothing)"

    def spawn(self, cfg: dict, fds: list[int]) -> tuple[int, int]:
        """Fork one child that becomes the run `cfg` describes; returns its pid and a pidfd of it (the caller
        closes it): a signal through the pidfd reaches that child or nothing, never a process that took its
        pid after it ended."""
        with self._lock:
            self.wait_ready()
            try:
                socket.send_fds(self._sock, [json.dumps({"op": "spawn", "cfg": cfg}).encode()], fds)
            except OSError as exc:
                raise ZygoteError(f"the fork server is gone ({exc}); its stderr: {self._stderr()}") from None
            reply, pidfds = self._reply(30.0, max_fds=1)
            self.plan_digest = reply.get("plan")  # what it holds now: a run of another plan made it drop its own
        if "pid" not in reply or len(pidfds) != 1:
            for fd in pidfds:
                os.close(fd)
            raise ZygoteError(f"the fork server refused the run: {reply.get('error', reply)}")
        return int(reply["pid"]), pidfds[0]

    def plan(self, digest: str, frame: bytes) -> bool:
        """Hand it a plan's job part as a job `frame` (``frames.join_frame`` of ``pipeline.job_part``), named by
        `digest`, for its ``plan_ready`` function to draw what every run of that plan shares; a run whose
        configuration names `digest` ("plan") is then forked with that memo. False when it made none (the runs
        compute it themselves): its reason is in ``plan_error``."""
        fd = os.memfd_create("autograder-plan", os.MFD_CLOEXEC)
        try:
            write_all(os.dup(fd), frame)  # a memfd takes it whole (write_all closes the copy)
            os.lseek(fd, 0, os.SEEK_SET)
            with self._lock:
                self.wait_ready()
                self.plan_digest = None
                try:
                    socket.send_fds(self._sock, [json.dumps({"op": "plan", "digest": digest}).encode()], [fd])
                except OSError as exc:
                    raise ZygoteError(f"the fork server is gone ({exc}); its stderr: {self._stderr()}") from None
                reply, fds = self._reply(60.0)
        finally:
            os.close(fd)
        for extra in fds:
            os.close(extra)
        self.plan_error = str(reply.get("error", ""))
        if reply.get("plan") != digest:
            return False
        self.plan_digest = digest
        return True

    def close(self) -> None:
        super().close()
        self.proc.close()
        if self._own_template:
            self.template.close()


def run_forked(
    zygote: Zygote,
    *,
    cfg: dict,
    stdin: bytes | Callable[[], bytes],
    limits: Limits,
    isolation: Isolation,
    group: RunCgroup | None,
) -> SandboxResult:
    """One run in a child of `zygote` (see the module docstring); `stdin` may be a function, called while the
    child sets itself up. If it raises, the run is abandoned and the exception re-raised here."""
    job_r, job_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    ev_r, ev_w = os.pipe()
    st_r, st_w = os.pipe()
    theirs = [job_r, out_w, err_w, ev_w, st_w]
    try:
        zygote.wait_ready()  # a first run does not count the zygote's warm-up as its own time
        start = time.monotonic()
        _pid, pidfd = zygote.spawn(cfg, theirs)
    except BaseException:
        for fd in (*theirs, job_w, out_r, err_r, ev_r, st_r):
            os.close(fd)
        raise
    for fd in theirs:
        os.close(fd)
    readers = [
        Sink(out_r, limits.capture_bytes),
        Sink(err_r, limits.capture_bytes),
        Sink(ev_r, limits.evidence_bytes, keep_all=True),
        Sink(st_r, 64, keep_all=True),
    ]
    child = _Child(pidfd)
    feed_error: list[BaseException] = []
    try:
        job = (job_w, stdin() if callable(stdin) else stdin)  # made while the child sets itself up
    except BaseException as exc:  # handed to the caller once the run is over; the run is abandoned
        feed_error.append(exc)
        child.kill()
        os.close(job_w)
        job = None
    # until the status pipe closes (PID 1 has gone), or the wall limit
    timed_out = not drain(readers, until=readers[3:], deadline=time.monotonic() + limits.wall_seconds, job=job)
    wall = time.monotonic() - start
    child.kill()  # PID 1: the kernel then kills every process of the run's PID namespace
    survivors = group.kill() if group is not None else 0
    # Every process of its uid: with namespaces and a cgroup that ended empty, none can be left (no process leaves
    # its PID namespace or its cgroup without a privilege the run dropped), and the sweep reads /proc/N/status of
    # every process on the machine (~10 us each); the worker sweeps its uid when it stops.
    if cfg["mode"] != "rlimits" and (cfg["mode"] != "namespaces" or group is None or survivors):
        survivors += kill_uid(cfg["uid"])
    drain(readers, until=readers, deadline=time.monotonic() + 2.0)  # what the run wrote before it ended
    return finish_run(
        readers,
        limits,
        group=group,
        feeder=None,
        feed_error=feed_error,
        returncode=None,  # PID 1 reports the runner's exit on the status pipe
        timed_out=timed_out,
        wall=wall,
        isolation=isolation,
        survivors=survivors,
    )


class _Child:
    """The zygote's child (the run's PID 1), killed once, through a pidfd: the zygote keeps it a zombie until it
    reaps it, and the signal goes to that process or to nobody (never to whatever took the pid after it, as a
    bare pid kill could when the child ended early: its set-up failed, or the OOM killer took it)."""

    def __init__(self, pidfd: int) -> None:
        self.pidfd, self._lock, self._done = pidfd, threading.Lock(), False

    def kill(self) -> None:
        with self._lock:
            if not self._done:
                self._done = True
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)  # its PID namespace goes with it
                os.close(self.pidfd)
