"""Fixtures shared by the tests of dnnlpy.nn."""

import pytest
import torch
from torch.testing import assert_close


def _matches_torch(ours, theirs, *inputs, atol=None, rtol=None):
    """``ours(*inputs)`` equals ``theirs(*inputs)``, and so do the gradients of every float input.

    nan and inf must sit at the same places (``equal_nan``: a nan matches only a nan, inf only an inf of
    the same sign). The gradients are those of ``(out * probe).sum()`` for a fixed random ``probe``, so
    every output element counts with its own weight. An input may be None (an optional argument left out).
    Returns our inputs, to look at their ``.grad``.
    """

    def leaf(t):
        return None if t is None else t.detach().clone().requires_grad_(t.is_floating_point())

    our_inputs, their_inputs = [leaf(t) for t in inputs], [leaf(t) for t in inputs]
    out_ours, out_theirs = ours(*our_inputs), theirs(*their_inputs)
    assert out_ours.dtype == out_theirs.dtype
    assert_close(out_ours, out_theirs, atol=atol, rtol=rtol, equal_nan=True, msg=lambda m: f"values: {m}")
    if not out_theirs.requires_grad:
        return our_inputs
    probe = torch.randn(out_theirs.shape, generator=torch.Generator().manual_seed(0), dtype=out_theirs.dtype)
    (out_ours * probe).sum().backward()
    (out_theirs * probe).sum().backward()
    for i, (a, b) in enumerate(zip(our_inputs, their_inputs, strict=True)):
        if b is None or b.grad is None:
            continue
        assert a.grad is not None, f"input {i} gets a gradient from torch but not from dnnlpy"
        assert_close(a.grad, b.grad, atol=atol, rtol=rtol, equal_nan=True, msg=lambda m, i=i: f"grad of input {i}: {m}")
    return our_inputs


@pytest.fixture(scope="session")
def matches_torch():
    """The comparison above, as a fixture (session-scoped, so that hypothesis tests may use it)."""
    return _matches_torch
