"""Trusted: the toy grader's suite: recompute a + b from the plan, compare with the plain evidence."""

import pytest
import torch


def _value(evidence: dict, name: str) -> torch.Tensor:
    if name not in evidence:
        pytest.fail(f"no evidence for experiment {name!r}: the submission stopped before it ran (see run status)")
    record = evidence[name]
    if "error" in record:
        pytest.fail(f"add raised {record['error']}")
    value = record.get("value")
    if type(value) is not torch.Tensor:
        pytest.fail(f"add must return a plain torch.Tensor, got {type(value).__name__}")
    return value


@pytest.mark.points(2)
@pytest.mark.area("values")
def test_same_shape(plan, evidence):
    value = _value(evidence, "same_shape")
    expected = plan["a"] + plan["b"]
    if value.shape != expected.shape or not torch.allclose(value, expected):
        if value.shape == expected.shape and torch.allclose(value, plan["a"] - plan["b"]):
            pytest.fail("add returned a - b: subtraction instead of addition")
        pytest.fail("add(a, b) does not equal a + b")


@pytest.mark.points(1)
@pytest.mark.area("broadcasting")
def test_broadcast(plan, evidence):
    value = _value(evidence, "broadcast")
    expected = plan["col"] + plan["row"]
    assert value.shape == expected.shape, f"add of shapes (3, 1) and (1, 5) gave {tuple(value.shape)}, expected (3, 5)"
    assert torch.allclose(value, expected), "add(col, row) does not equal col + row"
