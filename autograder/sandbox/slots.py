"""Trusted: the unprivileged uids sandboxes run as, one per concurrent run, and the sweep of their processes."""

from __future__ import annotations

import fcntl
import os
import signal
import tempfile
import time
from pathlib import Path

__all__ = ["BASE_UID", "SLOTS", "SANDBOX_UIDS", "Slot", "kill_uid"]

BASE_UID = 60000  # slot n runs as uid/gid BASE_UID + n (root only)
SLOTS = 1000
SANDBOX_UIDS = range(BASE_UID, BASE_UID + SLOTS)


class Slot:
    """A sandbox uid no other sandbox on this machine uses right now (an flock per uid, held for the run).

    Different grader processes (a batch's workers, two TAs, parallel tests) must never share a uid: the
    sweep that kills every process of the uid afterwards would kill another run's runner.
    """

    def __init__(self) -> None:
        folder = Path(tempfile.gettempdir()) / f"autograder-slots-{os.geteuid()}"
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


def kill_uid(uid: int) -> int:
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
