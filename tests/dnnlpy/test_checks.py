"""dnnlpy._checks: the argument checks every layer shares, and the layers that use them."""

import pytest

import dnnlpy.nn as dnn
from dnnlpy import _checks
from dnnlpy.models import gpt


@pytest.mark.parametrize("value", [4, 1])
def test_positive_int_returns_what_it_accepts(value):
    assert _checks.positive_int("n", value) == value


@pytest.mark.parametrize("value", [0, -3, 2.5, "4", None, True])
def test_positive_int_names_the_value_and_the_fix(value):
    with pytest.raises(ValueError, match=rf"n must be an int >= 1, got {value!r}: pass a whole number of at least 1"):
        _checks.positive_int("n", value)


def test_positive_int_minimum_and_reason():
    assert _checks.positive_int("num_layers", 0, minimum=0) == 0
    with pytest.raises(ValueError, match=r"vocab_size must be an int >= 257 \(256 bytes\), got 256"):
        _checks.positive_int("vocab_size", 256, minimum=257, why="256 bytes")


@pytest.mark.parametrize("value", [0, 0.5, 1, 1.0])
def test_probability_accepts_zero_to_one(value):
    assert _checks.probability("p", value) == float(value)


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), "0.1", True])
def test_probability_refuses_the_rest(value):
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\], got .*: pass a probability"):
        _checks.probability("p", value)


def test_sizes():
    assert _checks.sizes("shape", 8) == (8,)
    assert _checks.sizes("shape", [4, 6]) == (4, 6)
    with pytest.raises(ValueError, match=r"shape\[1\] must be an int >= 1, got 0"):
        _checks.sizes("shape", (4, 0))
    with pytest.raises(ValueError, match="at least one dimension"):
        _checks.sizes("shape", ())


@pytest.mark.parametrize(
    "build,match",
    [
        (lambda: dnn.Linear(3, 0), "out_features must be an int >= 1, got 0"),
        (lambda: dnn.Embedding(10, 2.5), "embedding_dim must be an int >= 1, got 2.5"),
        (lambda: dnn.MultiheadAttention(True, 1), "embed_dim must be an int >= 1, got True"),
        (lambda: dnn.MultiheadAttention(8, -2), "num_heads must be an int >= 1, got -2"),
        (lambda: dnn.LayerNorm(0), "normalized_shape must be an int >= 1, got 0"),
        (lambda: dnn.LayerNorm(4.0), "normalized_shape must be an int >= 1, got 4.0"),
        (lambda: dnn.Dropout(2), r"dropout probability p must be a number in \[0, 1\], got 2"),
        (lambda: dnn.MultiheadAttention(8, 2, dropout=-1.0), r"dropout must be a number in \[0, 1\]"),
        (lambda: gpt.MiniGPT(10, 4, num_layers=-1), "num_layers must be an int >= 0, got -1"),
        (lambda: gpt.get_batch(list(range(20)), 4, 0), "batch_size must be an int >= 1, got 0"),
    ],
)
def test_every_layer_uses_the_shared_wording(build, match):
    with pytest.raises(ValueError, match=match):
        build()
