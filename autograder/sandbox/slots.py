"""Trusted: the unprivileged uids sandboxes run as, one per concurrent run, and the sweep of their processes."""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from pathlib import Path

from autograder.sandbox.pidfd import kill_if_member

__all__ = ["BASE_UID", "SLOTS", "SANDBOX_UIDS", "Slot", "held_uids", "kill_uid", "stray_processes"]

BASE_UID = 60000  # slot n runs as uid/gid BASE_UID + n (root only)
SLOTS = 1000
SANDBOX_UIDS = range(BASE_UID, BASE_UID + SLOTS)


class Slot:
    """A sandbox uid no other sandbox on this machine uses right now (an flock per uid, held for the run).

    Different grader processes (a batch's workers, two TAs, parallel tests) must never share a uid: the
    sweep that kills every process of the uid afterwards would kill another run's runner.
    """

    def __init__(self) -> None:
        folder = _folder()
        folder.mkdir(mode=0o700, exist_ok=True)
        for n in range(SLOTS):
            fd = os.open(folder / f"{n}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.number, self._fd = n, fd
            return
        raise RuntimeError(f"all {SLOTS} sandbox slots are busy: run fewer graders at once")

    @property
    def uid(self) -> int:
        return BASE_UID + self.number

    def release(self) -> None:
        os.close(self._fd)


def _folder() -> Path:
    return Path(tempfile.gettempdir()) / f"autograder-slots-{os.geteuid()}"


def held_uids() -> set[int]:
    """The sandbox uids some live grader holds right now: a process under any other sandbox uid outlived its
    run (what a test for leftover processes looks for while other graders run beside it)."""
    held = set()
    for n in range(SLOTS):
        try:
            fd = os.open(_folder() / f"{n}.lock", os.O_RDWR)
        except OSError:
            continue  # never used on this machine
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            held.add(BASE_UID + n)
        finally:
            os.close(fd)
    return held


def _runs_as(pid: int, uid: int) -> bool:
    """Whether `pid` is a live (not zombie) process whose real uid is `uid`.

    Read from the head of ``/proc/PID/status`` (State and Uid are among its first lines; a process's name there is
    escaped, so it cannot forge a line): a sweep reads it for every process on the machine after every run."""
    try:
        fd = os.open(f"/proc/{pid}/status", os.O_RDONLY)
        try:
            head = os.read(fd, 1024)
        finally:
            os.close(fd)
    except OSError:
        return False
    state, real = head.find(b"\nState:\t"), head.find(b"\nUid:\t")
    if state < 0 or real < 0:
        return False
    uids = head[real + 6 :].split(None, 1)
    return bool(uids) and uids[0] == b"%d" % uid and head[state + 8 : state + 9] not in (b"Z", b"X")


def kill_uid(uid: int) -> int:
    """SIGKILL every process whose real uid is `uid` (root only), until none is left; returns survivors."""
    found = False
    for _ in range(50):
        found = False
        for entry in os.listdir("/proc"):
            if entry.isdigit() and _runs_as(int(entry), uid):
                # Checked again once the process is pinned: its pid may have gone to another process since.
                found = kill_if_member(int(entry), lambda pid: _runs_as(pid, uid)) or found
        if not found:
            return 0
        time.sleep(0.01)
    return 1 if found else 0


def stray_processes(name_prefix: str = "") -> list[str]:
    """Live processes that outlived their run: under a sandbox uid (or named `name_prefix`...) that no live
    grader holds. Graders running beside the caller keep theirs: their runs are not over."""
    held, found = held_uids(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            with open(f"/proc/{entry}/status") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
            uid, state = int(fields["Uid"].split()[0]), fields["State"].strip()
        except (OSError, KeyError, ValueError):
            continue
        named = bool(name_prefix) and comm.startswith(name_prefix)
        if not state.startswith(("Z", "X")) and (named or uid in SANDBOX_UIDS):
            found.append((uid, f"pid {entry} uid {uid} {comm}"))
    held |= held_uids()  # before and after the listing: a run that started or ended meanwhile is not a stray
    return [text for uid, text in found if uid not in held]
