"""The judge sends a judgement's findings together when it ends, and what it decided before a slow test soon after,
never out of order."""

from __future__ import annotations

import time
from multiprocessing import Pipe

from autograder.grading.judge.server import Outbox
from autograder.grading.judge.wire import receive


def _received(conn, timeout: float = 2.0) -> dict | None:
    return receive(conn)[0] if conn.poll(timeout) else None


def test_a_quick_judgements_findings_go_in_one_message_before_its_end():
    ours, theirs = Pipe()
    outbox = Outbox(theirs, after=5.0)
    messages = [{"run": {"status": "ok"}}, {"tests": [["t", 1, "a"]]}, {"outcome": {"name": "t"}}]
    for message in messages:
        outbox(message)
    assert not ours.poll(0.2)  # nothing sent yet: the judgement has not ended
    outbox.send({"done": True})
    assert _received(ours) == {
        "batch": [{"run": {"status": "ok"}}, {"tests": [["t", 1, "a"]]}, {"outcome": {"name": "t"}}]
    }
    assert _received(ours) == {"done": True}
    assert not ours.poll(0.2)


def test_what_was_decided_before_a_slow_test_is_sent_while_it_runs():
    ours, theirs = Pipe()
    outbox = Outbox(theirs, after=0.05)
    outbox({"outcome": {"name": "first"}})
    start = time.monotonic()
    got = _received(ours)  # this thread sends nothing more: as if the next test hung
    assert got == {"batch": [{"outcome": {"name": "first"}}]} and time.monotonic() - start < 1.0
    outbox({"outcome": {"name": "second"}})  # the next judgement's first finding waits its own time again
    assert not ours.poll(0.01)
    assert _received(ours) == {"batch": [{"outcome": {"name": "second"}}]}
    outbox.send({"done": True})
    assert _received(ours) == {"done": True}
