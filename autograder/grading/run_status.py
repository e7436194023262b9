"""Trusted: how a run ended ("ok", "timeout", "memory", "exited", "crashed"), from what the sandbox saw of it.

An allocation failure is the one ending the sandbox cannot always see itself (an allocator that gives up raises
inside the run): it is read from the run's stderr and the errors the experiments recorded, and from the judge's
own errors (``judge.server``, ``judge.suite``), by the words allocators use (``MEMORY_MARKERS``). The status only
names how the run ended; no mark is read from it.
"""

from __future__ import annotations

__all__ = ["run_status", "MEMORY_MARKERS"]

# How an allocation failure reads in the runner's stderr or in an error the experiments recorded.
MEMORY_MARKERS = ("MemoryError", "can't allocate", "Cannot allocate memory", "bad_alloc", "out of memory")


def run_status(
    *,
    timed_out: bool,
    signal: int | None,
    exit_code: int | None,
    done: bool,
    texts: list[str],
    memory_exceeded: bool = False,
) -> str:
    """How a run ended, from what the sandbox saw and what the run wrote (stderr, recorded errors).

    Order matters: a run stopped at the time limit may also have printed a MemoryError; a CPU-time kill
    (SIGXCPU) is a timeout, not a crash; a process the kernel killed at the tree's memory cap
    (`memory_exceeded`, from the run's cgroup) is out of memory, not crashed.
    """
    import signal as signals

    if timed_out:
        return "timeout"
    if memory_exceeded or any(marker in text for text in texts for marker in MEMORY_MARKERS):
        return "memory"
    if signal == signals.SIGXCPU:
        return "timeout"
    if signal is not None:
        return "crashed"
    if not done or exit_code != 0:
        return "exited"
    return "ok"
