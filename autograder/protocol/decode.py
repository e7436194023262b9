"""Trusted: turn the bytes of an evidence channel into records, accepting only plain, bounded data.

Each frame passes two steps, in this order (the first bounds the cost of the second; ``bounds`` holds the
numbers and how they were chosen)::

    read_archive(blob)     zip members stored, named and sized as torch.save writes them
    unpickle(data.pkl)     opcode walk that calls nothing: plain values only, a tree (no sharing),
                           strings, ints, depth and sizes bounded, tensors checked then built contiguous

No pickle is ever run (not even ``torch.load(weights_only=True)``, which inflates compressed records and
builds shared or expanded structures that cost the judge minutes and gigabytes to print or check).

A refused frame is noted with its record's name and the reason; that name, when the pickle said it before
failing, counts as sent (so a second frame of that name makes both missing). A frame that does not fit the
run's remaining budget is refused alone: the records accepted before it stay; a complete frame over
``MAX_FRAME_BYTES`` is skipped unread. Only a truncated frame ends the reading (nothing after it can be framed).
"""

from __future__ import annotations

from dataclasses import replace

from autograder.protocol.archive import read_archive
from autograder.protocol.bounds import DEFAULT_BOUNDS, EvidenceBounds, Refused
from autograder.protocol.frames import HEADER, MAX_FRAME_BYTES
from autograder.protocol.unpickle import Facts, unpickle

__all__ = ["decode_frames", "decode_frame"]


def decode_frame(blob: bytes, bounds: EvidenceBounds = DEFAULT_BOUNDS) -> tuple[Facts, dict | None, str]:
    """One frame's (facts: name and costs, plain record or None, why it was refused or "")."""
    facts = Facts()
    try:
        archive = read_archive(blob, bounds, facts)
        frame = unpickle(archive.pickle, archive.storages, bounds, facts)
    except Refused as exc:
        return facts, None, str(exc)
    return facts, frame["record"], ""


def decode_frames(data: bytes, bounds: EvidenceBounds = DEFAULT_BOUNDS) -> tuple[dict[str, dict], list[str]]:
    """Evidence frames -> (name -> record, notes). Refused frames are noted; a name sent twice is dropped."""
    evidence: dict[str, dict] = {}
    sent: set[str] = set()
    duplicated: set[str] = set()
    notes: list[str] = []
    nodes_left, bytes_left, chars_left = bounds.run_nodes, bounds.run_tensor_bytes, bounds.run_chars
    members_left, ops_left = bounds.run_zip_members, bounds.run_pickle_ops
    pos = count = 0
    while pos < len(data):
        if len(data) - pos < HEADER.size:
            notes.append("evidence ends with a truncated frame header")
            break
        (size,) = HEADER.unpack_from(data, pos)
        start = pos + HEADER.size
        if start + size > len(data):
            notes.append(f"evidence frame of {size} bytes is oversized or truncated: the rest is ignored")
            break
        if size > MAX_FRAME_BYTES:  # complete, so the frames after it can still be read: skip it unread
            notes.append(f"evidence frame of {size} bytes refused unread (over {MAX_FRAME_BYTES >> 20} MiB)")
            pos = start + size
            continue
        count += 1
        if count > bounds.frames:
            notes.append(f"over {bounds.frames} evidence frames: the rest is ignored")
            break
        if members_left <= 0 or ops_left <= 0:
            notes.append("this run's evidence took all the decoding work its bound allows: the rest is ignored")
            break
        # Work is bounded per run too: a frame may use only what the frames before it left.
        frame_bounds = replace(
            bounds, zip_members=min(bounds.zip_members, members_left), pickle_ops=min(bounds.pickle_ops, ops_left)
        )
        facts, record, refused = decode_frame(data[start : start + size], frame_bounds)
        members_left, ops_left = members_left - facts.members, ops_left - facts.ops
        pos = start + size
        if record is not None and (
            facts.nodes > nodes_left or facts.tensor_bytes > bytes_left or facts.chars > chars_left
        ):
            record, refused = None, "this run's evidence is over its total bound (the records before it are kept)"
        name = facts.name
        if refused:
            label = f"for {name[:60]!r}" if name is not None else "without a readable name"
            notes.append(f"evidence frame {label} refused, treated as missing: {refused}")
        if name is None:
            continue
        if name in sent:
            duplicated.add(name)
            evidence.pop(name, None)
            continue
        sent.add(name)
        if record is not None:
            nodes_left, bytes_left = nodes_left - facts.nodes, bytes_left - facts.tensor_bytes
            chars_left -= facts.chars
            evidence[name] = record
    for name in sorted(duplicated):
        notes.append(f"evidence for {name[:60]!r} was sent more than once: treated as missing")
    return evidence, notes
