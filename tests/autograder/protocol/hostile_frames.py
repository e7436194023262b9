"""Builders of evidence frames for the decoder's tests: honest ones (the runner's writer), and hostile ones
written field by field (a JSON text and a safetensors file made by hand, so that any of it can lie)."""

from __future__ import annotations

import json
import struct

from autograder.protocol.frames import HEADER, JSON_LENGTH


def framed(blob: bytes) -> bytes:
    return HEADER.pack(len(blob)) + blob


def text(value) -> bytes:
    """`value` as the writer's JSON (bytes are taken as a JSON text already)."""
    return value if isinstance(value, bytes) else json.dumps(value, separators=(",", ":")).encode()


def safetensors_file(table, data: bytes = b"") -> bytes:
    """A safetensors file with this table (a dict, or its JSON bytes) over `data`, however they disagree."""
    header = text(table)
    return struct.pack("<Q", len(header)) + header + data


def entry(dtype: str, shape: list[int], start: int, stop: int) -> dict:
    return {"dtype": dtype, "shape": shape, "data_offsets": [start, stop]}


def blob(frame, tensors: bytes | None = None) -> bytes:
    """A frame's blob: JSON (a value, or its bytes) + a safetensors file (default: one with no tensors)."""
    data = text(frame)
    return JSON_LENGTH.pack(len(data)) + data + (safetensors_file({}) if tensors is None else tensors)


def frame(name: str, record, tensors: bytes | None = None) -> bytes:
    """A complete frame for {"name": name, "record": record}."""
    return framed(blob({"name": name, "record": record}, tensors))


def nested(depth: int, name: str = "x") -> bytes:
    """The JSON of a frame whose record's value is `depth` lists deep."""
    return b'{"name":"' + name.encode() + b'","record":{"v":' + b"[" * depth + b"]" * depth + b"}}"
