"""Fixtures shared by the tests of dnnlpy.nn, and the hypothesis profile of its property tests.

The property tests draw their cases from the profile ``dnnlpy-properties``: derandomized by default, so that
every run (and CI) draws the same cases. Two environment variables change it:

    DNNLPY_HYPOTHESIS=random        draw anew; pytest's --hypothesis-seed=N then picks the draw:
                                    DNNLPY_HYPOTHESIS=random pytest tests/dnnlpy/nn --hypothesis-seed=7
    DNNLPY_HYPOTHESIS_EXAMPLES=N    N cases a test instead of 200 (test_nn_cpu_capabilities.py draws fewer
                                    under each of torch's CPU kernels)
"""

import os

import pytest
import torch
from hypothesis import settings
from torch.testing import assert_close

_DRAWS = {"fixed": True, "random": False}
_draw = os.environ.get("DNNLPY_HYPOTHESIS", "fixed")
if _draw not in _DRAWS:
    raise ValueError(f"DNNLPY_HYPOTHESIS={_draw!r}: give 'fixed' (the default) or 'random'")
_examples = os.environ.get("DNNLPY_HYPOTHESIS_EXAMPLES", "200")
if not _examples.isdigit() or int(_examples) < 1:
    raise ValueError(f"DNNLPY_HYPOTHESIS_EXAMPLES={_examples!r}: give a positive whole number of cases, e.g. 50")
settings.register_profile(
    "dnnlpy-properties", max_examples=int(_examples), derandomize=_DRAWS[_draw], deadline=None, database=None
)


def pytest_report_header(config):
    # test_nn_cpu_capabilities.py reads this line to know which of torch's CPU kernels ran the tests
    return f"torch CPU capability: {torch.backends.cpu.get_cpu_capability()}"


def agree(a, b, atol=None, rtol=None):
    """Elementwise: a and b are both nan, the same infinity, or close (``torch.isclose``'s tolerances for
    the dtype unless given)."""
    if atol is None or rtol is None:
        atol, rtol = (1e-5, 1.3e-6) if a.dtype in (torch.float32, torch.float16) else (1e-7, 1e-7)
    both_nan = a.isnan() & b.isnan()
    same_inf = a.isinf() & (a == b)
    return both_nan | same_inf | torch.isclose(a, b, atol=atol, rtol=rtol)


def _torch_agrees_with_itself(op, *inputs, laid_out=None):
    """Where torch's answer does not depend on the length of the call, as a bool mask of ``op(*inputs)``.

    Each input's dim 0 indexes samples that op computes apart from one another (rows of a softmax, elements
    of a GELU, a batch's samples; inputs shared by every sample stay inside op). ``op(*inputs)`` is held
    against op on each sample alone (calls of length 1) and on the samples repeated past 33 (a long call:
    every vector lane, and a remainder), and against `laid_out` when given (the same answer from a call on
    the tensor as the test laid it out, another kernel); True where they all agree (``agree``).
    """
    whole = op(*inputs)
    n = len(inputs[0])
    if n == 0 or whole.numel() == 0:
        return torch.ones_like(whole, dtype=torch.bool)
    alone = torch.cat([op(*(t[i : i + 1] for t in inputs)) for i in range(n)])
    times = -(-33 // n) + 1
    long = op(*(t.repeat(times, *[1] * (t.dim() - 1)) for t in inputs))[:n]
    same = agree(whole, alone) & agree(whole, long)
    return same if laid_out is None else same & agree(whole, laid_out)


def _matches_torch(ours, theirs, *inputs, atol=None, rtol=None, where=None):
    """``ours(*inputs)`` equals ``theirs(*inputs)``, and so do the gradients of every float input.

    nan and inf must sit at the same places (``equal_nan``: a nan matches only a nan, inf only an inf of
    the same sign). The gradients are those of ``(out * probe).sum()`` for a fixed random ``probe``, so
    every output element counts with its own weight. An input may be None (an optional argument left out).
    ``where``, a bool mask of the output's shape, limits the comparison to those outputs (and, for inputs of
    the output's shape, to the gradients at those places): _torch_agrees_with_itself says where torch's own
    answer is one answer. Returns our inputs, to look at their ``.grad``.
    """

    def leaf(t):
        return None if t is None else t.detach().clone().requires_grad_(t.is_floating_point())

    our_inputs, their_inputs = [leaf(t) for t in inputs], [leaf(t) for t in inputs]
    out_ours, out_theirs = ours(*our_inputs), theirs(*their_inputs)
    assert out_ours.dtype == out_theirs.dtype
    keep = torch.ones_like(out_theirs, dtype=torch.bool) if where is None else where
    assert keep.shape == out_theirs.shape

    def values(a):
        return a.detach()[keep]

    assert_close(
        values(out_ours), values(out_theirs), atol=atol, rtol=rtol, equal_nan=True, msg=lambda m: f"values: {m}"
    )
    if not out_theirs.requires_grad:
        return our_inputs
    probe = torch.randn(out_theirs.shape, generator=torch.Generator().manual_seed(0), dtype=out_theirs.dtype)
    torch.where(keep, out_ours * probe, 0.0).sum().backward()
    torch.where(keep, out_theirs * probe, 0.0).sum().backward()
    for i, (a, b) in enumerate(zip(our_inputs, their_inputs, strict=True)):
        if b is None or b.grad is None:
            continue
        assert a.grad is not None, f"input {i} gets a gradient from torch but not from dnnlpy"
        mine, theirs_grad = a.grad, b.grad
        if where is not None and b.shape == keep.shape:
            mine, theirs_grad = mine[keep], theirs_grad[keep]
        assert_close(
            mine, theirs_grad, atol=atol, rtol=rtol, equal_nan=True, msg=lambda m, i=i: f"grad of input {i}: {m}"
        )
    return our_inputs


@pytest.fixture(scope="session")
def matches_torch():
    """The comparison above, as a fixture (session-scoped, so that hypothesis tests may use it)."""
    return _matches_torch


@pytest.fixture(scope="session")
def torch_agrees_with_itself():
    """``_torch_agrees_with_itself``, as a fixture (session-scoped, for hypothesis tests)."""
    return _torch_agrees_with_itself
