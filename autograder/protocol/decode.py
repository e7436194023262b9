"""Trusted: turn the bytes of an evidence channel into records, accepting only plain, bounded data.

A frame's blob (``protocol.frames``) is a JSON text and a safetensors file. Each passes its bounds before
anything is built (``bounds`` holds the numbers and how they were chosen)::

    parse_bounded(JSON)     bytes, values, nesting and integers checked before ``json.loads`` builds a value
    read_tensors(rest)      the safetensors table checked (dtypes, shapes, offsets, sizes), then loaded
    _plain(record)          strings bounded, each {"$tensor": name} replaced by its tensor, once

No pickle is ever read: the judge's side of the channel is ``json`` and ``safetensors``, neither of which runs
code from its input, and the value is a tree by construction (JSON cannot share a container; a tensor
referenced twice, or never, is refused).

A refused frame is noted with its record's name and the reason; that name, when it was readable, counts as
sent (so a second frame of that name makes both missing). A frame that does not fit the run's remaining
budget is refused alone: the records accepted before it stay; a complete frame over ``MAX_FRAME_BYTES`` is
skipped unread. Only a truncated frame ends the reading (nothing after it can be framed).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from autograder.protocol.bounds import DEFAULT_BOUNDS, EvidenceBounds, Facts, Refused
from autograder.protocol.frames import HEADER, JSON_LENGTH, MAX_FRAME_BYTES, TENSOR_KEY
from autograder.protocol.plainjson import parse_bounded
from autograder.protocol.tensors import read_tensors

__all__ = ["decode_frames", "decode_frame"]

# The writer puts the name first: read it before the rest, so that a refused frame still has one.
_NAME = re.compile(rb'\{\s*"name"\s*:\s*("[^"\\]*(?:\\.[^"\\]*)*")', re.DOTALL)


def decode_frame(blob: bytes | memoryview, bounds: EvidenceBounds = DEFAULT_BOUNDS) -> tuple[Facts, dict | None, str]:
    """One frame's (facts: name and costs, plain record or None, why it was refused or "")."""
    facts = Facts()
    try:
        return facts, _frame(blob, bounds, facts), ""
    except Refused as exc:
        return facts, None, str(exc)


def _frame(blob: bytes | memoryview, bounds: EvidenceBounds, facts: Facts) -> dict:
    if len(blob) < JSON_LENGTH.size:
        raise Refused("the frame is too short to hold a record")
    (size,) = JSON_LENGTH.unpack_from(blob)
    facts.name = _peek_name(
        bytes(blob[JSON_LENGTH.size : JSON_LENGTH.size + min(size, 8 * bounds.string_chars)]), bounds
    )
    if size > bounds.json_bytes:
        raise Refused(f"the record's JSON is {size} bytes, over the bound of {bounds.json_bytes}")
    if JSON_LENGTH.size + size > len(blob):
        raise Refused(f"the record's JSON claims {size} bytes of a {len(blob)}-byte frame")
    frame = parse_bounded(
        bytes(blob[JSON_LENGTH.size : JSON_LENGTH.size + size]),
        "the record's JSON",
        max_bytes=bounds.json_bytes,
        max_values=bounds.nodes,
        max_depth=bounds.depth + 1,
        spent=facts,
    )
    if type(frame) is not dict or set(frame) != {"name", "record"} or type(frame["name"]) is not str:
        raise Refused('a frame must be {"name": str, "record": dict}')
    if len(frame["name"]) > bounds.string_chars:
        raise Refused(f"a record name of {len(frame['name'])} characters")
    facts.name = _repaired(frame["name"])
    if type(frame["record"]) is not dict:
        raise Refused('a frame must be {"name": str, "record": dict}')
    tensors = read_tensors(bytes(blob[JSON_LENGTH.size + size :]), bounds, facts)
    record = _plain(frame["record"], tensors, bounds, facts)
    if tensors:
        raise Refused(f"tensor {next(iter(tensors))[:40]!r} is in the frame but no value refers to it")
    return record


def _peek_name(head: bytes, bounds: EvidenceBounds) -> str | None:
    """The name a frame's JSON starts with, as the writer puts it first; None when it does not."""
    match = _NAME.match(head)
    if match is None:
        return None
    try:
        name = json.loads(match.group(1))
    except ValueError:
        return None
    return _repaired(name) if type(name) is str and len(name) <= bounds.string_chars else None


_INERT = frozenset((int, float, bool, type(None)))  # JSON's numbers, true/false and null


def _plain(record: dict, tensors: dict, bounds: EvidenceBounds, facts: Facts) -> dict:
    """`record` with its strings checked and each tensor reference replaced (each tensor used once).

    Nesting counts containers as the frame's own dict does (level 1), a tensor reference being a leaf."""
    facts.nodes += 1
    stack: list[tuple[Any, int]] = [(record, 2)]  # (container whose items are still to visit, its level)
    while stack:
        box, level = stack.pop()
        facts.nodes += len(box)
        if type(box) is dict:
            keys = _keys(box, bounds, facts)  # a key is a value too: counted, bounded
            facts.nodes += len(keys)
            if keys != list(box):
                repaired = dict(zip(keys, box.values(), strict=True))
                box.clear()
                box.update(repaired)
        if _INERT.issuperset(map(type, box.values() if type(box) is dict else box)):
            continue  # numbers only (a shape): nothing below would look twice at any of them
        for key, item in box.items() if type(box) is dict else enumerate(box):
            kind = type(item)
            if kind is str:
                box[key] = _text(item, bounds, facts)
            elif kind is dict and len(item) == 1 and TENSOR_KEY in item:
                box[key] = _tensor(item[TENSOR_KEY], tensors)
            elif kind is list or kind is dict:
                if level + 1 > bounds.depth:
                    raise Refused(f"the record is nested over {bounds.depth} levels deep")
                if kind is list and _INERT.issuperset(map(type, item)):
                    facts.nodes += len(item)  # numbers only (a shape): counted, nothing to visit
                else:
                    stack.append((item, level + 1))
    return record


def _keys(box: dict, bounds: EvidenceBounds, facts: Facts) -> list[str]:
    """Each key of `box` as ``_text`` makes it, in C loops when every key is plain ASCII within the bounds (a
    state's parameter names: most of a record's keys); otherwise key by key, as ``_text`` refuses."""
    keys = list(box)
    if keys and max(map(len, keys)) <= bounds.string_chars and all(map(str.isascii, keys)):
        chars = facts.chars + sum(map(len, keys))
        if chars <= bounds.total_chars:
            facts.chars = chars
            return keys
    return [_text(k, bounds, facts) for k in keys]


def _text(text: str, bounds: EvidenceBounds, facts: Facts) -> str:
    if len(text) > bounds.string_chars:
        raise Refused(f"a string of {len(text)} characters, over the bound of {bounds.string_chars}")
    facts.chars += len(text)
    if facts.chars > bounds.total_chars:
        raise Refused(f"the record's strings add up to over {bounds.total_chars} characters")
    return _repaired(text)


def _repaired(text: str) -> str:
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate becomes the text \udcff


def _tensor(name: Any, tensors: dict) -> Any:
    if type(name) is not str:
        raise Refused("a tensor reference that is not a name")
    if name not in tensors:
        raise Refused(f"a reference to tensor {name[:40]!r}, which the frame does not hold (or holds once)")
    return tensors.pop(name)


def decode_frames(data: bytes, bounds: EvidenceBounds = DEFAULT_BOUNDS) -> tuple[dict[str, dict], list[str]]:
    """Evidence frames -> (name -> record, notes). Refused frames are noted; a name sent twice is dropped."""
    evidence: dict[str, dict] = {}
    sent: set[str] = set()
    duplicated: set[str] = set()
    notes: list[str] = []
    nodes_left, bytes_left, chars_left = bounds.run_nodes, bounds.run_tensor_bytes, bounds.run_chars
    values_left, tensors_left = bounds.run_values_read, bounds.run_tensors
    pos = count = 0
    view = memoryview(data)
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
        if values_left <= 0 or tensors_left <= 0:
            notes.append("this run's evidence took all the decoding work its bound allows: the rest is ignored")
            break
        # Work is bounded per run too: a frame may use only what the frames before it left.
        frame_bounds = replace(bounds, nodes=min(bounds.nodes, values_left), tensors=min(bounds.tensors, tensors_left))
        facts, record, refused = decode_frame(view[start : start + size], frame_bounds)  # a view: no copy
        values_left, tensors_left = values_left - facts.values_read, tensors_left - facts.tensors
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
