"""One loop reads a run's pipes and writes its job whole, keeps a capped share of each, and stops at its deadline."""

from __future__ import annotations

import os
import threading
import time

import pytest

from autograder.sandbox.capture import Capture, Sink, drain


def _pipes(n: int) -> list[tuple[int, int]]:
    return [os.pipe() for _ in range(n)]


def test_drain_writes_a_job_bigger_than_a_pipe_and_reads_every_pipe_until_the_status_closes():
    (job_r, job_w), (out_r, out_w), (st_r, st_w) = _pipes(3)
    job = os.urandom(3 << 20)  # far past a pipe's buffer: written as the other side reads
    got = bytearray()

    def other_side() -> None:  # as a runner: reads its whole job, says something, ends
        while chunk := os.read(job_r, 1 << 16):
            got.extend(chunk)
        os.close(job_r)
        os.write(out_w, b"read %d bytes\n" % len(got))
        os.close(out_w)
        os.write(st_w, b"exit 0")
        os.close(st_w)

    out, status = Sink(out_r, 1024), Sink(st_r, 64, keep_all=True)
    thread = threading.Thread(target=other_side)
    thread.start()
    assert drain([out, status], until=[status], deadline=time.monotonic() + 30, job=(job_w, job))
    thread.join()
    drain([out, status], until=[out, status], deadline=time.monotonic() + 5)
    assert bytes(got) == job
    assert out.text() == f"read {len(job)} bytes\n" and bytes(status.head) == b"exit 0"
    assert not out.is_alive() and not status.is_alive()


def test_drain_stops_at_its_deadline_and_closes_the_job_even_unread():
    (job_r, job_w), (st_r, st_w) = _pipes(2)
    status = Sink(st_r, 64, keep_all=True)
    start = time.monotonic()
    assert not drain([status], until=[status], deadline=start + 0.3, job=(job_w, b"x" * (1 << 20)))
    assert 0.3 <= time.monotonic() - start < 5
    assert status.is_alive()  # its writer is still there: the caller kills the run, then reads on
    os.close(st_w)
    assert drain([status], until=[status], deadline=time.monotonic() + 5)
    written = bytearray()
    while chunk := os.read(job_r, 1 << 16):  # ends: the job's end was closed, its unwritten rest dropped
        written.extend(chunk)
    os.close(job_r)
    assert 0 < len(written) < 1 << 20


def test_a_job_whose_reader_has_gone_is_no_error():
    (job_r, job_w), (st_r, st_w) = _pipes(2)
    os.close(job_r)
    os.close(st_w)
    status = Sink(st_r, 64, keep_all=True)
    assert drain([status], until=[status], deadline=time.monotonic() + 5, job=(job_w, b"x" * (1 << 20)))


@pytest.mark.parametrize("kind", ["loop", "thread"])
def test_a_flood_is_read_to_its_bound_then_refused_in_the_loop_as_in_a_thread(kind):
    out_r, out_w = os.pipe()
    sink = Sink(out_r, 100, most=1000) if kind == "loop" else Capture(out_r, 100, most=1000)
    writes: list = []

    def flood() -> None:
        try:
            for _ in range(10_000):  # far past a pipe's buffer: the reader has closed its end long before
                writes.append(os.write(out_w, b"y" * 500))
        except BrokenPipeError:
            writes.append("refused")
        finally:
            os.close(out_w)

    thread = threading.Thread(target=flood)
    thread.start()
    if kind == "loop":
        drain([sink], until=[sink], deadline=time.monotonic() + 10)
    else:
        sink.start()
        sink.join(10)
    thread.join(10)
    assert sink.refused and sink.total == 1000 and not sink.is_alive()
    assert writes[-1] == "refused"
    assert len(sink.head) + len(sink.tail) == 100 and sink.dropped == 900
