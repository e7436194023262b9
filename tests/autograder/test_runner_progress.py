"""The runner's watchdog: a cell or a check that runs for long is reported once, and never after stop()."""

from __future__ import annotations

import threading
import time

from autograder.runner.__main__ import Progress


def _wait_for(frames: list, n: int) -> None:
    deadline = time.monotonic() + 30  # a bound for a loaded machine, not a speed check
    while len(frames) < n and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_slow_step_is_reported_once_and_a_quick_one_never():
    frames: list[tuple[str, dict]] = []
    lock = threading.Lock()

    def emit(name, record):
        with lock:
            frames.append((name, record))

    progress = Progress(emit, slow=0.2, poll=0.01)
    progress.cell(4)
    _wait_for(frames, 1)
    time.sleep(0.3)  # still cell 4: no second report of it
    progress.check("gpt_generate")
    _wait_for(frames, 2)
    progress.stop()
    progress.cell(9)
    time.sleep(0.5)
    assert frames == [
        ("__running__0", {"cell": 4, "check": ""}),
        ("__running__1", {"cell": -1, "check": "gpt_generate"}),
    ]
