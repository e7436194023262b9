"""Sandbox uids: one per live run, and what a test for leftover processes may call a stray."""

from __future__ import annotations

import os
import subprocess

import pytest

from autograder.sandbox.slots import Slot, held_uids, kill_uid, stray_processes


def test_two_live_slots_never_share_a_uid_and_a_released_one_is_free_again():
    first, second = Slot(), Slot()
    try:
        assert first.uid != second.uid
        assert {first.uid, second.uid} <= held_uids()
    finally:
        first.release()
    assert first.uid not in held_uids() and second.uid in held_uids()
    second.release()


@pytest.mark.skipif(os.geteuid() != 0, reason="running a process as a sandbox uid needs root")
def test_a_process_under_a_held_uid_is_a_live_run_and_under_a_free_one_a_stray():
    slot = Slot()
    uid = slot.uid
    sleeper = ["sleep", "60"]  # a system binary: the interpreter under /root is not readable by that uid
    child = subprocess.Popen(sleeper, user=uid, group=uid, cwd="/")
    try:
        assert not [s for s in stray_processes() if f"pid {child.pid} " in s]  # its grader still holds the uid
        slot.release()
        assert [s for s in stray_processes() if f"pid {child.pid} " in s]
    finally:
        kill_uid(uid)
        child.wait(timeout=30)
