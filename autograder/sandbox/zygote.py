"""Trusted: the warm fork server: imports dnnlpy and the runner once, then forks one sandboxed child per run.

A fork of the ``template`` (``autograder.sandbox.warm.Zygote``), which was started as ``python -I -B`` with a
bare environment and holds torch alone: so nothing of the grader (its argv, environment, judge, other students'
work) is in its memory, which every child inherits, but the part of the jobs of the plan its next runs grade,
which each of those runs' jobs holds anyway (op "plan"). It never receives a submission either: each job's own
fields go from the grader to the child through a pipe the child alone reads. Messages on the socket
(SOCK_SEQPACKET, one JSON object each)::

    grader -> zygote   {"op": "warm", "modules": [...],          import these (and what of "optional"
                        "optional": [...], "library": path,      imports cleanly; dnnlpy from the grader's
                        "warm_up": "module:function",            copy in "library", if given), call warm_up
                        "fold": true}                            if given, fold its memory into huge pages
                                                                 unless "fold" is false, then reply
                                                                 {"ready": pid}
    grader -> zygote   {"op": "plan", "digest": str} + 1 fd     the part every job of a plan holds (a whole job
                       fd: a memfd, that part as a job frame     frame of it, ``pipeline.job_part``), decoded
                                                                 once for the plan's runs (their jobs then
                                                                 leave it out) and handed to the grader's
                                                                 "plan_ready" function of the warm request to
                                                                 draw what they share; reply {"plan": digest}
    grader -> zygote   {"op": "spawn", "cfg": {...}} + 5 fds     start the run (``forked.fork_run``); reply
                       fds: job (read), stdout, stderr,          {"pid": its PID 1, "plan": the digest of the
                       evidence, status (write)                  plan it holds now} and a pidfd of that; the
                                                                 runner's exit reported on the status pipe
    socket closed      exit

Two rules keep forking safe and every child identical: torch gets one thread before any tensor op (a fork
after multi-threaded OpenMP work can deadlock), and after warming up nothing here changes (the children do
the work; see ``forked``) but the memo of one plan (``AssignmentSpec.plan_ready``): what the runs of that plan
would each compute alike, made between two forks in this one thread. A run is forked with it only when its
configuration names that plan's digest ("plan"); any other run comes after the memo is dropped, so a child never
holds what another plan's runs compute. The process is not dumpable, so nothing running as the same user can read or
patch its memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import weakref
from collections.abc import Callable

from autograder.sandbox.hugepages import fold_anonymous_memory

__all__ = ["main", "next_request", "Children", "serve_apart"]

_PR_SET_DUMPABLE = 4
_MAX_FDS = 5
_REAP_EVERY = 1.0  # seconds between reaps while no request comes


def _warm(modules: list[str], optional: list[str], library: str | None, warm_up: str = "", fold: bool = True) -> bytes:
    """Import `modules` and what of `optional` imports cleanly (torch is the template's, with its one thread),
    dnnlpy from the copy in `library` (``autograder.sandbox.library``) when given, then run the grader's `warm_up`;
    and fold its memory into huge pages (``hugepages``) unless told not to; returns torch's initial RNG state for
    the children."""
    if library:  # before anything imports dnnlpy: every child then has the copy's modules
        from autograder.runner.library import put_first

        put_first(library)
    import torch

    state = torch.get_rng_state()  # what a fresh interpreter starts with (torch's fixed default seed)
    for name in modules:
        importlib.import_module(name)
    for name in optional:  # what submissions commonly import, so that no child pays for it
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a child imports it itself, or fails as a fresh interpreter would
            pass
    if warm_up:  # the grader's own first-time costs (AssignmentSpec.warm_up), paid here once, not in every child
        _call(warm_up)
    # A tiny forward and backward pulls in torch's lazily imported parts once, here, not in every child.
    layer = torch.nn.Linear(4, 2)
    layer(torch.ones(3, 4)).sum().backward()
    torch.set_rng_state(state)
    _no_exit_finalizers()
    gc.collect()
    gc.freeze()  # children never walk these objects in a collection: fewer copied pages per child
    if fold:  # fewer page-table entries for each fork and exit of a run to copy and drop
        fold_anonymous_memory()
    return state.numpy().tobytes()


def _no_exit_finalizers() -> None:
    """The finalizers imports made here run at no child's exit: torch registers one per operator library
    (~40 ms of CPU in every child, which exits with ``atexit``'s handlers as a fresh interpreter does), and what
    they clean up goes with the child's process anyway. Finalizers a child makes (student code) still run."""
    for finalizer in list(getattr(weakref.finalize, "_registry", {})):
        finalizer.atexit = False


def next_request(sock: socket.socket, size: int, max_fds: int) -> tuple[bytes, list[int]] | None:
    """The next request on `sock` (its bytes and the descriptors that came with it), the children that ended
    reaped every ``_REAP_EVERY`` seconds while none comes; None once the grader has closed the socket. The
    caller drops the request's bytes before it forks: this function keeps no reference to them."""
    return Children().next_request(sock, size, max_fds)


def serve_apart() -> None:
    """What a warm process of the grader's (this fork server, the template) sets first: not dumpable, so nothing
    running as the same user can read or patch its memory; children reaped by ``Children.reap``, never by the kernel on
    exit (the grader kills a child through a pidfd of it, and a pid freed early could be reused by any process
    on the machine); Ctrl-C left to the grader, which closes the socket."""
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _PlanMemo:
    """The plan whose runs it forks next: the part of their jobs decoded, what the grader's ``plan_ready``
    function (if any) drew for them, and its digest (None: no plan held)."""

    def __init__(self, target: str) -> None:
        self.target, self.digest = target, None
        self.part: dict | None = None  # the plan's part decoded: its runs' jobs leave it out (``runner.main``)

    def load(self, digest: str, fd: int) -> None:
        """Decode the plan's job frame in `fd` and let the grader draw what its runs share (ValueError: not one)."""
        from autograder.protocol.frames import JOB, read_frame

        self.drop()
        try:
            with os.fdopen(fd, "rb", closefd=False) as fh:
                name, part = read_frame(fh.read())
            if name != JOB:
                raise ValueError(f"a plan's part comes as a {JOB!r} frame, not {name!r}")
            if self.target:
                _call(self.target, part)
        except BaseException:
            self._forget()  # nothing half made stays
            raise
        gc.freeze()  # what it keeps, out of every child's collections as the warm-up's is
        self.digest, self.part = str(digest), part

    def drop(self) -> None:
        if self.digest is not None:
            self.digest = self.part = None
            self._forget()

    def _forget(self) -> None:
        if self.target:
            with contextlib.suppress(Exception):
                _call(self.target, None)


def _call(target: str, *args) -> None:
    where, _, name = target.partition(":")
    getattr(importlib.import_module(where), name)(*args)


def _serve(sock: socket.socket, rng_state: bytes, memo: _PlanMemo) -> None:
    from autograder.sandbox.forked import fork_run, prepare
    from autograder.sandbox.jail import report_exit

    prepare()
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)  # where each run's fork comes back to
    os.set_inheritable(sock.fileno(), False)  # a run's PID 1 is spawned (exec): it gets none of this server's files
    children = Children(report_exit)
    while (request := children.next_request(sock, 1 << 20, _MAX_FDS)) is not None:
        data, fds = request
        del request
        for fd in fds:
            os.set_inheritable(fd, False)
        try:
            message = json.loads(data)
            if message.get("op") == "plan" and len(fds) == 1:
                _plan(sock, memo, str(message.get("digest")), fds[0])
                continue
            if message.get("op") != "spawn" or len(fds) != _MAX_FDS:
                raise ValueError(f"expected a spawn request with {_MAX_FDS} fds, got {message.get('op')!r}")
        except ValueError as exc:
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"error": str(exc)}).encode())
            continue
        cfg = message.pop("cfg")
        if cfg.get("plan") != memo.digest:  # a run of another plan (or of none) never holds this one's memo
            memo.drop()
        del data  # the request as it came: from here on the child's configuration is `cfg` alone, which it empties
        try:
            part = None if memo.digest is None else (memo.digest, memo.part)
            pid, runner = fork_run(cfg, fds, [sock.fileno(), own_pid_ns], rng_state, own_pid_ns, part)
        except BaseException as exc:
            for fd in fds:
                os.close(fd)
            if not isinstance(exc, OSError):
                raise
            # the namespace refused, or no fork: the grader hears why, this server carries on
            sock.send(json.dumps({"error": f"could not fork the run: {exc}", "plan": memo.digest}).encode())
            continue
        for fd in fds[:4] if runner is not None else fds:
            os.close(fd)
        if runner is not None:  # its exit is reported here, on the run's status pipe (fds[4])
            children.watch(runner, fds[4])
        pidfd = os.pidfd_open(pid)  # not yet reaped, so this is our child whatever it has done since
        try:
            socket.send_fds(sock, [json.dumps({"pid": pid, "plan": memo.digest}).encode()], [pidfd])
        finally:
            os.close(pidfd)


def _plan(sock: socket.socket, memo: _PlanMemo, digest: str, fd: int) -> None:
    """The "plan" request: the memo made (a plan the grader's function cannot read leaves none, and says why)."""
    try:
        memo.load(digest, fd)
        reply = {"plan": digest}
    except Exception as exc:  # noqa: BLE001 - the runs compute it themselves; the grader hears why
        reply = {"error": f"the plan's memo was not made: {type(exc).__name__}: {exc}"[:2000]}
    finally:
        os.close(fd)
    sock.send(json.dumps(reply).encode())


class Children:
    """This server's children, reaped as they end (until then each stays a zombie, so its pid, and the pidfd the
    grader holds, cannot name another process), and the runners among them whose exit it reports
    (``forked.fork_run``: a run with namespaces, whose PID 1 is not their parent): each one's status pipe is
    written "exit N" or "signal N" (`report`: ``jail.report_exit``) and closed as soon as it ends, a pidfd of each
    being polled with the socket."""

    def __init__(self, report: Callable[[int, int], None] | None = None) -> None:
        self._report = report
        self._poll = select.poll()
        self._by_pid: dict[int, tuple[int, int]] = {}  # pid -> (its pidfd, its status pipe)

    def watch(self, pid: int, status_fd: int) -> None:
        if self._report is None:
            raise ValueError("Children() without a report cannot watch a runner: give it jail.report_exit")
        pidfd = os.pidfd_open(pid)  # not yet reaped: this very child
        self._by_pid[pid] = (pidfd, status_fd)
        self._poll.register(pidfd, select.POLLIN)

    def reap(self) -> None:
        """Reap every child that has ended, reporting each watched runner's exit."""
        with contextlib.suppress(ChildProcessError):
            while (ended := os.waitpid(-1, os.WNOHANG))[0] > 0:
                watched = self._by_pid.pop(ended[0], None)
                if watched is not None:
                    pidfd, status_fd = watched
                    self._poll.unregister(pidfd)
                    os.close(pidfd)
                    self._report(status_fd, ended[1])
                    os.close(status_fd)

    def next_request(self, sock: socket.socket, size: int, max_fds: int) -> tuple[bytes, list[int]] | None:
        """The next request on `sock` (``next_request``), the children that end meanwhile reaped at once when
        watched, else every ``_REAP_EVERY`` seconds."""
        sock.settimeout(_REAP_EVERY)  # its replies are sent with this timeout too
        self._poll.register(sock, select.POLLIN)
        try:
            while True:
                self.reap()
                if sock.fileno() not in {fd for fd, _ in self._poll.poll(_REAP_EVERY * 1000)}:
                    continue
                self.reap()  # a runner that ended with the request: reported before the next fork
                try:
                    data, fds, _flags, _addr = socket.recv_fds(sock, size, max_fds)
                except TimeoutError:
                    continue
                except (ConnectionError, OSError):
                    return None
                return (data, fds) if data else None
        finally:
            self._poll.unregister(sock)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(args[0]))
    serve_apart()
    try:
        message = json.loads(sock.recv(1 << 20) or b"{}")
        modules, optional = list(message.get("modules", [])), list(message.get("optional", []))
        rng_state = _warm(
            modules, optional, message.get("library"), message.get("warm_up", ""), message.get("fold") is not False
        )
        memo = _PlanMemo(str(message.get("plan_ready") or ""))
    except Exception as exc:  # tell the grader why, then stop
        sock.send(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
        return
    sock.send(json.dumps({"ready": os.getpid()}).encode())
    _serve(sock, rng_state, memo)
