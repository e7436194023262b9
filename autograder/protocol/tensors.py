"""Trusted: read a frame's tensors, one safetensors file, after checking its table against the bounds.

safetensors is a format made for untrusted files: an 8-byte little-endian length, a JSON table (name ->
dtype, shape, byte offsets), then the tensors' bytes, contiguous and never overlapping; reading one runs no
code. The library accepts more than evidence needs (complex and float8 dtypes, extra keys, a header up to
100 MB), so the table is read here first, with ``parse_bounded``, and must hold only what
``safetensors.torch.save`` writes for the dtypes of ``ALLOWED_DTYPES``: sizes that agree with shapes, offsets
that tile the data exactly, no more tensors, dimensions or bytes than the bounds allow. Only then does
``safetensors.torch.load`` build the tensors (fresh, contiguous, CPU); a bool tensor is normalised to 0/1.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from autograder.protocol.bounds import ALLOWED_DTYPES, EvidenceBounds, Facts, Refused
from autograder.protocol.plainjson import parse_bounded

__all__ = ["read_tensors"]

_LENGTH = struct.Struct("<Q")
_ENTRY_KEYS = {"dtype", "shape", "data_offsets"}


def read_tensors(data: bytes, bounds: EvidenceBounds, facts: Facts) -> dict[str, Any]:
    """name -> tensor of the safetensors file `data`; Refused with the reason when it breaks a bound."""
    if len(data) < _LENGTH.size:
        raise Refused("the frame has no tensor table")
    (size,) = _LENGTH.unpack_from(data)
    if size > bounds.header_bytes:
        raise Refused(f"a tensor table of {size} bytes, over the bound of {bounds.header_bytes}")
    if _LENGTH.size + size > len(data):
        raise Refused(f"a tensor table of {size} bytes in {len(data)} bytes of tensors")
    max_values = 1 + 24 * bounds.tensors  # an entry: its name, 3 keys, up to 8 dims, 2 offsets, separators
    table = parse_bounded(
        data[_LENGTH.size : _LENGTH.size + size],
        "the tensor table",
        max_bytes=bounds.header_bytes,
        max_values=max_values,
        max_depth=3,
        spent=facts,
    )
    if type(table) is not dict:
        raise Refused("the tensor table is not a JSON object")
    facts.tensors = len(table)
    if len(table) > bounds.tensors:
        raise Refused(f"{len(table)} tensors in the frame, over the bound of {bounds.tensors}")
    buffer = len(data) - _LENGTH.size - size
    spans = sorted(_span(name, entry, bounds, facts) for name, entry in table.items())
    end = 0
    for start, stop, name in spans:
        if start != end:  # the data is tiled exactly: no gap, no overlap, no byte twice
            raise Refused(f"tensor {name[:40]!r} does not start where the one before it ends (overlap or gap)")
        end = stop
    if end != buffer:
        raise Refused(f"the tensors cover {end} bytes of a {buffer}-byte data section")
    if facts.tensor_bytes > bounds.tensor_bytes:
        raise Refused(f"the record's tensors add up to over {bounds.tensor_bytes} bytes")
    return _load(data, table) if table else {}


def _span(name: str, entry: Any, bounds: EvidenceBounds, facts: Facts) -> tuple[int, int, str]:
    """(start, stop, name) of one checked table entry; its bytes are added to ``facts.tensor_bytes``."""
    if name == "__metadata__":
        raise Refused("the tensor table carries metadata: evidence frames never do")
    if type(entry) is not dict or set(entry) != _ENTRY_KEYS:
        raise Refused(f"tensor {name[:40]!r}: an entry is exactly dtype, shape and data_offsets")
    dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if dtype not in ALLOWED_DTYPES:
        raise Refused(f"tensor {name[:40]!r} has dtype {str(dtype)[:20]!r}, not one evidence allows")
    if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape):
        raise Refused(f"tensor {name[:40]!r}: its shape is not a list of sizes")
    if len(shape) > bounds.tensor_dims:
        raise Refused(f"tensor {name[:40]!r} has {len(shape)} dimensions (bound {bounds.tensor_dims})")
    if type(offsets) is not list or len(offsets) != 2 or not all(type(n) is int for n in offsets):
        raise Refused(f"tensor {name[:40]!r}: its data_offsets are not two integers")
    start, stop = offsets
    nbytes = math.prod(shape) * ALLOWED_DTYPES[dtype][1]
    if start < 0 or stop - start != nbytes:
        raise Refused(f"tensor {name[:40]!r}: {stop - start} bytes for a shape that needs {nbytes}")
    facts.tensor_bytes += nbytes
    return start, stop, name


def _load(data: bytes, table: dict) -> dict[str, Any]:
    import torch
    from safetensors import SafetensorError
    from safetensors.torch import load

    try:
        tensors = load(data)
    except SafetensorError as exc:  # the checks above leave nothing it refuses: a second line of defence
        raise Refused(f"safetensors refuses the tensors ({str(exc)[:80]})") from None
    if set(tensors) != set(table):
        raise Refused("safetensors read other tensors than the table lists")
    for name, tensor in tensors.items():
        if tensor.dtype == torch.bool:  # bytes other than 0 and 1 are not booleans torch can compute with
            tensors[name] = tensor.view(torch.uint8).ne(0)
    return tensors
