"""A frame's tensors: a safetensors file whose table is checked against the bounds before anything is read."""

from __future__ import annotations

import struct

import pytest
import torch
from hostile_frames import entry, safetensors_file
from safetensors import SafetensorError
from safetensors.torch import load, save

import autograder.protocol.tensors as tensors_module
from autograder.protocol.bounds import ALLOWED_DTYPES, EvidenceBounds, Facts, Refused
from autograder.protocol.tensors import read_tensors

BOUNDS = EvidenceBounds()


def read(data: bytes, bounds: EvidenceBounds = BOUNDS) -> dict:
    return read_tensors(data, bounds, Facts())


def refused(data: bytes, match: str, bounds: EvidenceBounds = BOUNDS) -> None:
    with pytest.raises(Refused, match=match):
        read(data, bounds)


@pytest.fixture
def no_loading(monkeypatch):
    """Fail the test if safetensors is reached: the table's check must refuse the file before it."""

    def never(*args, **kwargs):
        raise AssertionError("safetensors read a file the table's check should have refused")

    monkeypatch.setattr(tensors_module, "_load", never)


def test_every_allowed_dtype_comes_back_equal_fresh_and_contiguous():
    sent = {
        name: torch.arange(6).reshape(2, 3).to(getattr(torch, dtype)) for name, (dtype, _) in ALLOWED_DTYPES.items()
    }
    sent |= {"empty": torch.zeros(0, 3), "scalar": torch.tensor(2.5, dtype=torch.float64)}
    got = read(save(sent))
    assert set(got) == set(sent)
    for name, tensor in sent.items():
        assert type(got[name]) is torch.Tensor and got[name].is_contiguous() and got[name].device.type == "cpu"
        torch.testing.assert_close(got[name], tensor, rtol=0, atol=0)


def test_bool_bytes_are_normalised_to_zero_and_one():
    mask = read(safetensors_file({"m": entry("BOOL", [3], 0, 3)}, bytes([0, 1, 2])))["m"]
    assert mask.view(torch.uint8).tolist() == [0, 1, 1]


def test_a_table_length_is_bounded_before_anything_is_read(no_loading):
    refused(struct.pack("<Q", 1 << 60) + b"{}", "over the bound of")
    refused(struct.pack("<Q", 200) + b"{}", "table of 200 bytes in 10 bytes")
    refused(
        safetensors_file({"t": entry("F32", [1], 0, 4)}, bytes(4)),
        "over the bound of 16",
        EvidenceBounds(header_bytes=16),
    )
    refused(b"\x01", "no tensor table")


def test_overlapping_gapped_or_uncovered_data_is_refused(no_loading):
    overlap = {"a": entry("F32", [2], 0, 8), "b": entry("F32", [1], 4, 8)}
    refused(safetensors_file(overlap, bytes(8)), "overlap or gap")
    twice = {"a": entry("F32", [2], 0, 8), "b": entry("F32", [2], 0, 8)}
    refused(safetensors_file(twice, bytes(8)), "overlap or gap")
    refused(safetensors_file({"a": entry("F32", [1], 4, 8)}, bytes(8)), "overlap or gap")
    refused(safetensors_file({"a": entry("F32", [1], 0, 4)}, bytes(8)), "cover 4 bytes of a 8-byte")


def test_safetensors_itself_refuses_overlapping_and_uncovered_data():
    # The library's own check, behind ours: what the table check refuses, safetensors refuses too.
    for table, data in (
        ({"a": entry("F32", [2], 0, 8), "b": entry("F32", [1], 4, 8)}, bytes(8)),
        ({"a": entry("F32", [1], 0, 4)}, bytes(8)),
        ({"a": entry("F32", [3], 0, 8)}, bytes(8)),
    ):
        with pytest.raises(SafetensorError):
            load(safetensors_file(table, data))


def test_dtypes_off_the_list_are_refused_although_safetensors_reads_them(no_loading):
    complex_file = safetensors_file({"c": entry("C64", [1], 0, 8)}, bytes(8))
    assert load(complex_file)["c"].dtype == torch.complex64  # the library alone would let it through
    refused(complex_file, "dtype 'C64'")
    for dtype in ("F8_E4M3", "U16", "U64", "float32", 7):
        refused(safetensors_file({"c": entry(dtype, [1], 0, 8)}, bytes(8)), "not one evidence allows")


def test_sizes_must_agree_with_shapes_and_stay_in_bounds(no_loading):
    refused(safetensors_file({"a": entry("F32", [3], 0, 8)}, bytes(8)), "8 bytes for a shape that needs 12")
    huge = {"a": entry("F32", [1 << 40, 1 << 40], 0, 4)}  # claims 2**82 bytes over 4: nothing is allocated
    refused(safetensors_file(huge, bytes(4)), "needs")
    refused(safetensors_file({"a": entry("F32", [1] * 9, 0, 4)}, bytes(4)), "9 dimensions")
    refused(safetensors_file({"a": entry("F32", [-1], 0, 0)}), "not a list of sizes")
    refused(safetensors_file({"a": entry("F32", [True], 0, 4)}, bytes(4)), "not a list of sizes")
    refused(
        safetensors_file({"a": entry("F32", [1024], 0, 4096)}, bytes(4096)),
        "over 1024 bytes",
        EvidenceBounds(tensor_bytes=1024),
    )
    many = {f"t{k}": entry("U8", [1], k, k + 1) for k in range(5)}
    refused(safetensors_file(many, bytes(5)), "5 tensors in the frame, over the bound of 4", EvidenceBounds(tensors=4))


def test_tables_hold_exactly_what_the_writer_writes(no_loading):
    extra = {"a": {**entry("F32", [1], 0, 4), "x": 1}}
    refused(safetensors_file(extra, bytes(4)), "exactly dtype, shape and data_offsets")
    refused(safetensors_file({"__metadata__": {"k": "v"}}), "metadata")
    refused(safetensors_file({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, "4"]}}, bytes(4)), "two integers")
    refused(safetensors_file(b"[1, 2]"), "not a JSON object")
    refused(safetensors_file(b'{"a": ' + b"[" * 50 + b"]" * 50 + b"}"), "levels deep")
    refused(safetensors_file(b'{"a": {"dtype": "F32"}, "a": {"dtype": "F32"}}'), "key twice")


def _table_of(size: int) -> bytes:
    """A valid table of exactly `size` bytes: one 4-byte tensor, padded with spaces (as safetensors pads)."""
    table = b'{"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}'
    assert len(table) <= size
    return table + b" " * (size - len(table))


def test_each_bound_is_met_at_the_bound_and_refused_one_past_it():
    """Every bound of the table: a file exactly at it is read, one unit past it is refused."""
    at = _table_of(96)
    assert set(read(struct.pack("<Q", 96) + at + bytes(4), EvidenceBounds(header_bytes=96))) == {"t"}
    refused(struct.pack("<Q", 97) + _table_of(97) + bytes(4), "over the bound of 96", EvidenceBounds(header_bytes=96))
    # the table may fill the file exactly (no tensor bytes), and not one byte more
    assert read(safetensors_file({})) == {}
    refused(struct.pack("<Q", 3) + b"{}", "table of 3 bytes in 10 bytes")

    four = {f"t{k}": entry("U8", [1], k, k + 1) for k in range(4)}
    assert len(read(safetensors_file(four, bytes(4)), EvidenceBounds(tensors=4))) == 4
    five = {f"t{k}": entry("U8", [1], k, k + 1) for k in range(5)}
    refused(safetensors_file(five, bytes(5)), "5 tensors in the frame, over the bound of 4", EvidenceBounds(tensors=4))

    dims = 8  # the default bound on a tensor's dimensions
    assert read(safetensors_file({"a": entry("F32", [1] * dims, 0, 4)}, bytes(4)))["a"].dim() == dims
    refused(safetensors_file({"a": entry("F32", [1] * (dims + 1), 0, 4)}, bytes(4)), f"{dims + 1} dimensions")

    assert read(safetensors_file({"a": entry("U8", [1024], 0, 1024)}, bytes(1024)), EvidenceBounds(tensor_bytes=1024))
    over = {"a": entry("U8", [1024], 0, 1024), "b": entry("U8", [1], 1024, 1025)}
    refused(safetensors_file(over, bytes(1025)), "over 1024 bytes", EvidenceBounds(tensor_bytes=1024))
