"""Trusted: a run's pipes: drain one in a thread, keeping only a capped head and tail of what went through, and
read a bounded amount of it at most; write one whole (``write_all``: a run's configuration, its job).

What a submission writes costs the grader's process the copying of every byte it reads (a 15 s flood of
stdout, stderr and the evidence pipe cost it ~10 CPU-s, outside the submission's cgroup). So each pipe is
read up to a bound (``most``): stdout and stderr up to ``READ_PAST_CAP`` past what is kept (a chatty but honest
run still finishes as before), the evidence pipe up to one byte past its cap (that byte says it overflowed).
Past the bound the grader closes its end: a writer that goes on gets EPIPE (in Python, BrokenPipeError), which
costs the submission only, within its own limits.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

__all__ = ["Capture", "READ_PAST_CAP", "write_all"]

READ_PAST_CAP = 8 << 20  # what of stdout or stderr is read beyond the kept head and tail (~100,000 lines)


class Capture(threading.Thread):
    """Drain a pipe to EOF, or to `most` bytes; keep head and tail up to `cap` bytes (`keep_all`: the head only,
    and `most` one byte past it unless given). `on_data`, when given, is called with every chunk as it is read,
    and the pipe is read to its end (a process of the grader's own that streams what it has to say)."""

    def __init__(
        self, fd: int, cap: int, keep_all: bool = False, most: int | None = None, on_data: Callable | None = None
    ) -> None:
        super().__init__(daemon=True)
        self.fd, self.cap, self.keep_all, self.on_data = fd, cap, keep_all, on_data
        if on_data is not None:
            most = sys.maxsize
        elif most is None:
            most = cap + 1 if keep_all else cap + READ_PAST_CAP
        self.most = max(cap, most)
        self.head, self.tail, self.total = bytearray(), bytearray(), 0
        self.refused = False  # stopped reading at `most`: the writer's later writes failed

    def run(self) -> None:
        half = self.cap // 2
        try:
            while chunk := os.read(self.fd, min(1 << 16, self.most - self.total)):
                self.total += len(chunk)
                if self.on_data is not None:
                    self.on_data(chunk)
                if len(self.head) < (self.cap if self.keep_all else half):
                    room = (self.cap if self.keep_all else half) - len(self.head)
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk and not self.keep_all:
                    self.tail += chunk
                    del self.tail[: -half or None]
                if self.total >= self.most:
                    self.refused = True
                    break
        except OSError:
            pass
        finally:
            os.close(self.fd)

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        if self.refused:
            tail += f"\n[... output past {self.most} bytes was not read ...]\n"
        if self.dropped > 0:
            return head + f"\n[... {self.dropped} bytes of output dropped ...]\n" + tail
        return head + tail


def write_all(fd: int, data: bytes) -> None:
    """Write `data` whole into the pipe `fd`, then close it. A reader that has gone (the run ended, or was killed,
    before reading it all) is no error here: how the run ended says why."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        pass
    finally:
        os.close(fd)
