"""Sandbox uids: one per live run, and what a test for leftover processes may call a stray."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
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


def test_the_sweep_reads_a_process_uid_and_state_not_a_name_made_to_look_like_them():
    from autograder.sandbox.slots import _runs_as

    uid = BASE_UID + SLOTS - 1
    forged = f"\nUid:\t{uid}\n"  # a process names itself (prctl PR_SET_NAME, 15 bytes) as if it ran as `uid`
    code = (
        f"import ctypes, sys, time; ctypes.CDLL(None).prctl(15, {forged.encode()!r}, 0, 0, 0); print(1); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"1\n"
        assert Path(f"/proc/{child.pid}/comm").read_bytes() == forged.encode()[:15] + b"\n"
        assert not _runs_as(child.pid, uid)
        assert _runs_as(child.pid, os.getuid())
    finally:
        child.kill()
        child.wait()
