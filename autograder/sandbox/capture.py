"""Trusted: a run's pipes: drain one in a thread (``Capture``), or several in one loop (``drain``), keeping only a
capped head and tail of what went through, and read a bounded amount of it at most; write one whole
(``write_all``: a run's configuration, its job).

What a submission writes costs the grader's process the copying of every byte it reads (a 15 s flood of
stdout, stderr and the evidence pipe cost it ~10 CPU-s, outside the submission's cgroup). So each pipe is
read up to a bound (``most``): stdout and stderr up to ``READ_PAST_CAP`` past what is kept (a chatty but honest
run still finishes as before), the evidence pipe up to one byte past its cap (that byte says it overflowed).
Past the bound the grader closes its end: a writer that goes on gets EPIPE (in Python, BrokenPipeError), which
costs the submission only, within its own limits.
"""

from __future__ import annotations

import os
import select
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["Sink", "Capture", "drain", "READ_PAST_CAP", "write_all"]

READ_PAST_CAP = 8 << 20  # what of stdout or stderr is read beyond the kept head and tail (~100,000 lines)


class Sink:
    """What is kept of one pipe: head and tail up to `cap` bytes (`keep_all`: the head only, and `most` one byte
    past it unless given), read to its end or to `most` bytes, then closed. `on_data`, when given, is called with
    every chunk as it is read, and the pipe is read to its end (a process of the grader's own that streams what it
    has to say). Read by a ``Capture`` thread, or with other pipes in one loop (``drain``)."""

    def __init__(
        self, fd: int, cap: int, keep_all: bool = False, most: int | None = None, on_data: Callable | None = None
    ) -> None:
        self.fd, self.cap, self.keep_all, self.on_data = fd, cap, keep_all, on_data
        if on_data is not None:
            most = sys.maxsize
        elif most is None:
            most = cap + 1 if keep_all else cap + READ_PAST_CAP
        self.most = max(cap, most)
        self.head, self.tail, self.total = bytearray(), bytearray(), 0
        self.refused = False  # stopped reading at `most`: the writer's later writes failed
        self.open = True

    def read_once(self) -> bool:
        """One read of what is there (a blocking read if nothing is); False once the pipe is closed: at its end,
        at `most` bytes, or on an error."""
        try:
            chunk = os.read(self.fd, min(1 << 16, self.most - self.total))
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return False
        self._keep(chunk)
        if self.total >= self.most:
            self.refused = True
            self.close()
        return self.open

    def _keep(self, chunk: bytes) -> None:
        half = self.cap // 2
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

    def close(self) -> None:
        if self.open:
            self.open = False
            os.close(self.fd)

    def is_alive(self) -> bool:
        """Still open: a process kept its write end past the run (``runs.finish_run`` says so)."""
        return self.open

    def join(self, timeout: float | None = None) -> None:
        """Nothing to wait for: ``drain`` read it (the interface of a ``Capture`` thread)."""

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


class Capture(Sink, threading.Thread):
    """A ``Sink`` read in a thread of its own, to its end (``start``, then ``join``)."""

    def __init__(self, fd: int, cap: int, keep_all: bool = False, most: int | None = None, on_data=None) -> None:
        Sink.__init__(self, fd, cap, keep_all, most, on_data)
        threading.Thread.__init__(self, daemon=True)

    def run(self) -> None:
        while self.read_once():
            pass

    is_alive = threading.Thread.is_alive
    join = threading.Thread.join


def drain(sinks: list[Sink], *, until: list[Sink], deadline: float, job: tuple[int, bytes] | None = None) -> bool:
    """Read `sinks` in this thread, each as its data comes, and write `job` (a pipe and its bytes: written whole,
    then closed; a reader that has gone is no error), until every sink of `until` is closed: True, or `deadline`
    (``time.monotonic()``) has passed: False. One loop for a run's pipes where a thread each cost the grader
    ~0.3 ms a run; the job's pipe is closed on return, written whole or not."""
    poller = select.poll()
    by_fd = {sink.fd: sink for sink in sinks if sink.open}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    out_fd, rest = job if job is not None else (None, b"")
    view = memoryview(rest)
    if out_fd is not None:
        os.set_blocking(out_fd, False)
        poller.register(out_fd, select.POLLOUT)
    try:
        while any(sink.open for sink in until):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for fd, _events in poller.poll(max(1, int(remaining * 1000) + 1)):
                if fd == out_fd:
                    try:
                        view = view[os.write(out_fd, view) :]
                    except BlockingIOError:
                        continue
                    except OSError:  # the run ended before reading it all: its exit says why
                        view = view[:0]
                    if not view:
                        poller.unregister(out_fd)
                        os.close(out_fd)
                        out_fd = None
                elif not by_fd[fd].read_once():
                    poller.unregister(fd)
        return True
    finally:
        if out_fd is not None:
            os.close(out_fd)


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
