"""What the sandbox's lifetime tests share (both paths: ``test_launch``, ``test_warm_lifetime``): the processes named
a token, and a grader killed while its run's payload, named that token, sleeps."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def processes_named(token: str) -> list[int]:
    """The live processes whose name (``/proc/PID/comm``) is `token`."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/comm") as fh:
                if fh.read().strip() == token:
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def left_after_killing(grader: Path, token: str, *, start_seconds: float, end_seconds: float, cwd=None) -> list[int]:
    """Run the script `grader` (one sandboxed run whose payload names itself `token`, then sleeps), kill it once the
    payload runs (AssertionError if it never starts within `start_seconds`), and return the processes still named
    `token` after up to `end_seconds`."""
    proc = subprocess.Popen([sys.executable, str(grader)], cwd=cwd)
    try:
        for _ in range(round(start_seconds * 10)):  # wait until the payload runs
            if processes_named(token):
                break
            time.sleep(0.1)
        assert processes_named(token), "the payload never started"
    finally:
        proc.kill()
        proc.wait()
    for _ in range(round(end_seconds * 10)):
        if not processes_named(token):
            break
        time.sleep(0.1)
    return processes_named(token)
