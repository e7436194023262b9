"""Trusted: the kit's dataclasses on the wire between its own processes (judge, workers, dask, results files).

``wire_fields(obj)`` is a dataclass's fields as a dict; ``fields_from_wire(cls, data, what)`` is the reverse
check: every field of ``cls`` (those in ``skip`` aside) taken from ``data``, its type checked against the
field's annotation, a missing field without a default or a value of the wrong type refused with a
ValueError naming the field. Annotations understood: str, int, float (an int is accepted, a bool never is),
bool, list, dict, tuple (a list is accepted), ``X | None``; anything else (a nested class) is the caller's.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any

__all__ = ["wire_fields", "fields_from_wire"]

_PLAIN = (str, int, float, bool, list, dict, tuple, type(None))  # the annotations checked here


def wire_fields(obj: Any, skip: tuple[str, ...] = ()) -> dict:
    """The dataclass `obj`'s fields (not those in `skip`), values as they are."""
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name not in skip}


@functools.cache
def _kinds(cls: type) -> dict[str, tuple[tuple[type, ...], bool]]:
    """field -> (accepted types, None allowed), from the resolved annotations (empty tuple: not checked)."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        args = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        optional = type(None) in args
        kinds: list[type] = []
        for arg in args:
            base = typing.get_origin(arg) or arg
            if base is float:
                kinds += [float, int]
            elif base is tuple:
                kinds += [tuple, list]
            elif base in (str, int, bool, list, dict):
                kinds.append(base)
        unchecked = any((typing.get_origin(a) or a) not in _PLAIN for a in args)
        out[f.name] = (() if unchecked else tuple(kinds), optional)
    return out


def fields_from_wire(cls: type, data: Any, what: str, skip: tuple[str, ...] = ()) -> dict:
    """`cls`'s fields (not those in `skip`) from `data`, type-checked; ValueError naming the one that is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"{what} is a dict, found {type(data).__name__}")
    out = {}
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{what} field {f.name!r} is missing")
            continue
        value = data[f.name]
        kinds, optional = _kinds(cls)[f.name]
        if value is None and optional:
            pass
        elif kinds and (not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds)):
            expected = " or ".join(k.__name__ for k in kinds) + (" or None" if optional else "")
            raise ValueError(f"{what} field {f.name!r} is {value!r}, expected {expected}")
        out[f.name] = tuple(value) if tuple in kinds and isinstance(value, list) else value
    return out
