"""Sandbox uids: one per live run, and what a test for leftover processes may call a stray."""

from __future__ import annotations

import fcntl
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from autograder.sandbox.slots import BASE_UID, SLOTS, Slot, held_uids, kill_uid, stray_processes


def test_two_live_slots_never_share_a_uid_and_a_released_one_is_free_again():
    first, second = Slot(), Slot()
    try:
        assert first.uid != second.uid
        assert {first.uid, second.uid} <= held_uids()
    finally:
        first.release()
    assert second.uid in held_uids()  # (first's slot may go to a grader running beside this test at once)
    second.release()


@pytest.mark.skipif(os.geteuid() != 0, reason="running a process as a sandbox uid needs root")
def test_a_process_under_a_held_uid_is_a_live_run_and_under_a_free_one_a_stray():
    # The last slot: Slot() takes the lowest free one, so graders running beside this test never touch it.
    number = SLOTS - 1
    uid = BASE_UID + number
    folder = Path(tempfile.gettempdir()) / f"autograder-slots-{os.geteuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    sleeper = ["sleep", "60"]  # a system binary: the interpreter under /root is not readable by that uid
    child = subprocess.Popen(sleeper, user=uid, group=uid, cwd="/")
    try:
        assert [s for s in stray_processes() if f"pid {child.pid} " in s]  # nobody holds its uid
        fd = os.open(folder / f"{number}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # as a grader holds its slot for the run
            assert not [s for s in stray_processes() if f"pid {child.pid} " in s]
        finally:
            os.close(fd)
    finally:
        kill_uid(uid)
        child.wait(timeout=30)
