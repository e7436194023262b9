"""Trusted until the uid drop: what a child of the warm ``zygote`` does to become one sandboxed run.

With namespaces, one zygote-sized process a run (the runner) and a small PID 1, where a child that unshares and
forks PID 1 would copy the zygote's ~240 MiB twice (each fork and exit of it ~4 ms of CPU a run:
`bench_grading.py floor`)::

    zygote  (host namespaces, root)  a new PID namespace for its next two children (``fork_run``: unshare(2) of
                                     that one namespace, which a process with threads may leave, then setns(2)
                                     back onto its own); a pidfd of PID 1 goes to the grader; it reports the
                                     runner's exit on the run's status pipe once it reaps it (``zygote.Children``)
    PID 1   (root)                   ``sleep``, spawned (no page tables copied): holds the namespace, dies with
                                     the zygote (``setpriv --pdeathsig``); the grader kills it when the run ends
                                     or at the time limit, and the kernel then kills every process left in the
                                     namespace. It reaps nothing: the runner's orphans stay zombies until then
    runner  (root, then not)         PID 2: joins the run's cgroup, a session of its own, unshares the mount,
                                     UTS, IPC and network namespaces, builds the private root (its /proc shows
                                     no other user's process, PID 1 included), chroot, limits, uid drop, dies
                                     with the zygote (PDEATHSIG), seccomp, then ``autograder.runner`` as a fresh
                                     interpreter would run it: clean environment, argv, stdio and RNG,
                                     ``SystemExit``, threads and ``atexit`` handled as at interpreter exit
                                     (``exit_steps``)

A forked child has one thread, so unshare(2) of the other namespaces works; the zygote's descriptors are closed
first thing, so nothing that runs later can ask the zygote for anything, and PID 1 is spawned with none of them.
The run's configuration (its uid, the view's mounts, its cgroup) is one dict that every frame below the runner
holds; the runner empties it before the submission runs, so student code that walks its frames,
``gc.get_objects()`` or any module's globals finds none of it. Without namespaces (the uid and rlimits modes)
PID 1 is the zygote's child, which forks the runner, reaps its orphans (a subreaper) and reports its exit; the
grader's cgroup and uid sweeps end what is left.
"""

from __future__ import annotations

import atexit
import ctypes
import io
import os
import random
import shutil
import signal
import sys
import threading
import traceback

from autograder.runner.budget import RUN_SECONDS_ENV
from autograder.sandbox import rootfs, seccomp
from autograder.sandbox.jail import reap_until

__all__ = ["prepare", "fork_run", "start_child", "become_runner", "exit_steps"]

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
EVIDENCE_FD = 3
_libc = ctypes.CDLL(None, use_errno=True)
# A run's PID 1 with namespaces (``_spawn_init``): found once, in the fork server's own file system.
_SLEEP, _SETPRIV = shutil.which("sleep"), shutil.which("setpriv")
_DEFAULT_SIGNALS = (signal.SIGINT, signal.SIGPIPE)  # ignored by the fork server: not by the PID 1 it spawns


def prepare() -> None:
    """What would otherwise be made anew in every child, made once in the zygote before it forks: the seccomp
    profile's BPF program (``seccomp.program``), which each runner then only installs; the files of the modules
    loaded, which the runner's watch does not count (``refusals.remember_loaded``)."""
    from autograder.runner import refusals

    if seccomp.available():
        seccomp.program()
    refusals.remember_loaded()


def fork_run(
    cfg: dict, fds: list[int], zygote_fds: list[int], rng_state: bytes, own_pid_ns: int | None, part=None
) -> tuple[int, int | None]:
    """Start one run; returns (its PID 1, which the grader kills to end the run, and the runner's pid when the
    caller must report the runner's exit on the status pipe, ``fds[4]``, else None). The caller (the zygote)
    stays in its own PID namespace, which `own_pid_ns` (a descriptor of its ``/proc/self/ns/pid``) names.

    With namespaces the run's PID 1 is a small process (``_spawn_init``) and the runner a fork of the caller born
    in its PID namespace (``_namespaced_runner``): one zygote-sized fork and exit a run, not two. Without
    them PID 1 is a fork of the caller that reaps the runner's orphans and reports its exit (``start_child``).
    Neither child returns. `part`: (digest, the decoded part every job of the run's plan holds), which the fork
    server decoded once for all its runs of that plan (``become_runner``), or None."""
    if cfg["mode"] != "namespaces":
        pid = os.fork()
        if pid == 0:
            start_child(cfg, fds, zygote_fds, rng_state, part)  # never returns
        return pid, None
    rootfs.pid_namespace_for_children()  # the next child is PID 1 of a new namespace, the one after joins it
    init = runner = None
    try:
        init = _spawn_init(cfg)
        runner = os.fork()
        if runner == 0:
            _namespaced_runner(cfg, fds, zygote_fds, rng_state, part)  # never returns
    except BaseException:
        for pid in (init, runner):  # reaped by the caller's next reap
            if pid:
                os.kill(pid, signal.SIGKILL)
        raise
    finally:
        if runner != 0:
            _back_to(own_pid_ns, init, runner)
    return init, runner


def _back_to(own_pid_ns: int | None, *pids: int | None) -> None:
    """Back onto the fork server's own PID namespace for its next children; where that fails, the run's
    processes (`pids`) are killed and it stops serving: every later child would be born in this run's namespace."""
    try:
        rootfs.own_pid_namespace_for_children(own_pid_ns)
    except OSError as exc:
        for pid in pids:
            if pid:
                os.kill(pid, signal.SIGKILL)
        raise RuntimeError(f"the fork server could not go back to its own PID namespace: {exc}") from None


def _spawn_init(cfg: dict) -> int:
    """The run's PID 1 when it has namespaces: ``sleep``, spawned (vfork and exec: none of the caller's page
    tables copied) into the new PID namespace, in a session of its own, with nothing of the caller's open but
    /dev/null. It holds the namespace until the grader kills it through a pidfd (every process left in the
    namespace dies with it), or until the fork server dies (``setpriv --pdeathsig``, where util-linux has it), or
    at the latest after twice the run's wall time and a minute (the grader's limit kills it long before). It
    reaps nothing: an orphan of the runner stays a zombie, counted against the run's process limit, until the
    run ends. Root's, so the runner's /proc (``hidepid``) does not show it."""
    if _SLEEP is None:
        raise OSError("no `sleep` (coreutils) on the fork server's PATH: a run with namespaces needs it as PID 1")
    wall = float(cfg["env"].get(RUN_SECONDS_ENV, 600))
    argv = [_SLEEP, f"{int(2 * wall) + 60}"]
    if _SETPRIV:
        argv = [_SETPRIV, "--pdeathsig", "KILL", *argv]
    null = [(os.POSIX_SPAWN_OPEN, fd, "/dev/null", os.O_RDWR, 0) for fd in (0, 1, 2)]
    return os.posix_spawn(argv[0], argv, {}, file_actions=null, setsid=True, setsigdef=_DEFAULT_SIGNALS)


def _namespaced_runner(cfg: dict, fds: list[int], zygote_fds: list[int], rng_state: bytes, part=None) -> None:
    """The runner of a run with namespaces, PID 2 of its PID namespace: what PID 1 did in the other modes (the
    cgroup, a session, the other namespaces, the private root), then ``_runner``'s steps. Never returns."""
    try:
        for fd in zygote_fds:
            os.close(fd)
        job_r, out_w, err_w, ev_w, st_w = fds
        os.close(st_w)  # the fork server reports how this process ended
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # with the zygote (set again after the uid drop)
        os.setsid()
        if cfg.get("cgroup_procs"):
            rootfs.join_cgroup(cfg["cgroup_procs"])
        rootfs.unshare(rootfs.RUNNER_NAMESPACE_FLAGS)
        rootfs.build_root(cfg, hide_others=True)
        _runner(cfg, (job_r, out_w, err_w, ev_w), rng_state, new_session=False, part=part)  # ends the process
    except BaseException as exc:  # noqa: BLE001 - say why on the zygote's stderr (the grader's log), then die
        os.write(2, f"sandbox child: {type(exc).__name__}: {exc}\n".encode())
    os._exit(120)  # never back into the fork server's code


def start_child(cfg: dict, fds: list[int], zygote_fds: list[int], rng_state: bytes, part=None) -> None:
    """The zygote's child without namespaces, the run's PID 1: never returns."""
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
        _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans come back to us rather than to the host's init
        pid = os.fork()
        if pid == 0:
            _runner(cfg, (job_r, out_w, err_w, ev_w), rng_state, part=part)
        rootfs.close_fds_except({st_w})
        reap_until(pid, st_w)
    except BaseException as exc:  # noqa: BLE001 - say why on the zygote's stderr, then die
        os.write(2, f"sandbox child: {type(exc).__name__}: {exc}\n".encode())
    os._exit(120)


def _runner(cfg: dict, fds: tuple[int, ...], rng_state: bytes, *, new_session: bool = True, part=None) -> None:
    try:
        moved = [os.dup(fd) for fd in fds]  # then onto 0, 1, 2, 3 without clobbering one another
        for target, fd in enumerate(moved):
            os.dup2(fd, target)
        rootfs.close_fds_except({0, 1, 2, EVIDENCE_FD})
        if new_session:
            os.setsid()
        namespaces = cfg["mode"] == "namespaces"
        if namespaces:
            rootfs.enter_root(cfg["root_mount"])
        os.chdir(cfg["cwd"])
        rootfs.set_limits(cfg["rlimits"])
        if cfg["mode"] != "rlimits":
            rootfs.drop_privileges(cfg["uid"], cfg["gid"])
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # dies with its parent; after the uid change
        rootfs.restrict_syscalls()
        env = cfg["env"]
        cfg.clear()  # the one dict every frame below holds: the submission finds nothing of the run's set-up
    except BaseException as exc:  # noqa: BLE001
        os.write(2, f"sandbox: could not start the runner: {exc}\n".encode())
        os._exit(121)
    os._exit(become_runner(env, rng_state, part))


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


def become_runner(env: dict, rng_state: bytes, part=None) -> int:
    """Run ``autograder.runner`` in this process, with the environment `env`, as a fresh
    ``python -I -m autograder.runner 3`` would; `part`: (digest, record), the part every job of the run's plan
    holds, which a job that names it leaves out (``runner.main``)."""
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
        code = runner.main([str(EVIDENCE_FD)], part=part)
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
