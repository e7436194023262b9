"""The runner's writer: plain records become JSON + safetensors; anything else is refused, naming where. The
runner's job travels as one frame too, read back whole by ``read_frame``."""

from __future__ import annotations

import os
import struct
from collections import OrderedDict

import pytest
import safetensors.torch
import torch

from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import (
    HEADER,
    JSON_LENGTH,
    FrameWriter,
    encode_frame,
    frame_bytes,
    join_frame,
    read_frame,
    split_frame,
)


def round_trip(record: dict) -> dict:
    evidence, notes = decode_frames(encode_frame("r", record))
    assert notes == []
    return evidence["r"]


def test_plain_records_come_back_as_plain_data():
    state = OrderedDict(w=torch.ones(2, 2, requires_grad=True), b=torch.arange(3))
    got = round_trip({"state": state, "pairs": [(1, "x")], "loss": 1.5, "ok": True, "none": None, "n": -(2**63)})
    assert type(got["state"]) is dict and list(got["state"]) == ["w", "b"] and not got["state"]["w"].requires_grad
    torch.testing.assert_close(got["state"]["b"], torch.arange(3))
    assert got["pairs"] == [[1, "x"]] and got["loss"] == 1.5 and got["ok"] is True and got["none"] is None
    assert got["n"] == -(2**63)


def test_a_view_is_sent_as_its_own_contiguous_values():
    t = torch.arange(12.0).reshape(3, 4)
    got = round_trip({"col": t[:, 1], "row": t[1]})
    assert got["col"].tolist() == [1.0, 5.0, 9.0] and got["row"].tolist() == [4.0, 5.0, 6.0, 7.0]


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({1: "a"}, "record['v']"),
        ({"$tensor": "t0"}, "record['v']"),
        ({1, 2}, "a set"),
        (b"bytes", "a bytes"),
        ([1, torch.ones(2, dtype=torch.complex64)], "record['v'][1]: a torch.complex64"),
        (torch.ones(2).to_sparse(), "sparse_coo"),
        (torch.nn.Parameter(torch.ones(2)), "a Parameter"),
    ],
)
def test_what_a_record_cannot_hold_is_refused_naming_where(value, where):
    with pytest.raises(TypeError, match=f".*{where.replace('[', '.').replace(']', '.')}"):
        encode_frame("r", {"v": value})


def test_the_writer_sends_an_error_record_in_place_of_one_it_cannot_encode():
    read, write = os.pipe()
    try:
        FrameWriter(write)("r", {"v": {1, 2}})
        os.close(write)
        data = os.read(read, 1 << 16)
    finally:
        os.close(read)
    evidence, notes = decode_frames(data)
    assert notes == [] and evidence["r"]["error"].startswith("the runner could not send this record: record['v']")
    assert data == frame_bytes("r", {"v": {1, 2}})


def test_read_frame_gives_back_the_record_encode_frame_was_given():
    ids, table = torch.tensor([[0, 9], [3, 3]]), torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(2, 3)
    record = {
        "source": "print('词表')\n# a lone surrogate: \ud800",
        "plan": {"ids": ids, "cases": [{"W": table, "seed": 2**40, "lr": 0.1, "ok": True, "none": None}], "empty": {}},
        "names": ["TiedEmbeddingLM"],
    }
    name, got = read_frame(encode_frame("__job__", record))
    assert name == "__job__"
    assert got["source"] == record["source"] and got["names"] == ["TiedEmbeddingLM"] and got["plan"]["empty"] == {}
    assert got["plan"]["ids"].dtype == torch.int64 and got["plan"]["ids"].tolist() == ids.tolist()
    case = got["plan"]["cases"][0]
    assert case["W"].dtype == torch.float64 and torch.equal(case["W"], table)
    assert (case["seed"], case["lr"], case["ok"], case["none"]) == (2**40, 0.1, True, None)
    case["W"].add_(1.0)  # the reader's tensors are its own to change
    assert table[0, 0].item() == -1.0


@pytest.mark.parametrize(
    "leading",
    [{"source": "print('词表')\n\ud800", "kind": "py", "n": 2**40, "x": float("nan"), "none": None}, {}],
    ids=["fields", "none"],
)
@pytest.mark.parametrize("shared", ["tensors", "empty"])
def test_a_frame_joined_from_a_split_part_is_the_frame_encode_frame_makes(leading, shared):
    fixed = {"plan": {"ids": torch.arange(5), "W": torch.ones(2, 3, dtype=torch.float64), "lr": 0.5}, "names": ["a"]}
    fixed = fixed if shared == "tensors" else {}
    part = split_frame(fixed)
    assert join_frame("__job__", leading, part) == encode_frame("__job__", {**leading, **fixed})
    name, got = read_frame(join_frame("__job__", leading, part))
    assert name == "__job__" and set(got) == {*leading, *fixed}


@pytest.mark.parametrize("value, named", [(torch.arange(3), "Tensor"), ([1, 2], "list"), ({"a": 1}, "dict")])
def test_a_split_frames_leading_fields_hold_plain_values_only(value, named):
    with pytest.raises(TypeError, match=rf"leading fields hold plain values under str keys only, not \['{named}'\]"):
        join_frame("__job__", {"source": "x", "v": value}, split_frame({"plan": {}}))


@pytest.mark.parametrize("cut", ["short", "long", "empty", "header only"])
def test_read_frame_refuses_what_is_not_one_whole_frame(cut):
    frame = encode_frame("__job__", {"plan": {"ids": torch.arange(4)}})
    bad = {"short": frame[:-1], "long": frame + b"\0", "empty": b"", "header only": frame[:8]}[cut]
    with pytest.raises(ValueError, match=f"a frame of {len(bad)} bytes that is not one whole frame"):
        read_frame(bad)


def test_a_frames_tensors_are_a_safetensors_file_the_library_reads_as_written():
    tensors = {
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
        "flags": torch.tensor([True, False, True]),
        "half": torch.arange(6, dtype=torch.bfloat16).reshape(2, 3),
        **{str(dtype): torch.arange(-3, 3).to(dtype) for dtype in (torch.float64, torch.int64, torch.int8)},
    }
    frame = encode_frame("r", {"v": list(tensors.values())})
    (size,) = JSON_LENGTH.unpack_from(frame, HEADER.size)
    file = frame[HEADER.size + JSON_LENGTH.size + size :]
    assert struct.unpack_from("<Q", file)[0] % 8 == 0  # the table padded as the library pads it
    loaded = safetensors.torch.load(file)
    assert len(loaded) == len(tensors)
    for key, want in zip(sorted(loaded, key=lambda k: int(k[1:])), tensors.values(), strict=True):
        got = loaded[key]
        assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want), key
