"""Trusted: run one untrusted process tree with limits, capped output, an evidence pipe, and no survivors.

``run_sandboxed`` starts ``python -m <module> <evidence_fd>`` through ``autograder.sandbox.jail`` in the
strongest isolation this machine allows (see ``probe_isolation``), feeds it ``stdin``, reads its
stdout/stderr into capped buffers and its evidence pipe into a capped byte string, enforces the wall-time
limit, and kills the whole tree afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from autograder.sandbox.capture import Capture, write_all
from autograder.sandbox.cgroups import RunCgroup
from autograder.sandbox.config import jail_config, runner_env
from autograder.sandbox.limits import MODES, Isolation, Limits, isolation_for
from autograder.sandbox.runs import RUNNER_PACKAGES, SandboxResult, finish_run, run_cgroup
from autograder.sandbox.scratch import WORKDIR_PREFIX, clean_stale_workdirs
from autograder.sandbox.slots import SANDBOX_UIDS, Slot, kill_uid
from autograder.sandbox.view import build_view

__all__ = ["run_sandboxed", "probe_isolation", "SandboxUnavailable"]


def _command(mode: str, cfg_fd: int, network: bool) -> list[str]:
    jail = [sys.executable, "-I", "-B", "-m", "autograder.sandbox.jail", str(cfg_fd)]
    if mode != "namespaces":
        return jail
    unshare = shutil.which("unshare") or "unshare"
    # If the grader dies (Ctrl-C in a batch, OOM), unshare gets SIGKILL and takes the namespace with it.
    setpriv = shutil.which("setpriv")
    orphan_guard = [setpriv, "--pdeathsig", "KILL"] if setpriv else []
    namespaces = ["--pid", "--fork", "--kill-child", "--mount", "--ipc", "--uts", "--propagation", "private"]
    return [*orphan_guard, unshare, *([] if network else ["--net"]), *namespaces, *jail]


def run_sandboxed(
    *,
    module: str,
    stdin: bytes | Callable[[], bytes],
    limits: Limits,
    packages: tuple[str, ...] = (),
    hidden_paths: tuple[str, ...] = (),
    mode: str | None = None,
    library: str | None = None,
    network: bool = False,
    on_evidence: Callable[[bytes], None] | None = None,
) -> SandboxResult:
    """Run ``python -m module <evidence_fd>`` sandboxed; see the module docstring.

    With namespaces, the runner sees of the kit only ``RUNNER_PACKAGES``, the other `packages` it imports
    (each one's folder whole, and its parents' ``__init__.py``), ``dnnlpy`` and the venv (see
    ``autograder.sandbox.view``); the `hidden_paths` are covered even there. The weaker modes cannot hide
    files at all (see ``not_enforced``). `library`: the folder of the grader's copy of dnnlpy
    (``library.library_copy``), which the runner imports, and the view shows, instead of the real one.

    For the grader's own processes that are given the network (`network`: the host's network namespace, and
    sockets of any family; the dask client, ``pool.dask_relay``): `on_evidence` is called with each chunk of
    the evidence pipe as it arrives (in a thread), and that pipe is read to its end, however long.

    `stdin` may be a function: it is then called (in a thread) once the process has started, so that
    preparing the input overlaps the sandbox's start-up (e.g. its ``import torch``). If it raises, the
    run is abandoned and the exception re-raised here.

    The steps in order, each in the module that owns it: stale work folders swept (``scratch``), the isolation
    (``probe_isolation``), a sandbox uid (``slots``), the run's cgroup (``runs``), what it may see (``view``), its
    configuration (``config``); then ``_watch`` starts it and ``runs.finish_run`` ends it.
    """
    clean_stale_workdirs(limits.wall_seconds, sandbox_uids=SANDBOX_UIDS)
    isolation = probe_isolation() if mode is None else isolation_for(mode)
    slot = Slot()
    try:
        if isolation.mode != "rlimits":
            kill_uid(slot.uid)  # leftovers of a grader that died mid-run
        workdir = tempfile.mkdtemp(prefix=WORKDIR_PREFIX)
        if isolation.mode == "uid":
            os.chown(workdir, slot.uid, slot.uid)
        hides = [os.path.realpath(p) for p in hidden_paths if os.path.exists(p)]
        group, isolation = run_cgroup(limits, isolation)
        try:
            namespaces = isolation.mode == "namespaces"
            view = build_view((*RUNNER_PACKAGES, *packages), hides, library) if namespaces else None
            (ev_r, ev_w), (st_r, st_w), cfg_pipe = os.pipe(), os.pipe(), os.pipe()
            cfg = jail_config(
                mode=isolation.mode,
                limits=limits,
                uid=slot.uid,
                workdir=workdir,
                view=view,
                module=module,
                evidence_fd=ev_w,
                status_fd=st_w,
                cgroup_procs=group.procs_files if group else None,
                library=library,
                network=network,
            )
            run = _Run(cfg, cfg_pipe, (ev_r, ev_w, st_r, st_w), workdir, group, isolation, slot.uid)
            return _watch(run, stdin, limits, network, on_evidence)
        finally:
            if group is not None:
                group.remove()
            shutil.rmtree(workdir, ignore_errors=True)
    finally:
        slot.release()


@dataclass(frozen=True)
class _Run:
    """A fresh run as prepared, before its jail starts."""

    cfg: dict  # the jail's configuration (``config.jail_config``), sent on `cfg_pipe`
    cfg_pipe: tuple[int, int]
    pipes: tuple[int, int, int, int]  # evidence (read, write), PID 1's status (read, write)
    workdir: str
    group: RunCgroup | None
    isolation: Isolation
    uid: int


def _watch(run: _Run, stdin, limits: Limits, network: bool, on_evidence) -> SandboxResult:
    """Start the jail, hand it its configuration, feed it `stdin`, drain its pipes, and kill its tree when it ends
    or at the time limit."""
    mode = run.isolation.mode
    (cfg_r, cfg_w), (ev_r, ev_w, st_r, st_w) = run.cfg_pipe, run.pipes
    argv = _command(mode, cfg_r, network)
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(ev_w, st_w, cfg_r),
        start_new_session=True,
        cwd=run.workdir,
        env=runner_env(run.workdir),
    )
    for fd in (ev_w, st_w, cfg_r):
        os.close(fd)
    write_all(cfg_w, json.dumps(run.cfg).encode())  # small (a few KiB): fits the pipe, never blocks for long
    readers = [
        Capture(os.dup(proc.stdout.fileno()), limits.capture_bytes),
        Capture(os.dup(proc.stderr.fileno()), limits.capture_bytes),
        Capture(ev_r, limits.evidence_bytes, keep_all=True, on_data=on_evidence),
        Capture(st_r, 64, keep_all=True),
    ]
    proc.stdout.close()
    proc.stderr.close()
    for reader in readers:
        reader.start()
    feed_error: list[BaseException] = []
    feeder = threading.Thread(target=_feed, args=(proc, stdin, feed_error), daemon=True)
    feeder.start()
    timed_out = False
    try:
        proc.wait(timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    wall = time.monotonic() - start
    # namespaces: killing unshare SIGKILLs the namespace's PID 1 (--kill-child), and with it every process
    # in the namespace; the process group, the cgroup and the uid sweep catch the rest in the weaker modes.
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    proc.wait()
    left = run.group.kill() if run.group is not None else 0
    if mode != "rlimits":
        left += kill_uid(run.uid)
    else:  # is anything left in the process group? (children that called setsid cannot be seen here)
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, 0)
            left += 1
    return finish_run(
        readers,
        limits,
        group=run.group,
        feeder=feeder,
        feed_error=feed_error,
        returncode=None if mode == "namespaces" else proc.returncode,  # else the jail became the runner (exec)
        timed_out=timed_out,
        wall=wall,
        isolation=run.isolation,
        survivors=left,
    )


def _feed(proc: subprocess.Popen, data: bytes | Callable[[], bytes], errors: list[BaseException]) -> None:
    try:
        payload = data() if callable(data) else data
    except BaseException as exc:  # handed to the caller; the run is abandoned
        errors.append(exc)
        _kill_quietly(proc)
        return
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def _kill_quietly(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


_PROBE_LIMITS = Limits(wall_seconds=20, max_processes=64)  # a trivial run's: it only has to start


class SandboxUnavailable(RuntimeError):
    """As root, neither strong mode starts: grading would run student code as root, so nothing is graded."""


@functools.cache
def probe_isolation() -> Isolation:
    """The strongest mode that runs a trivial Python here: namespaces, then uid; rlimits when not root.

    As root a failure of both strong modes is an error (``SandboxUnavailable``), never a quiet fall back to
    rlimits: student code would then run as root, able to read the hidden suites and write the kit (a kit
    run with another checkout's venv did exactly that). ``AUTOGRADER_SANDBOX_MODE=rlimits`` asks for it.
    """
    forced = os.environ.get("AUTOGRADER_SANDBOX_MODE")
    if forced in MODES:  # for tests of the weaker modes, and an instructor who accepts no isolation
        return isolation_for(forced)
    if os.geteuid() != 0:
        return isolation_for("rlimits")
    why = []
    for mode in ("namespaces", "uid"):
        try:
            result = run_sandboxed(
                module="autograder.runner.probe",
                stdin=b"",
                mode=mode,
                limits=_PROBE_LIMITS,
            )
        except (OSError, RuntimeError) as exc:
            why.append(f"{mode}: {type(exc).__name__}: {exc}")
            continue
        if result.exit_code == 0 and result.evidence == b"ok":
            return isolation_for(mode)
        last = (result.stderr.strip().splitlines() or [f"exit {result.exit_code}, signal {result.signal}"])[-1]
        why.append(f"{mode}: {last[:300]}")
    raise SandboxUnavailable(
        "running as root, the grader runs student code only in its sandbox, and the sandbox does not start here ("
        + "; ".join(why)
        + "). Run the kit with its own environment (`bash scripts/setup.sh` in the kit's folder, then its"
        " .venv/bin/python), with util-linux's unshare installed. To grade without any isolation anyway (student"
        " code then runs as root: it can read the hidden suites and write your files), set"
        " AUTOGRADER_SANDBOX_MODE=rlimits."
    )
