"""The seal's digest is a fixed function of a record: the runner seals and the judge checks with the same code,
and a faster digest must hash the very same bytes. The expected digests below were computed by the first
implementation (one hash update per value); any change of encoding fails here."""

from __future__ import annotations

import enum
from types import SimpleNamespace

import torch

from autograder.graders.weight_tying.runner.seal import SEAL, digest

_CASE = SimpleNamespace(FIELDS={"x": SimpleNamespace(), "t": SimpleNamespace()})
_RECORD_CLASS = SimpleNamespace(
    FIELDS={
        SEAL: SimpleNamespace(),
        "flag": SimpleNamespace(),
        "count": SimpleNamespace(),
        "name": SimpleNamespace(),
        "nested": SimpleNamespace(),
        "cases": SimpleNamespace(of=_CASE),
        "tensors": SimpleNamespace(),
        "odd": SimpleNamespace(),
    }
)


class _Small(enum.IntEnum):
    ONE = 1


def _record() -> dict:
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7
    return {
        SEAL: "left out",
        "flag": [True, False, None],
        "count": [0, -5, 2**63, 2**64, -(2**70), 1.5, -0.0, float("inf")],
        "name": ["", "tied", "\udc80 surrogate", "日本語"],
        "nested": {"b": [[1, [2, 3]], (4, 5)], "a": {"z": None, 3: "int key"}},
        "cases": [{"x": 1, "t": base[0], "undeclared": 9}, {"error": "ValueError: no"}],
        "tensors": [
            base,
            base.t(),  # not contiguous
            torch.tensor(3, dtype=torch.int64),
            torch.zeros(0, 2),
            torch.tensor([True, False]),
            base.double()[:, :2],
        ],
        "odd": [_Small.ONE, b"bytes", torch.nn.Parameter(base), SimpleNamespace()],
        "undeclared": "not hashed",
    }


def test_the_digest_of_a_record_is_unchanged():
    assert digest("rec", _record(), _RECORD_CLASS) == GOLDEN


def test_each_part_of_the_record_moves_the_digest():
    for key in ("flag", "count", "name", "nested", "cases", "tensors", "odd"):
        rec = _record()
        rec[key] = rec[key][:-1] if isinstance(rec[key], list) else {}
        assert digest("rec", rec, _RECORD_CLASS) != GOLDEN, key
    rec = _record()
    rec["undeclared"] = "changed"
    rec["cases"][0]["undeclared"] = 10
    assert digest("rec", rec, _RECORD_CLASS) == GOLDEN  # what the record does not declare is not hashed


GOLDEN = "e8e62c55ea9b599d387415406256ebdcbc34a4b71b24805efe03e87b1f0d53bd"


def _strided() -> dict:
    """Tensors laid out every way the digest writes out in one call, and the dtypes it writes out another way."""
    base = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 7
    return {
        "tensors": [
            base.permute(2, 0, 1),
            base[:, ::2, 1:],
            base[1, 2],
            base.half().transpose(0, 2),
            torch.arange(6, dtype=torch.int32).reshape(2, 3).t(),
            torch.tensor([[1, 2]], dtype=torch.uint8).expand(3, 2),  # one element, three places
            base.bfloat16()[:, 1],  # no numpy twin
            torch.tensor(-0.0),
        ]
    }


def test_every_layout_and_dtype_hashes_its_values_in_order():
    record_class = SimpleNamespace(FIELDS={"tensors": SimpleNamespace()})
    assert digest("strided", _strided(), record_class) == GOLDEN_STRIDED
    contiguous = {"tensors": [t.contiguous() for t in _strided()["tensors"]]}
    assert digest("strided", contiguous, record_class) == GOLDEN_STRIDED


GOLDEN_STRIDED = "b84eaaa44e95116161811a62e06c3117f3106438b5651e5a4b6328ee710a2c69"  # the first implementation's


def test_a_mapping_of_shapes_hashes_as_the_list_branch_writes_each_shape():
    """A plain mapping's sizes are written inline (a state's shapes: most of a record); the bytes must be those
    of each value hashed on its own, whatever the value (a shape, an empty one, one too big, not a list)."""
    from autograder.graders.weight_tying.runner.seal import _LEN_Q, _update

    mapping = {"w": [3, 4], "e": [], "big": [1 << 70, 2], "t": (1, 2), "neg": [-5], "odd": [True, 1]}
    inline: list = []
    _update(inline, mapping, None)
    one_by_one = [b"D" + _LEN_Q(len(mapping))]
    for key in sorted(mapping):
        _update(one_by_one, key, None)
        _update(one_by_one, mapping[key], None)
    assert b"".join(inline) == b"".join(one_by_one)


def test_a_shape_written_once_a_run_is_told_from_a_list_equal_to_it_that_is_not_ints():
    """Shapes' bytes are kept by their sizes: a list that compares equal but holds a bool, or a size too big to be
    written inline, is written item by item, as before."""
    from autograder.graders.weight_tying.runner.seal import _update

    def written(value) -> bytes:
        out: list = []
        _update(out, value, None)
        return b"".join(out)

    assert written([1, 2]) == written((1, 2))  # kept after the first
    assert written([True, 2]) != written([1, 2]) and written([1.0, 2]) != written([1, 2])
    assert written([1 << 64, 2]) != written([0, 2]) and written([1 << 64]) == written([1 << 64])
