"""Trusted: fold a warm process's anonymous memory into transparent huge pages before it starts forking.

A fork copies one page-table entry for every 4 KiB page of anonymous memory the parent maps, and the fork's
exit drops them again. A warm zygote maps ~170 MiB of it (torch, dnnlpy, the runner, matplotlib): ~45,000
entries copied and dropped by each of a sandboxed run's forks (the zygote's and two more) and three exits. The
same memory in 2 MiB pages is ~90 entries. A child that writes into such a page has that one entry split back
into 4 KiB ones and copies the 4 KiB page it wrote, as it did before.

The template folds torch's memory before it forks the zygotes and judges, so what they never write stays one
copy; a zygote folds again once warm, and each 2 MiB stretch it wrote to becomes its own (~130 of its 235 MiB,
against ~50 unfolded): the price of cheaper runs, paid once per worker.

``MADV_COLLAPSE`` (Linux 6.1) asks for the fold synchronously, whatever the system's THP setting short of
"never". It is a request, not a change of meaning: the memory holds the same bytes either way, so where the
kernel refuses (an older kernel, THP off, no huge page free) nothing else changes.
"""

from __future__ import annotations

import ctypes
import errno

__all__ = ["fold_anonymous_memory", "huge_bytes", "PAYS_BACK_FROM"]

_MADV_COLLAPSE = 25
_HUGE = 2 << 20
# Runs a worker's zygote must fork before its fold (and its share of the template's) has paid for itself, even on a
# machine whose memory is cold: a fold costs ~50 ms of CPU on memory the machine has used before, up to ~0.5 s the
# first time after a virtual machine boots (its host backs each new page then); each run saves ~15-20 ms. A batch
# of at least this many runs a worker folds (``grading.executors.grade_batch``).
PAYS_BACK_FROM = 32


def _anonymous_ranges(maps: str = "/proc/self/maps") -> list[tuple[int, int]]:
    """[start, end) of each private writable mapping backed by no file (the heap, arenas, a library's .bss)."""
    out = []
    with open(maps, encoding="ascii", errors="replace") as fh:
        for line in fh:
            fields = line.split()
            path = fields[5] if len(fields) > 5 else ""
            if fields[1].startswith("rw") and fields[1].endswith("p") and path in ("", "[heap]"):
                lo, _, hi = fields[0].partition("-")
                out.append((int(lo, 16), int(hi, 16)))
    return out


def fold_anonymous_memory() -> int:
    """Ask the kernel to fold every 2 MiB-aligned stretch of this process's anonymous memory into a huge page;
    returns how many bytes it folded (0 where the kernel cannot: see the module docstring). Once per warm
    process: ~50 ms of CPU for a zygote's ~140 MiB."""
    libc = ctypes.CDLL(None, use_errno=True)
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    try:
        ranges = _anonymous_ranges()
    except OSError:  # no /proc to read: nothing is asked, nothing changes
        return 0
    folded = 0
    for lo, hi in ranges:
        start, end = -(-lo // _HUGE) * _HUGE, hi // _HUGE * _HUGE
        # One 2 MiB stretch at a time: a refused one (a page locked or in use elsewhere) leaves the rest folded.
        for at in range(start, end, _HUGE):
            if madvise(at, _HUGE, _MADV_COLLAPSE) == 0:
                folded += _HUGE
            elif ctypes.get_errno() in (errno.EINVAL, errno.EPERM, errno.ENOSYS):
                break  # this mapping cannot be folded (or this kernel folds nothing on request): the next one
    return folded


def huge_bytes(pid: int | str = "self") -> int:
    """Anonymous memory of `pid` mapped in huge pages (``AnonHugePages``), in bytes; 0 where the kernel does not
    say (no ``smaps_rollup``: Linux < 4.14)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("AnonHugePages:"):
                    return int(line.split()[1]) * 1024
    except FileNotFoundError:
        pass
    return 0
