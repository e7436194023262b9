"""Run one untrusted process tree with limits, capped output, an evidence pipe, and no survivors.

``run_sandboxed`` starts ``python -m <module> <evidence_fd>`` through ``autograder.jail`` in the strongest
isolation this machine allows (see ``probe_isolation``), feeds it ``stdin``, reads its stdout/stderr into
capped buffers and its evidence pipe into a capped byte string, enforces the wall-time limit, and kills the
whole tree afterwards.
"""
from __future__ import annotations

import fcntl
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from autograder.capture import Capture
from autograder.fsview import build_view
from autograder.workdirs import WORKDIR_PREFIX, clean_stale_workdirs

__all__ = ["Limits", "Isolation", "SandboxResult", "probe_isolation", "run_sandboxed", "parse_size"]

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
_BASE_UID = 60000  # slot n runs as uid/gid 60000 + n (root only)
_SLOTS = 1000
_ENFORCED = {
    "namespaces": ["wall time", "CPU time", "memory", "process count", "file size", "no core dumps",
                   "capped output", "no network", "whole process tree killed (PID namespace)",
                   "unprivileged uid", "of the kit only the runner's own modules, dnnlpy and the venv visible "
                   "(allow-list: suites, solutions, nbgrader course copies, gradebooks unreadable)", "kit read-only"],
    "uid": ["wall time", "CPU time", "memory", "process count", "file size", "no core dumps",
            "capped output", "unprivileged uid", "every process of that uid killed afterwards"],
    "rlimits": ["wall time", "CPU time", "memory", "file size", "no core dumps", "capped output",
                "process group killed afterwards"],
}
_NOT_ENFORCED = {
    "namespaces": [],
    "uid": ["network (no network namespace)", "no file hiding: suites, solutions and any kit file readable "
            "as far as others' permission bits allow",
            "kit writable where permission bits allow"],
    "rlimits": ["network", "unprivileged user (student code runs as you: it can read hidden suites and "
                "write your files)", "children that call setsid survive", "process cap"],
}


def parse_size(text: str | int) -> int:
    """'2GiB', '512MiB', '1500M', '2G' or a number of bytes -> bytes."""
    if isinstance(text, int):
        return text
    units = {"": 1, "B": 1, "K": KiB, "KB": KiB, "KIB": KiB, "M": MiB, "MB": MiB, "MIB": MiB,
             "G": GiB, "GB": GiB, "GIB": GiB}
    raw = str(text).strip().upper()
    number = raw.rstrip("KMGIB")
    unit = raw[len(number):]
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"memory size {text!r} is not understood: write e.g. '2GiB', '512MiB' or a byte count")
    if unit not in units or value <= 0:
        raise ValueError(f"memory size {text!r} is not understood: write e.g. '2GiB', '512MiB' or a byte count")
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
            raise ValueError(f"memory_bytes={self.memory_bytes} is below 256 MiB: torch alone needs ~650 MB; "
                             "use at least 1GiB")
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


def _symlinks() -> list[list[str]]:
    return [[top, os.readlink(top)] for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
            if os.path.islink(top)]


def _root_mount_point(binds: list[str]) -> str:
    for cand in ("/mnt", "/media", "/srv", "/opt", "/run", "/var/tmp", "/tmp"):
        if os.path.isdir(cand) and not any(b == cand or b.startswith(cand + "/") for b in binds):
            return cand
    raise RuntimeError("no directory is free to build the sandbox's root on; tried /mnt, /media, /srv, ...")


def _runner_env(home: str) -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home,
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}


def _rlimits(limits: Limits, mode: str) -> dict[str, int]:
    out = {"RLIMIT_AS": limits.memory_bytes, "RLIMIT_CPU": limits.cpu_seconds,
           "RLIMIT_FSIZE": limits.max_file_bytes, "RLIMIT_CORE": 0}
    if mode != "rlimits":  # as ourselves, RLIMIT_NPROC would count every process we own
        out["RLIMIT_NPROC"] = limits.max_processes
    return out


def _kill_uid(uid: int) -> int:
    """SIGKILL every process whose real uid is `uid` (root only), until none is left; returns survivors."""
    found = False
    for _ in range(50):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status") as fh:
                    fields = dict(line.split(":", 1) for line in fh if ":" in line)
                if int(fields["Uid"].split()[0]) == uid and not fields["State"].strip().startswith(("Z", "X")):
                    os.kill(int(entry), signal.SIGKILL)
                    found = True
            except (OSError, KeyError, IndexError, ValueError):
                continue
        if not found:
            return 0
        time.sleep(0.01)
    return 1 if found else 0


def _command(mode: str, module: str, limits: Limits, slot: int, hides: list[str],
             evidence_fd: int, status_fd: int, workdir: str, modules: tuple[str, ...] = ()) -> list[str]:
    import json
    python = sys.executable
    runner_argv = [python, "-I", "-B", "-m", module, str(evidence_fd)]
    cfg = {"mode": mode, "uid": _BASE_UID + slot, "gid": _BASE_UID + slot, "rlimits": _rlimits(limits, mode),
           "argv": runner_argv, "evidence_fd": evidence_fd, "status_fd": status_fd,
           "env": _runner_env("/tmp" if mode == "namespaces" else workdir),
           "cwd": "/tmp" if mode == "namespaces" else workdir}
    jail = [python, "-I", "-B", "-m", "autograder.jail"]
    if mode != "namespaces":
        return jail + [json.dumps(cfg)]
    view = build_view((module, *modules), hides)
    cfg.update(view, symlinks=_symlinks(), root_mount=_root_mount_point(view["binds"] + view["kit_binds"]), tmp_bytes=256 * MiB)
    unshare = shutil.which("unshare") or "unshare"
    # If the grader dies (Ctrl-C in a batch, OOM), unshare gets SIGKILL and takes the namespace with it.
    setpriv = shutil.which("setpriv")
    orphan_guard = [setpriv, "--pdeathsig", "KILL"] if setpriv else []
    return orphan_guard + [unshare, "--net", "--pid", "--fork", "--kill-child", "--mount", "--ipc", "--uts",
            "--propagation", "private"] + jail + [json.dumps(cfg)]


class _Slot:
    """A sandbox uid no other sandbox on this machine uses right now (an flock per uid, held for the run).

    Different grader processes (a batch's workers, two TAs, parallel tests) must never share a uid: the
    sweep that kills every process of the uid afterwards would kill another run's runner.
    """

    def __init__(self) -> None:
        folder = Path(tempfile.gettempdir()) / f"autograder-slots-{os.geteuid()}"
        folder.mkdir(mode=0o700, exist_ok=True)
        for n in range(_SLOTS):
            fd = os.open(folder / f"{n}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.number, self._fd = n, fd
            return
        raise RuntimeError(f"all {_SLOTS} sandbox slots are busy: run fewer graders at once")

    def release(self) -> None:
        os.close(self._fd)


def run_sandboxed(*, module: str, stdin: bytes | Callable[[], bytes], limits: Limits,
                  hidden_paths: tuple[str, ...] = (), mode: str | None = None,
                  modules: tuple[str, ...] = ()) -> SandboxResult:
    """Run ``python -m module <evidence_fd>`` sandboxed; see the module docstring.

    With namespaces, the runner sees of the kit only `module`, the other kit `modules` it imports (each one's
    file and its packages' ``__init__.py``), ``dnnlpy`` and the venv (see ``autograder.fsview``); the
    `hidden_paths` are covered even there. The weaker modes cannot hide files at all (see ``not_enforced``).

    `stdin` may be a function: it is then called (in a thread) once the process has started, so that
    preparing the input overlaps the sandbox's start-up (e.g. its ``import torch``). If it raises, the
    run is abandoned and the exception re-raised here.
    """
    clean_stale_workdirs(limits.wall_seconds, sandbox_uids=range(_BASE_UID, _BASE_UID + _SLOTS))
    isolation = probe_isolation() if mode is None else _isolation(mode)
    slot = _Slot()
    try:
        return _run(module, stdin, limits, hidden_paths, isolation, slot.number, modules)
    finally:
        slot.release()


def _run(module: str, stdin: bytes | Callable[[], bytes], limits: Limits, hidden_paths: tuple[str, ...],
         isolation: Isolation, slot: int, modules: tuple[str, ...] = ()) -> SandboxResult:
    mode = isolation.mode
    if mode != "rlimits":
        _kill_uid(_BASE_UID + slot)  # leftovers of a grader that died mid-run
    ev_r, ev_w = os.pipe()
    st_r, st_w = os.pipe()
    workdir = tempfile.mkdtemp(prefix=WORKDIR_PREFIX)
    if mode == "uid":
        os.chown(workdir, _BASE_UID + slot, _BASE_UID + slot)
    hides = [os.path.realpath(p) for p in hidden_paths if os.path.exists(p)]
    argv = _command(mode, module, limits, slot, hides, ev_w, st_w, workdir, modules)
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            pass_fds=(ev_w, st_w), start_new_session=True, cwd=workdir, env=_runner_env(workdir))
    os.close(ev_w)
    os.close(st_w)
    readers = [Capture(os.dup(proc.stdout.fileno()), limits.capture_bytes),
               Capture(os.dup(proc.stderr.fileno()), limits.capture_bytes),
               Capture(ev_r, limits.evidence_bytes, keep_all=True),
               Capture(st_r, 64, keep_all=True)]
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
    survivors = _kill_tree(proc, mode, slot)
    feeder.join()  # the job is built or has failed: either way the caller needs to know
    if feed_error:
        shutil.rmtree(workdir, ignore_errors=True)
        raise feed_error[0]
    notes: list[str] = ["processes survived the kill"] if survivors else []
    for reader in readers:
        reader.join(timeout=2.0)
        if reader.is_alive():
            notes.append("a process outside the sandbox's reach kept an output pipe open")
    exit_code, sig = _exit_status(proc, mode, readers[3])
    shutil.rmtree(workdir, ignore_errors=True)
    out, err, ev = readers[0], readers[1], readers[2]
    for name, cap in (("stdout", out), ("stderr", err)):
        if cap.dropped > 0:
            notes.append(f"{cap.dropped} bytes of {name} dropped (cap {limits.capture_bytes} bytes)")
    return SandboxResult(exit_code=exit_code, signal=sig, timed_out=timed_out, wall_seconds=round(wall, 3),
                         stdout=out.text(), stderr=err.text(), evidence=bytes(ev.head),
                         evidence_overflow=ev.total > limits.evidence_bytes, isolation=isolation, notes=notes)


def _feed(proc: subprocess.Popen, data: bytes | Callable[[], bytes], errors: list[BaseException]) -> None:
    try:
        payload = data() if callable(data) else data
    except BaseException as exc:  # noqa: BLE001 - handed to the caller; the run is abandoned
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


def _kill_tree(proc: subprocess.Popen, mode: str, slot: int) -> int:
    # namespaces: killing unshare SIGKILLs the namespace's PID 1 (--kill-child), and with it every process
    # in the namespace; the process group and the uid sweep catch the rest in the weaker modes.
    for target in (lambda: os.killpg(proc.pid, signal.SIGKILL), lambda: proc.kill()):
        try:
            target()
        except (ProcessLookupError, PermissionError, OSError):
            pass
    proc.wait()
    if mode != "rlimits":
        return _kill_uid(_BASE_UID + slot)
    try:  # is anything left in the process group? (children that called setsid cannot be seen here)
        os.killpg(proc.pid, 0)
        return 1
    except OSError:
        return 0


def _exit_status(proc: subprocess.Popen, mode: str, status: Capture) -> tuple[int | None, int | None]:
    if mode != "namespaces":
        code = proc.returncode
        return (None, -code) if code < 0 else (code, None)
    words = bytes(status.head).decode(errors="replace").split()
    if len(words) == 2 and words[1].lstrip("-").isdigit():
        return (int(words[1]), None) if words[0] == "exit" else (None, int(words[1]))
    return None, signal.SIGKILL  # PID 1 itself was killed: we did it (time limit)


def _isolation(mode: str) -> Isolation:
    return Isolation(mode, tuple(_ENFORCED[mode]), tuple(_NOT_ENFORCED[mode]))


@functools.lru_cache(maxsize=None)
def probe_isolation() -> Isolation:
    """The strongest mode that runs a trivial Python here: namespaces, then uid, then rlimits."""
    if os.environ.get("AUTOGRADER_SANDBOX_MODE") in _ENFORCED:  # for tests of the weaker modes
        return _isolation(os.environ["AUTOGRADER_SANDBOX_MODE"])
    candidates = ["namespaces", "uid"] if os.geteuid() == 0 else []
    for mode in candidates:
        try:
            result = run_sandboxed(module="autograder.probe", stdin=b"", mode=mode,
                                   limits=Limits(wall_seconds=20, max_processes=64))
        except (OSError, RuntimeError):
            continue
        if result.exit_code == 0 and result.evidence == b"ok":
            return _isolation(mode)
    return _isolation("rlimits")
