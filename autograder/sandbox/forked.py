"""Trusted until the uid drop: what a child of the warm ``zygote`` does to become one sandboxed run.

Two processes, like the fresh path's ``unshare`` + ``jail`` + runner, without an interpreter start, and one
zygote-sized copy fewer than a child that unshares and forks PID 1 (a fork and an exit of the zygote's ~240 MiB,
~5 ms of CPU a run: `bench_grading.py floor`)::

    zygote  (host namespaces, root)  its next child alone gets a new PID namespace (``fork_run``: unshare(2)
                                     of that one namespace, which a process with threads may leave, then setns(2)
                                     back onto its own once it has forked), and a pidfd of it goes to the grader
    PID 1   (root)                   joins the run's cgroup, a session of its own, dies with the zygote
                                     (PDEATHSIG), unshares the mount, UTS, IPC and network namespaces, builds the
                                     private root, forks the runner, chroots, reaps orphans, reports the runner's
                                     exit on the status pipe; the grader kills it at the time limit, and the
                                     kernel then kills every process of its PID namespace
    runner  (unprivileged)           chroot, limits, uid drop, seccomp, then ``autograder.runner`` as a
                                     fresh interpreter would run it: clean environment, argv, stdio and RNG,
                                     ``SystemExit``, threads and ``atexit`` handled as at interpreter exit
                                     (``exit_steps``)

A forked child has one thread, so unshare(2) of the other namespaces works; the zygote's descriptors are closed
first thing, so nothing that runs later can ask the zygote for anything. The run's configuration (its uid, the
view's mounts, its cgroup) is one dict that every frame below the runner holds; the runner empties it before the
submission runs, so student code that walks its frames, ``gc.get_objects()`` or any module's globals finds none
of it. Without namespaces (the uid and rlimits modes) PID 1 is an ordinary child that reaps the runner's orphans
(a subreaper), and the grader's cgroup and uid sweeps end what is left.
"""

from __future__ import annotations

import atexit
import ctypes
import io
import os
import random
import signal
import sys
import threading
import traceback

from autograder.sandbox import rootfs, seccomp
from autograder.sandbox.jail import reap_until

__all__ = ["prepare", "fork_run", "start_child", "become_runner", "exit_steps"]

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
EVIDENCE_FD = 3
_libc = ctypes.CDLL(None, use_errno=True)


def prepare() -> None:
    """What would otherwise be made anew in every child, made once in the zygote before it forks: the seccomp
    profile's BPF program (``seccomp.program``), which each runner then only installs; the files of the modules
    loaded, which the runner's watch does not count (``refusals.remember_loaded``)."""
    from autograder.runner import refusals

    if seccomp.available():
        seccomp.program()
    refusals.remember_loaded()


def fork_run(cfg: dict, fds: list[int], zygote_fds: list[int], rng_state: bytes, own_pid_ns: int | None) -> int:
    """Fork the run's PID 1 (``start_child``), in a PID namespace of its own when the mode has namespaces; the
    caller (the zygote) stays in its own, which `own_pid_ns` (a descriptor of its ``/proc/self/ns/pid``) names.
    Returns the child's pid; the child never returns."""
    namespaces = cfg["mode"] == "namespaces"
    if namespaces:
        rootfs.pid_namespace_for_children()
    try:
        pid = os.fork()
    except BaseException:
        if namespaces:
            rootfs.own_pid_namespace_for_children(own_pid_ns)
        raise
    if pid == 0:
        start_child(cfg, fds, zygote_fds, rng_state)  # never returns
    if namespaces:
        try:
            rootfs.own_pid_namespace_for_children(own_pid_ns)
        except OSError as exc:  # every later child would be born in this run's namespace: stop serving
            os.kill(pid, signal.SIGKILL)
            raise RuntimeError(f"the fork server could not go back to its own PID namespace: {exc}") from None
    return pid


def start_child(cfg: dict, fds: list[int], zygote_fds: list[int], rng_state: bytes) -> None:
    """The zygote's child, the run's PID 1: never returns."""
    try:
        for fd in zygote_fds:
            os.close(fd)
        job_r, out_w, err_w, ev_w, st_w = fds
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the zygote ends when the grader has gone
        os.setsid()
        if cfg.get("cgroup_procs"):
            rootfs.join_cgroup(cfg["cgroup_procs"])
        _pid_one(cfg, (job_r, out_w, err_w, ev_w), st_w, rng_state)
    except BaseException as exc:  # noqa: BLE001 - say why on the zygote's stderr, then die
        os.write(2, f"sandbox child: {type(exc).__name__}: {exc}\n".encode())
    os._exit(120)


def _pid_one(cfg: dict, runner_fds: tuple[int, ...], status_fd: int, rng_state: bytes) -> None:
    namespaces = cfg["mode"] == "namespaces"
    if not namespaces:  # orphans come back to us rather than to the host's init
        _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if namespaces:
        rootfs.unshare(rootfs.PID1_NAMESPACE_FLAGS)
        rootfs.build_root(cfg)
    pid = os.fork()
    if pid == 0:
        _runner(cfg, runner_fds, rng_state)
    rootfs.close_fds_except({status_fd})
    if namespaces:  # /proc/1/{root,mountinfo} then show the runner's view, not the host's
        rootfs.enter_root(cfg["root_mount"])
    reap_until(pid, status_fd)


def _runner(cfg: dict, fds: tuple[int, ...], rng_state: bytes) -> None:
    try:
        moved = [os.dup(fd) for fd in fds]  # then onto 0, 1, 2, 3 without clobbering one another
        for target, fd in enumerate(moved):
            os.dup2(fd, target)
        rootfs.close_fds_except({0, 1, 2, EVIDENCE_FD})
        os.setsid()
        namespaces = cfg["mode"] == "namespaces"
        if namespaces:
            rootfs.enter_root(cfg["root_mount"])
        os.chdir(cfg["cwd"])
        rootfs.set_limits(cfg["rlimits"])
        if cfg["mode"] != "rlimits":
            rootfs.drop_privileges(cfg["uid"], cfg["gid"])
        if not namespaces:
            _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # set after the uid change, which clears it
        rootfs.restrict_syscalls()
        env = cfg["env"]
        cfg.clear()  # the one dict every frame below holds: the submission finds nothing of the run's set-up
    except BaseException as exc:  # noqa: BLE001
        os.write(2, f"sandbox: could not start the runner: {exc}\n".encode())
        os._exit(121)
    os._exit(become_runner(env, rng_state))


def _fresh_stdio() -> None:
    # What `python -I` with PYTHONUNBUFFERED=1 and LANG=C.UTF-8 gives a fresh interpreter.
    stdin = io.TextIOWrapper(open(0, "rb", closefd=False), encoding="utf-8")
    stdout = io.TextIOWrapper(open(1, "wb", buffering=0, closefd=False), encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(
        open(2, "wb", buffering=0, closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = stdin, stdout, stderr


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def become_runner(env: dict, rng_state: bytes) -> int:
    """Run ``autograder.runner`` in this process, with the environment `env`, as a fresh
    ``python -I -m autograder.runner 3`` would."""
    import torch

    import autograder.runner.__main__ as runner

    os.environ.clear()
    os.environ.update(env)
    sys.argv = [runner.__file__, str(EVIDENCE_FD)]
    _fresh_stdio()
    torch.set_rng_state(torch.frombuffer(bytearray(rng_state), dtype=torch.uint8))
    random.seed()  # a fresh interpreter seeds from the OS, not from the zygote's state
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    try:
        code = runner.main([str(EVIDENCE_FD)])
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException:  # noqa: BLE001 - as an uncaught exception at top level
        traceback.print_exc()
        code = 1
    exit_steps()
    return int(code) & 0xFF if isinstance(code, int) else 1


def exit_steps() -> None:
    """What a fresh interpreter does once its main module has ended, before it exits: wait for the threads the
    submission left running, run the exit handlers it registered, flush its output. The run then ends with
    ``os._exit``, so that nothing of the zygote (its frames, its own handlers) runs in the child.

    Two private functions of the standard library, each the interpreter's own exit step, for want of a public
    one that does the same (``tests/autograder/sandbox/test_forked.py`` holds both to a fresh interpreter's exit):
    - ``threading._shutdown``: the wait for non-daemon threads, after the hooks of ``threading._register_atexit``,
      through which ``concurrent.futures`` lets an open executor's idle workers go. A join of the threads by
      hand runs no hook: a submission that left an executor open would hang its run to the time limit, where a
      fresh interpreter ends.
    - ``atexit._run_exitfuncs``: the submission's handlers, last registered first, one that raises reported and
      the rest still run; no public call runs them.
    """
    try:
        threading._shutdown()
    except BaseException:  # noqa: BLE001 - a thread's own error (or a Ctrl-C) must not skip the handlers
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass
