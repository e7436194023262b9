"""The selftest checks: ``add`` on small tensors, each mistake named with the hidden suite's own message."""

from __future__ import annotations

import torch

from .self_check import SELF_CHECK

__all__ = ["A", "B", "COL", "ROW"]

A, B = torch.arange(12.0).reshape(3, 4), torch.linspace(-1.0, 1.0, 12).reshape(3, 4)
COL, ROW = torch.arange(3.0).reshape(3, 1), torch.arange(5.0).reshape(1, 5) / 4


def _added(add, a, b) -> torch.Tensor:
    got = SELF_CHECK.call(f"add({tuple(a.shape)}, {tuple(b.shape)})", add, a, b)
    if not isinstance(got, torch.Tensor):
        raise SELF_CHECK.failed("selftest.not_tensor", kind=type(got).__name__)
    return got


@SELF_CHECK.check(cls="add", group="add", area="values", section=1, title="add returns a plain torch.Tensor")
def test_add_returns_a_tensor(add) -> None:
    _added(add, A, B)


@SELF_CHECK.check(
    cls="add",
    group="add",
    area="values",
    section=1,
    title="add(a, b) is a + b for two tensors of one shape",
    needs=("test_add_returns_a_tensor",),
)
def test_add_adds(add) -> None:
    got = _added(add, A, B)
    if got.shape == A.shape and torch.allclose(got, A - B):
        raise SELF_CHECK.failed("selftest.subtraction")
    if got.shape != A.shape or not torch.allclose(got, A + B):
        raise SELF_CHECK.failed("selftest.not_sum")


@SELF_CHECK.check(
    cls="add",
    group="add",
    area="broadcasting",
    section=1,
    title="add broadcasts shapes (3, 1) and (1, 5) to (3, 5), as a + b does",
    needs=("test_add_adds",),
)
def test_add_broadcasts(add) -> None:
    got = _added(add, COL, ROW)
    if got.shape != (3, 5):
        raise SELF_CHECK.failed("selftest.broadcast_shape", got=tuple(got.shape))
    if not torch.allclose(got, COL + ROW):
        raise SELF_CHECK.failed("selftest.broadcast_values")
