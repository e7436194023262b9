"""Trusted: turn the bytes of an evidence channel into records, accepting only plain data.

Frames are loaded with ``torch.load(weights_only=True)``: tensors, numbers, strings, None, and lists, tuples
and dicts of these survive; tensor subclasses and arbitrary objects are refused by construction. A frame
that does not load, or a record name sent twice, counts as no evidence for that name.
"""

from __future__ import annotations

import io

from autograder.protocol.frames import HEADER, MAX_FRAME_BYTES

__all__ = ["decode_frames"]


def decode_frames(data: bytes) -> tuple[dict[str, dict], list[str]]:
    """Evidence frames -> (name -> record, notes). Malformed frames are skipped; a name sent twice is dropped."""
    import torch

    evidence: dict[str, dict] = {}
    duplicated: set[str] = set()
    notes: list[str] = []
    pos = 0
    while pos < len(data):
        if len(data) - pos < HEADER.size:
            notes.append("evidence ends with a truncated frame header")
            break
        (size,) = HEADER.unpack_from(data, pos)
        start = pos + HEADER.size
        if size > MAX_FRAME_BYTES or start + size > len(data):
            notes.append(f"evidence frame of {size} bytes is oversized or truncated: the rest is ignored")
            break
        blob = data[start : start + size]
        pos = start + size
        try:
            frame = torch.load(io.BytesIO(blob), weights_only=True)
        except Exception as exc:  # anything unloadable is simply not evidence
            notes.append(f"malformed evidence frame ignored ({type(exc).__name__})")
            continue
        if not (type(frame) is dict and type(frame.get("name")) is str and type(frame.get("record")) is dict):
            notes.append("evidence frame without a name and a dict record ignored")
            continue
        name = frame["name"]
        if name in evidence or name in duplicated:
            duplicated.add(name)
            evidence.pop(name, None)
            continue
        evidence[name] = frame["record"]
    for name in sorted(duplicated):
        notes.append(f"evidence for {name!r} was sent more than once: treated as missing")
    return evidence, notes
