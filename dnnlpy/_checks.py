"""Argument checks shared by the whole library.

Each check returns the value it accepted, or raises a ``ValueError`` that names the argument, the value it
got and what to pass instead, so that every layer words the same mistake the same way.

>>> positive_int("num_heads", 4)
4
>>> positive_int("num_heads", 0)
Traceback (most recent call last):
...
ValueError: num_heads must be an int >= 1, got 0: pass a whole number of at least 1
"""

from __future__ import annotations

import torch

__all__ = ["positive_int", "probability", "sizes", "floating_tensor"]


def positive_int(name: str, value: object, minimum: int = 1, why: str = "") -> int:
    """``value`` if it is an int >= ``minimum``. ``why`` says where the minimum comes from."""
    # bool is a subclass of int, but True is never meant as a size or a count.
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        reason = f" ({why})" if why else ""
        raise ValueError(
            f"{name} must be an int >= {minimum}{reason}, got {value!r}: pass a whole number of at least {minimum}"
        )
    return value


def probability(name: str, value: object) -> float:
    """``value`` as a float if it is a number in [0, 1] (a dropout rate, a smoothing amount)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}: pass a probability such as 0.1")
    return float(value)


def sizes(name: str, value: object) -> tuple[int, ...]:
    """An int or a sequence of ints, each >= 1, as a tuple (e.g. LayerNorm's ``normalized_shape``)."""
    shape = tuple(value) if isinstance(value, (tuple, list)) else (value,)  # torch.Size is a tuple
    if not shape:
        raise ValueError(f"{name} must name at least one dimension, got {value!r}: pass e.g. the embedding width")
    for i, size in enumerate(shape):
        positive_int(name if shape == (value,) else f"{name}[{i}]", size)
    return shape


def floating_tensor(name: str, value: object) -> torch.Tensor:
    """``value`` if it is a floating-point tensor (logits, activations, queries; not token ids)."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}: wrap it with torch.tensor(...)")
    if not value.is_floating_point():
        raise TypeError(
            f"{name} must be a floating-point tensor, got dtype {value.dtype}: convert it with {name}.float()"
        )
    return value
