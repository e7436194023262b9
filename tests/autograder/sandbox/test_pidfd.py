"""Killing from a list of pids: only a process that is still a member is signalled, whatever the list said."""

from __future__ import annotations

import subprocess

import pytest

from autograder.sandbox import probe_isolation, slots
from autograder.sandbox.cgroups import cgroup_support
from autograder.sandbox.pidfd import kill_if_member


@pytest.fixture
def bystander():
    """A process that is not part of any run (here: stands for one that took a run's freed pid)."""
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_process_is_signalled_only_while_it_is_a_member(bystander):
    assert kill_if_member(bystander.pid, lambda pid: False) is False
    assert bystander.poll() is None  # still running
    assert kill_if_member(bystander.pid, lambda pid: pid == bystander.pid) is True
    assert bystander.wait(timeout=10) == -9
    assert kill_if_member(bystander.pid, lambda pid: True) is False  # reaped: nothing to signal


@pytest.mark.skipif(
    probe_isolation().mode == "rlimits" or cgroup_support() is None, reason="needs root and cgroup controllers"
)
def test_a_stale_listing_of_a_run_group_never_kills_a_process_outside_it(bystander):
    group = cgroup_support().run_group(memory_bytes=1 << 30, max_processes=16, cpus=1.0)
    listings = iter([[bystander.pid]])  # the first read lists a pid that is not in the group (any more)
    group.pids = lambda: next(listings, [])
    try:
        assert group.kill(patience=2.0) == 0
    finally:
        del group.pids
        group.remove()
    assert bystander.poll() is None


def test_a_stale_proc_walk_never_kills_a_process_that_changed_hands(bystander, monkeypatch):
    seen = []

    def runs_as(pid: int, uid: int) -> bool:  # the walk sees the bystander as a sandbox process, once
        seen.append(pid)
        return pid == bystander.pid and seen.count(pid) == 1

    monkeypatch.setattr(slots, "_runs_as", runs_as)
    assert slots.kill_uid(slots.BASE_UID + slots.SLOTS - 1) == 0
    assert seen.count(bystander.pid) == 2  # listed, then checked again once pinned
    assert bystander.poll() is None
