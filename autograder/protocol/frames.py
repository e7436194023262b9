"""Both sides: the evidence channel's wire format, its writer, and the records every runner sends.

A frame is an 8-byte big-endian length followed by ``torch.save({"name": str, "record": dict})``. The runner
writes one frame per record on a dedicated pipe; the grader decodes them with ``autograder.protocol.decode``.
"""

from __future__ import annotations

import io
import os
import struct

from autograder.protocol.schema import Field, Record

__all__ = [
    "HEADER",
    "MAX_FRAME_BYTES",
    "Load",
    "Running",
    "Done",
    "ExperimentsError",
    "INTERNAL",
    "encode_frame",
    "FrameWriter",
    "MAX_RUNNING",
]

HEADER = struct.Struct(">Q")  # the length of the torch.save blob that follows
MAX_FRAME_BYTES = 16 << 20  # one record; the whole channel is capped by the sandbox's Limits.evidence_bytes


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


INTERNAL = (Load.NAME, Done.NAME, ExperimentsError.NAME)  # records about the run, not experiments
MAX_RUNNING = 24  # Running records a run sends at most (the decoder reads 64 frames; a run needs ~18 more)


def encode_frame(name: str, record: dict) -> bytes:
    """One frame: header + torch.save blob."""
    import torch

    buf = io.BytesIO()
    torch.save({"name": str(name), "record": record}, buf)
    data = buf.getvalue()
    return HEADER.pack(len(data)) + data


class FrameWriter:
    """``emit(name, record)``: one flushed frame per call on file descriptor ``fd``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __call__(self, name: str, record: dict) -> None:
        view = memoryview(encode_frame(name, record))
        while view:  # os.write may write less than asked on a pipe
            view = view[os.write(self.fd, view) :]
