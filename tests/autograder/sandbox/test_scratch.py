"""The sweep of work folders a killed grader left behind."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time

import autograder.sandbox.scratch as workdirs


def test_stale_work_folders_are_removed_but_live_and_recent_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(workdirs, "_cleaned", False)
    old = time.time() - 3600
    stale, live, recent = (tmp_path / f"autograder-run-{n}" for n in ("stale", "live", "recent"))
    other = tmp_path / "someone-else-old"
    for folder in (stale, live, recent, other):
        folder.mkdir()
    for folder in (stale, live, other):
        os.utime(folder, (old, old))
    holder = subprocess.Popen(["sleep", "30"], cwd=live)  # a run still inside its folder
    try:
        removed = workdirs.clean_stale_workdirs(60)
        assert removed == [str(stale)]
        assert not stale.exists() and live.exists() and recent.exists() and other.exists()
        assert workdirs.clean_stale_workdirs(60) == []  # once per process
    finally:
        holder.kill()
        holder.wait()
