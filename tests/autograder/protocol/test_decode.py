"""The trusted decoder of the evidence channel: plain data only, duplicates and malformed frames dropped."""

from __future__ import annotations

import io

import torch

from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import HEADER, encode_frame


def test_decode_frames_drops_duplicates_and_malformed():
    data = encode_frame("a", {"v": torch.ones(2)}) + encode_frame("b", {"v": 1}) + encode_frame("b", {"v": 2})
    bad = b"not a torch file"
    data += HEADER.pack(len(bad)) + bad + encode_frame("c", {"v": "x"})
    evidence, notes = decode_frames(data)
    assert set(evidence) == {"a", "c"}
    torch.testing.assert_close(evidence["a"]["v"], torch.ones(2))
    assert any("'b'" in n and "more than once" in n for n in notes)
    assert any("malformed" in n for n in notes)


class Evil:  # a pickled arbitrary object is not plain evidence
    pass


def test_decode_frames_refuses_objects_and_oversized_frames():
    buf = io.BytesIO()
    torch.save({"name": "x", "record": {"v": Evil()}}, buf)
    data = HEADER.pack(len(buf.getvalue())) + buf.getvalue() + HEADER.pack(1 << 40) + b"zz"
    evidence, notes = decode_frames(data)
    assert evidence == {} and any("oversized" in n for n in notes)


def test_a_truncated_header_is_noted():
    evidence, notes = decode_frames(encode_frame("a", {"v": 1}) + b"\x00\x00")
    assert evidence == {"a": {"v": 1}} and notes == ["evidence ends with a truncated frame header"]
