"""Trusted: messages between the grader and its warm judge process (a JSON header, then raw byte blobs).

Both ends are the grader's own processes, but the judge reads evidence a submission wrote, so nothing it
sends back is unpickled: headers are JSON and blobs are bytes (a job, an evidence channel). One message::

    send_bytes(json.dumps({..., "blobs": n}))  then n x send_bytes(blob)
"""

from __future__ import annotations

import json
from multiprocessing.connection import Connection

__all__ = ["send", "receive", "GROWN_SHARE"]

# A judge that needs no more than its plan holds a few hundred MB (torch, the suite, the plan's models): one
# holding more than this share of its memory cap after a judgement is replaced (``client``), and only such a one
# gives its freed heap back before it is measured (``server``).
GROWN_SHARE = 0.4


def send(conn: Connection, header: dict, blobs: tuple[bytes, ...] = ()) -> None:
    conn.send_bytes(json.dumps({**header, "blobs": len(blobs)}).encode())
    for blob in blobs:
        conn.send_bytes(blob)


def receive(conn: Connection) -> tuple[dict, list[bytes]]:
    """One message; EOFError when the other end is gone."""
    header = json.loads(conn.recv_bytes())
    if not isinstance(header, dict):
        raise ValueError(f"a message header must be a JSON object, got {type(header).__name__}")
    return header, [conn.recv_bytes() for _ in range(int(header.pop("blobs", 0)))]
