"""Trusted: the toy grader's suite: recompute a + b from the plan, compare with the plain evidence."""

import torch

from autograder.grading.judge.suite_api import Failed
from autograder.protocol.said import Said


def _value(evidence: dict, name: str) -> torch.Tensor:
    if name not in evidence:
        raise Failed(Said("selftest.no_evidence", name=repr(name)), owed=True)
    record = evidence[name]
    if "error" in record:
        raise Failed(Said("selftest.raised", error=str(record["error"])[:1200]))
    value = record.get("value")
    if type(value) is not torch.Tensor:
        raise Failed(Said("selftest.not_tensor", kind=type(value).__name__))
    return value


def test_same_shape(plan, evidence):
    value = _value(evidence, "same_shape")
    expected = plan["a"] + plan["b"]
    if value.shape != expected.shape or not torch.allclose(value, expected):
        if value.shape == expected.shape and torch.allclose(value, plan["a"] - plan["b"]):
            raise Failed(Said("selftest.subtraction"))
        raise Failed(Said("selftest.not_sum"))


def test_broadcast(plan, evidence):
    value = _value(evidence, "broadcast")
    expected = plan["col"] + plan["row"]
    assert value.shape == expected.shape, Said("selftest.broadcast_shape", got=tuple(value.shape))
    assert torch.allclose(value, expected), Said("selftest.broadcast_values")
