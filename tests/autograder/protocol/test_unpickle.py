"""The evidence unpickler: honest records come out as torch.load would give them (but plain and contiguous);
every costly or non-plain construct is refused before it costs anything."""

from __future__ import annotations

import io
import math
import os
import pickle
import struct

import pytest
import torch
from hostile_frames import (
    APPEND,
    EMPTY_LIST,
    MARK,
    PROTO,
    SETITEMS,
    STOP,
    dag_list,
    floats,
    frame_pickle,
    get,
    i,
    put,
    record,
    s,
    saved,
    tensor,
)

from autograder.protocol.archive import read_archive
from autograder.protocol.bounds import EvidenceBounds, Refused
from autograder.protocol.unpickle import Facts, unpickle

BOUNDS = EvidenceBounds()


def load(blob: bytes, bounds: EvidenceBounds = BOUNDS) -> tuple[dict, Facts]:
    archive = read_archive(blob, bounds)
    facts = Facts()
    return unpickle(archive.pickle, archive.storages, bounds, facts), facts


def refused(blob_or_pickle: bytes, match: str, storages: dict | None = None, bounds: EvidenceBounds = BOUNDS) -> Facts:
    facts = Facts()
    with pytest.raises(Refused, match=match):
        if storages is None:
            archive = read_archive(blob_or_pickle, bounds)
            unpickle(archive.pickle, archive.storages, bounds, facts)
        else:
            unpickle(blob_or_pickle, storages, bounds, facts)
    return facts


def test_honest_records_come_out_as_torch_load_gives_them():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    rec = {
        "logits": base,
        "view": base[1:, ::2],  # a strided view of a larger storage
        "f64": torch.randn(3, dtype=torch.float64),
        "half": torch.ones(2, dtype=torch.float16),
        "bf16": torch.ones(2, dtype=torch.bfloat16),
        "ids": torch.tensor([[1, 2, 3]]),
        "mask": torch.tensor([True, False]),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
        "state": {"w": torch.ones(2, 2), "b": None},
        "cases": [{"error": "ValueError: é ✓"}, {"x": [1, 2.5, float("nan"), True, None, -(2**63)]}],
        "pair": (1, "a"),
    }
    frame, facts = load(saved({"name": "lm", "record": rec}))
    expected = torch.load(io.BytesIO(saved({"name": "lm", "record": rec})), weights_only=True)
    assert facts.name == "lm" and frame["name"] == "lm"
    got = frame["record"]
    assert set(got) == set(expected["record"])
    for key, value in expected["record"].items():
        if isinstance(value, torch.Tensor):
            t = got[key]
            assert type(t) is torch.Tensor and t.dtype == value.dtype and t.is_contiguous() and not t.requires_grad
            assert torch.equal(t, value), key
    storages = {got[k].untyped_storage().data_ptr() for k in ("logits", "view")}
    assert len(storages) == 2, "a view must come out as a tensor of its own, not sharing memory"
    assert got["cases"][1]["x"][:2] == [1, 2.5] and math.isnan(got["cases"][1]["x"][2])
    assert got["cases"][0]["error"] == "ValueError: é ✓" and got["pair"] == (1, "a") and got["state"]["b"] is None


def test_shared_and_cyclic_structures_are_refused_before_anything_is_printed():
    refused(saved({"name": "x", "record": {"error": dag_list(60)}}), "referenced twice")
    cycle: list = []
    cycle.append(cycle)
    refused(saved({"name": "x", "record": {"v": cycle}}), "referenced twice")
    t = torch.ones(2)
    refused(saved({"name": "x", "record": {"a": t, "b": t}}), "tensor is referenced twice")


def test_the_name_is_known_even_when_the_record_is_refused():
    facts = refused(saved({"name": "lm_grad", "record": {"error": dag_list(5)}}), "referenced twice")
    assert facts.name == "lm_grad"


def test_deep_nesting_is_refused_at_the_bound_without_recursion():
    def nested(depth: int) -> bytes:
        return frame_pickle("x", record(("v", EMPTY_LIST * depth + APPEND * (depth - 1))))

    load_ok = unpickle(nested(BOUNDS.depth - 2), {}, BOUNDS, Facts())
    assert load_ok["name"] == "x"
    refused(nested(BOUNDS.depth + 1), "nested over", storages={})
    refused(nested(100_000), "nested over|values|opcodes", storages={})  # whichever bound comes first


def test_strings_ints_and_keys_are_bounded():
    refused(saved({"name": "x", "record": {"e": "x" * (BOUNDS.string_chars + 1)}}), "string of")
    many = frame_pickle("x", record(("v", EMPTY_LIST + MARK + s("y" * 8000) + put(9) + get(9) * 200 + b"e")))
    refused(many, "strings add up", storages={})
    refused(saved({"name": "x", "record": {"e": 10**30}}), "64-bit")
    refused(saved({"name": "x", "record": {(1, 2): 3}}), "dict key is a tuple")
    refused(saved({"name": "x", "record": {1.5: 3}}), "dict key is a float")
    lone = unpickle(frame_pickle("x", record(("e", s("a\ud800b")))), {}, BOUNDS, Facts())
    assert lone["record"]["e"] == "a\\ud800b"  # a lone surrogate becomes visible text any output can write


def test_expanded_tensors_pay_for_every_element_they_show():
    refused(saved({"name": "x", "record": {"w": torch.zeros(1).expand(100_000, 100_000)}}), "tensors add up")
    frame, facts = load(saved({"name": "x", "record": {"w": torch.arange(3.0).expand(4, 3)}}))
    w = frame["record"]["w"]
    assert w.is_contiguous() and w.stride() == (3, 1) and torch.equal(w, torch.arange(3.0).expand(4, 3))
    assert facts.tensor_bytes == 4 * 3 * 4


def test_storages_and_views_must_be_what_they_claim():
    ops = frame_pickle("x", record(("w", tensor("0", 4, 0, [4], [1]))))
    ok = unpickle(ops, {"0": floats(4)}, BOUNDS, Facts())
    assert torch.equal(ok["record"]["w"], torch.arange(4.0))
    refused(ops, "claims another size", storages={"0": floats(3)})
    refused(ops, "no record", storages={})
    past = frame_pickle("x", record(("w", tensor("0", 4, 2, [3], [1]))))
    refused(past, "past the end", storages={"0": floats(4)})
    negative = frame_pickle("x", record(("w", tensor("0", 4, 0, [2], [-1]))))
    refused(negative, "negative", storages={"0": floats(4)})
    dims = frame_pickle("x", record(("w", tensor("0", 1, 0, [1] * 9, [0] * 9))))
    refused(dims, "dimensions", storages={"0": floats(1)})
    complex_ = frame_pickle("x", record(("w", tensor("0", 1, 0, [1], [1], "ComplexFloatStorage"))))
    refused(complex_, "not part of plain evidence", storages={"0": floats(2)})


def test_bool_storages_are_normalised_to_zero_and_one():
    ops = frame_pickle("x", record(("m", tensor("0", 3, 0, [3], [1], "BoolStorage"))))
    mask = unpickle(ops, {"0": bytes([0, 1, 2])}, BOUNDS, Facts())["record"]["m"]
    assert mask.tolist() == [False, True, True] and mask.to(torch.uint8).max().item() == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.ones(2, 2).to_sparse(),
        lambda: torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.qint8),
        lambda: torch.ones(2, device="meta"),
        lambda: torch.ones(2, dtype=torch.complex64),
        lambda: torch.nn.Parameter(torch.ones(2)),
        lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
    ],
    ids=["sparse", "quantized", "meta", "complex", "parameter", "nested"],
)
@pytest.mark.filterwarnings("ignore::UserWarning")  # quantized and nested tensors warn that they are prototypes
def test_odd_tensors_are_refused(make):
    refused(saved({"name": "x", "record": {"t": make()}}), "not (part of )?plain evidence|not allowed")


class _Pwn:
    def __reduce__(self):
        return (os.system, ("touch /tmp/wtcal_pwned_unit",))


def test_nothing_named_in_the_pickle_is_ever_called():
    refused(saved({"name": "x", "record": {"p": _Pwn()}}), "global 'posix system'")
    assert not os.path.exists("/tmp/wtcal_pwned_unit")
    plain = pickle.dumps({"name": "x", "record": {}}, protocol=4)
    refused(plain, "protocol 4", storages={})
    refused(PROTO + b"}" + MARK + s("name") + s("x") + SETITEMS + STOP, "must be", storages={})
    refused(PROTO + i(1) + i(2) + STOP, "one dict", storages={})
    refused(PROTO + SETITEMS + STOP, "MARK it never opened", storages={})
    refused(PROTO + b"\x01", "malformed|no STOP", storages={})


def test_opcode_and_value_counts_are_bounded():
    small = EvidenceBounds(pickle_ops=50, nodes=10_000)
    refused(saved({"name": "x", "record": {"v": list(range(100))}}), "opcodes", bounds=small)
    few = EvidenceBounds(nodes=20)
    refused(saved({"name": "x", "record": {"v": list(range(100))}}), "over 20 values", bounds=few)


def test_storage_bytes_are_read_as_little_endian_values():
    ops = frame_pickle("x", record(("w", tensor("0", 2, 0, [2], [1], "DoubleStorage"))))
    w = unpickle(ops, {"0": struct.pack("<2d", 1.5, -2.0)}, BOUNDS, Facts())["record"]["w"]
    assert w.dtype == torch.float64 and w.tolist() == [1.5, -2.0]
