"""Both sides: the evidence channel's wire format, its writer, and the records every runner sends.

A frame is an 8-byte big-endian length, then its blob: the record as JSON, then its tensors as one
safetensors file::

    >Q blob length | <Q JSON length | {"name": str, "record": {...}} | safetensors (<Q, table, data)

In the JSON, each tensor is a reference ``{"$tensor": "t3"}`` to the safetensors entry of that name, used
exactly once. Records hold dicts with str keys, lists (tuples become lists), str, int, float (NaN and
Infinity as Python's ``json`` writes them), bool, None and plain CPU tensors of the dtypes in
``bounds.ALLOWED_DTYPES``. The runner writes one frame per record on a dedicated pipe; the grader decodes them
with ``autograder.protocol.decode``, which reads them with ``json`` and ``safetensors`` only (no pickle).
The runner's job (the submission and the judge's plan) travels the other way as one frame too, which the runner
reads with ``read_frame``: the judge wrote it, so it is read whole, without the decoder's bounds.
"""

from __future__ import annotations

import json
import os
import struct
from collections import OrderedDict
from typing import Any

from autograder.protocol.schema import Field, Record

__all__ = [
    "HEADER",
    "JSON_LENGTH",
    "TENSOR_KEY",
    "MAX_FRAME_BYTES",
    "Load",
    "Running",
    "Done",
    "ExperimentsError",
    "Refused",
    "INTERNAL",
    "JOB",
    "encode_frame",
    "split_frame",
    "join_frame",
    "NO_PART",
    "PLAN_PART",
    "frame_bytes",
    "FrameWriter",
    "MAX_RUNNING",
    "read_frame",
]

HEADER = struct.Struct(">Q")  # the length of the frame's blob that follows
JSON_LENGTH = struct.Struct("<Q")  # the blob's first field: the length of the record's JSON
TENSOR_KEY = "$tensor"  # {"$tensor": name}, alone in its dict, stands for the tensor of that name
MAX_FRAME_BYTES = 16 << 20  # one record; the whole channel is capped by the sandbox's Limits.evidence_bytes
# torch dtype name -> safetensors dtype name, for the dtypes evidence may hold (bounds.ALLOWED_DTYPES)
_DTYPES = {"float32": "F32", "float64": "F64", "float16": "F16", "bfloat16": "BF16", "int64": "I64"}
_DTYPES |= {"int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}


class Load(Record, name="__load__"):
    """What loading the submission left behind (sent before any experiment)."""

    errors = Field("pairs", "[[cell index, 'ExcType: message'], ...] of the cells that raised", checked=False)
    defined = Field("strs", "the required names the submission defines", checked=False)


class Running(Record, name="__running__"):
    """What has been running for a while (a cell of the submission, or a check): sent as ``__running__N``
    (N = 0, 1, ...; each name once), so the last one says where a run stopped at the time limit."""

    cell = Field("int", "the index of the cell (or part) running, -1 during the checks", checked=False)
    check = Field("str", "the check (experiment) running, '' while cells run", checked=False)


class Done(Record, name="__done__"):
    """Sent once every experiment returned: its absence means the run ended early."""


class ExperimentsError(Record, name="__experiments_error__"):
    """An exception that escaped the experiments function itself (a grader bug or a broken runner)."""

    error = Field("str", "the exception, one line", checked=False)


class Refused(Record, name="__refused__"):
    """What the run tried that its sandbox may have refused, as the runner saw it (``runner/refusals.py``): the
    runner's word, which the judge sifts (``grading/refusals.py``) and which moves no mark."""

    files = Field("strs", "absolute paths it tried to open, list or enter that were not there to read", checked=False)
    calls = Field("strs", "kernel calls reached by name through ctypes ('ptrace'), 'socket:AF_INET'", checked=False)


INTERNAL = (Load.NAME, Done.NAME, ExperimentsError.NAME, Refused.NAME)  # records about the run, not experiments
MAX_RUNNING = 24  # Running records a run sends at most (the decoder reads 64 frames; a run needs ~18 more)
JOB = "__job__"  # the frame on the runner's stdin: the submission and the plan, from the judge


def encode_frame(name: str, record: dict) -> bytes:
    """One frame: header + JSON + safetensors. TypeError, naming the value, for what a record cannot hold."""
    tensors: dict[str, Any] = {}
    text = json.dumps({"name": str(name), "record": _plain(record, tensors, "record")}, separators=(",", ":"))
    return _framed(text.encode("ascii"), _tensor_file(tensors))  # json.dumps escapes every other character


def _framed(data: bytes, tensor_file: bytes) -> bytes:
    """A frame of a record's JSON (`data`, ASCII) and its tensors' file: the lengths before each."""
    blob = JSON_LENGTH.pack(len(data)) + data + tensor_file
    return HEADER.pack(len(blob)) + blob


def split_frame(record: dict) -> tuple[bytes, bytes]:
    """`record`'s part of many frames that differ only in a few plain fields put before it (``join_frame``): its
    JSON (without its braces) and its tensor file, made once. TypeError, naming the value, as ``encode_frame``."""
    tensors: dict[str, Any] = {}
    text = json.dumps(_plain(record, tensors, "record"), separators=(",", ":"))
    return text[1:-1].encode("ascii"), _tensor_file(tensors)


def join_frame(name: str, leading: dict, part: tuple[bytes, bytes]) -> bytes:
    """``encode_frame(name, {**leading, **record})``, byte for byte, from `record`'s ``split_frame`` `part`:
    `leading` maps str keys, none of the record's, to str, int, float, bool or None (TypeError otherwise). No
    torch here: the grader's coordinator makes a job this way without importing it."""
    if any(type(k) is not str for k in leading) or not _SCALARS.issuperset(map(type, leading.values())):
        kinds = sorted({type(v).__name__ for v in leading.values()} - {t.__name__ for t in _SCALARS})
        raise TypeError(f"a frame's leading fields hold plain values under str keys only, not {kinds or 'other keys'}")
    body, tensor_file = part
    own = json.dumps(leading, separators=(",", ":"))[1:-1].encode("ascii")
    record = b",".join(text for text in (own, body) if text)
    return _framed(b'{"name":' + json.dumps(str(name)).encode("ascii") + b',"record":{' + record + b"}}", tensor_file)


def _tensor_file(tensors: dict[str, Any]) -> bytes:
    """`tensors` (contiguous CPU tensors of the dtypes in ``_DTYPES``) as one safetensors file: the format
    ``safetensors.torch.save`` writes (its table padded with spaces to 8 bytes), without its ~20 us per tensor
    (a job's plan holds ~150)."""
    import torch

    table: dict[str, dict] = {}
    chunks: list[bytes] = []
    offset = 0
    for key, tensor in tensors.items():
        chunk = tensor.reshape(-1).view(torch.uint8).numpy().tobytes()  # little-endian (x86-64, arm64), as the format
        dtype = _DTYPES[str(tensor.dtype).removeprefix("torch.")]
        table[key] = {"dtype": dtype, "shape": list(tensor.shape), "data_offsets": [offset, offset + len(chunk)]}
        chunks.append(chunk)
        offset += len(chunk)
    head = json.dumps(table, separators=(",", ":")).encode("ascii")
    head += b" " * (-len(head) % 8)
    return JSON_LENGTH.pack(len(head)) + head + b"".join(chunks)


_SCALARS = frozenset((str, int, float, bool, type(None)))
# ``split_frame({})``: a part with no field and no tensor, for ``join_frame`` of plain fields alone (no torch)
NO_PART = (b"", JSON_LENGTH.pack(8) + b"{}      ")
# A job's field naming, by its digest, the part every job of its plan holds, which the runner was handed decoded
# by its fork server (``autograder.runner.__main__.main``) instead of reading it: the plan and the grader's fields.
PLAN_PART = "plan_part"


def _plain(value: Any, tensors: dict[str, Any], where: Any) -> Any:
    """`value` as JSON-ready data; each tensor moves to `tensors` (a contiguous copy) behind a reference. `where`:
    the path to `value` (a str, or (parent's path, key or index)), spelled out only in an error."""
    import torch

    if value is None or type(value) in (str, int, float, bool):
        return value
    if type(value) is torch.Tensor:
        dtype = str(value.dtype).removeprefix("torch.")
        if dtype not in _DTYPES or value.layout != torch.strided or value.device.type != "cpu":
            raise TypeError(f"{_spelled(where)}: a {value.dtype} {value.layout} tensor on {value.device}: not evidence")
        key = f"t{len(tensors)}"
        tensors[key] = value.detach().clone(memory_format=torch.contiguous_format)
        return {TENSOR_KEY: key}
    if type(value) in (list, tuple):
        if _SCALARS.issuperset(map(type, value)):  # a shape, a list of names: as it is, in one C loop
            return list(value)
        return [_plain(v, tensors, (where, i)) for i, v in enumerate(value)]
    if type(value) in (dict, OrderedDict):
        if any(type(k) is not str for k in value) or list(value) == [TENSOR_KEY]:
            raise TypeError(f"{_spelled(where)}: a dict whose keys are not all str, or a lone {TENSOR_KEY!r} key")
        if _SCALARS.issuperset(map(type, value.values())):
            return dict(value)
        return {k: _plain(v, tensors, (where, k)) for k, v in value.items()}
    raise TypeError(f"{_spelled(where)}: a {type(value).__name__}, which evidence cannot hold (plain values only)")


def _spelled(where: Any) -> str:
    """A path ``_plain`` passes down as it is spelled in an error: record[0]['key'][2]."""
    steps = []
    while isinstance(where, tuple):
        where, step = where
        steps.append(f"[{step}]" if type(step) is int else f"[{step[:40]!r}]")
    return str(where) + "".join(reversed(steps))


def frame_bytes(name: str, record: dict) -> bytes:
    """The frame the runner sends: `record`'s, or an error record saying why it cannot be sent (a value
    evidence cannot hold, a runner bug or one a submission returned), so that it costs only this record."""
    try:
        return encode_frame(name, record)
    except (TypeError, ValueError, RecursionError) as exc:
        return encode_frame(name, {"error": f"the runner could not send this record: {exc}"[:2000]})


class FrameWriter:
    """``emit(name, record)``: one flushed frame per call (``frame_bytes``) on file descriptor ``fd``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __call__(self, name: str, record: dict) -> None:
        view = memoryview(frame_bytes(name, record))
        while view:  # os.write may write less than asked on a pipe
            view = view[os.write(self.fd, view) :]


def read_frame(frame: bytes) -> tuple[str, dict]:
    """(name, record) of one whole frame as ``encode_frame`` wrote it, for a reader that trusts its writer: the
    runner, reading the job the judge made. Evidence, which the grader does not trust, goes through
    ``autograder.protocol.decode`` instead. ValueError when `frame` is not one whole frame."""
    from safetensors.torch import load

    start = HEADER.size + JSON_LENGTH.size
    if len(frame) < start or HEADER.unpack_from(frame)[0] != len(frame) - HEADER.size:
        raise ValueError(f"a frame of {len(frame)} bytes that is not one whole frame: write it with encode_frame")
    (size,) = JSON_LENGTH.unpack_from(frame, HEADER.size)
    head = json.loads(frame[start : start + size])
    return head["name"], _with_tensors(head["record"], load(frame[start + size :]))


def _with_tensors(value: Any, tensors: dict[str, Any]) -> Any:
    if type(value) is list:
        return [_with_tensors(v, tensors) for v in value]
    if type(value) is dict:
        if list(value) == [TENSOR_KEY]:
            return tensors[value[TENSOR_KEY]]
        return {k: _with_tensors(v, tensors) for k, v in value.items()}
    return value
