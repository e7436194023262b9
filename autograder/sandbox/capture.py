"""Trusted: drain a pipe in a thread, keeping only a capped head and tail of what went through."""

from __future__ import annotations

import os
import threading

__all__ = ["Capture"]


class Capture(threading.Thread):
    """Drain a pipe to EOF so the writer never blocks; keep head and tail up to `cap` bytes."""

    def __init__(self, fd: int, cap: int, keep_all: bool = False) -> None:
        super().__init__(daemon=True)
        self.fd, self.cap, self.keep_all = fd, cap, keep_all
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def run(self) -> None:
        half = self.cap // 2
        try:
            while chunk := os.read(self.fd, 1 << 16):
                self.total += len(chunk)
                if len(self.head) < (self.cap if self.keep_all else half):
                    room = (self.cap if self.keep_all else half) - len(self.head)
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk and not self.keep_all:
                    self.tail += chunk
                    del self.tail[: -half or None]
        except OSError:
            pass
        finally:
            os.close(self.fd)

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        if self.dropped > 0:
            return head + f"\n[... {self.dropped} bytes of output dropped ...]\n" + self.tail.decode("utf-8", "replace")
        return head + self.tail.decode("utf-8", "replace")
