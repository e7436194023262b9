"""Both sides: the seal on every weight_tying experiment record: a digest of what the experiment measured.

The runner seals each record as the experiment returns it (``seal``): a SHA-256 of the record's declared
fields, or ``TAMPERED + what`` when the runner's own machinery was changed while the student's code ran (the
frame writer, the experiments and their tools, the record schema: replaced, or their code rewritten), as it
was imported before the submission loaded. The judge recomputes the digest from what arrived (``verdict``):
a record without a seal, with a ``TAMPERED`` one, or whose content no longer matches its seal earns nothing.

What this proves, and what it cannot: a submission that patches the runner's emit, rewrites a record on its
way out, or swaps an experiment for its own is caught, because none of those leave the runner as it was.
Student code shares the runner's process and can read this file, so one that recomputes the digest over
records it made itself, without touching anything watched here, is not: no in-process runner can tell
where in the process a correct number was computed. The README's "Residual risks" says so.

Imports only hashlib, the standard library and torch; ``frame_writers``, the runner's, also safetensors and
the protocol (the sandbox shows ``runner/`` and the protocol).
"""

from __future__ import annotations

import hashlib
import struct
import sys
import types
from collections.abc import Iterable
from itertools import repeat
from operator import call, is_
from typing import Any

import torch

__all__ = [
    "SEAL",
    "TAMPERED",
    "Integrity",
    "digest",
    "resealed",
    "verdict",
    "frame_writers",
    "module_dicts",
]

SEAL = "seal"
TAMPERED = "tampered: "


# dtypes whose numpy twin holds the very bytes torch does
_NUMPY_DTYPES = frozenset(
    (torch.float16, torch.float32, torch.float64, torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32)
    + (torch.int64,)
)
_LEN_I = struct.Struct(">I").pack
_LEN_Q = struct.Struct(">Q").pack
_BIG = 1 << 64


def _update(out: list, value: Any, fields: dict | None) -> None:
    """Append one value's bytes, tagged by type, to `out` (hashed in one go by ``digest``: the same bytes as
    one hash update each, at a fraction of the calls); a dict with `fields` (a record's FIELDS) contributes
    only its declared keys (and "error"), so an undeclared key is neither trusted nor able to break the seal."""
    kind = type(value)
    if kind is str:
        data = value.encode("utf-8", "surrogatepass")
        out.append(b"S" + _LEN_Q(len(data)) + data)
    elif kind is int:
        text = str(value).encode() if abs(value) < _BIG else b"big"
        out.append(b"I" + _LEN_I(len(text)) + text)
    elif kind is list or kind is tuple:
        if _all_ints(value):  # a shape, most of what a record holds: its bytes made once a run
            out.append(_int_list(value))
            return
        out.append(b"L" + _LEN_Q(len(value)))
        for item in value:
            if type(item) is int and -_BIG < item < _BIG:  # a shape's sizes, inline: most of what a record holds
                text = str(item).encode()
                out.append(b"I" + _LEN_I(len(text)) + text)
            else:
                _update(out, item, fields)
    elif value is None or kind is bool:
        out.append(b"N" if value is None else (b"B1" if value else b"B0"))
    elif kind is float:
        out.append(b"F" + value.hex().encode() + b";")
    elif kind is dict:
        keys = sorted((k for k in value if fields is None or k in fields or k == "error"), key=str)
        out.append(b"D" + _LEN_Q(len(keys)))
        for key in keys:
            if type(key) is str:
                data = key.encode("utf-8", "surrogatepass")
                out.append(b"S" + _LEN_Q(len(data)) + data)
            else:
                _update(out, key, None)
            if fields is None:  # a plain mapping (a state's shapes): no field says how to read its values
                item = value[key]
                if type(item) is list and _all_ints(item):  # a shape, inline: the bytes the list branch writes
                    out.append(_int_list(item))
                else:
                    _update(out, item, None)
                continue
            field = fields.get(key)
            of = getattr(getattr(field, "of", None), "FIELDS", None)
            if getattr(field, "kind", None) == "named cases" and type(value[key]) is dict:
                _named(out, value[key], of)
            else:
                _update(out, value[key], of)
    elif kind is torch.Tensor and value.layout == torch.strided and value.device.type == "cpu":
        out.append(b"T" + str(value.dtype).encode() + struct.pack(">B", value.dim()))
        out.append(struct.pack(f">{value.dim()}Q", *value.shape))
        if value.dtype in _NUMPY_DTYPES and not (value.is_neg() or value.is_conj()):
            # numpy writes any strides out in C order: the same bytes as the uint8 view of a contiguous copy,
            # for one call instead of five (a record holds dozens of tensors, and both sides digest each)
            out.append(value.detach().numpy().tobytes())
        else:
            flat = value.detach().contiguous().reshape(-1)
            out.append(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")
    else:  # nothing plain evidence holds: the seal cannot match
        out.append(b"?" + kind.__qualname__.encode())


_INTS = frozenset((int,))
_INT_LISTS: dict[tuple, bytes] = {}  # a shape's bytes, by its sizes (a run's records hold a few dozen shapes)
_MAX_INT_LISTS = 4096
_MAX_KEPT_SIZES = 8  # only a shape's few sizes are kept: a long list of ints (tokens a submission chose) is not


def _all_ints(items: list | tuple) -> bool:
    """Every item an int (not a bool) whose text is written inline (|n| < 2**64), checked in C loops."""
    return _INTS.issuperset(map(type, items)) and (not items or (-_BIG < min(items) and max(items) < _BIG))


def _int_list(items: list | tuple) -> bytes:
    """The bytes ``_update`` writes for a list of such ints: the list's tag and length, each int's tag and text."""
    key = tuple(items)  # ints only (``_all_ints``): equal keys are equal lists
    made = _INT_LISTS.get(key)
    if made is None:
        texts = [str(n).encode() for n in key]
        made = b"L" + _LEN_Q(len(key)) + b"".join(b"I" + _LEN_I(len(t)) + t for t in texts)
        if len(key) <= _MAX_KEPT_SIZES and len(_INT_LISTS) < _MAX_INT_LISTS:  # a few KiB at most, in a judge too
            _INT_LISTS[key] = made
    return made


def _named(out: list, cases: dict, fields: dict | None) -> None:
    """A "named cases" field: every case's name, and each case by its record's FIELDS (the names are not
    fields of that record, so hashing the mapping as a record would leave every case out)."""
    out.append(b"M" + _LEN_Q(len(cases)))
    for name in sorted(cases, key=str):
        _update(out, name, None)
        _update(out, cases[name], fields)


def digest(name: str, record: dict, record_class: Any) -> str:
    """The hex SHA-256 of an experiment record's declared fields (the seal itself left out)."""
    h = hashlib.sha256(b"weight_tying evidence seal v1\0" + str(name).encode() + b"\0")
    fields = {k: f for k, f in record_class.FIELDS.items() if k != SEAL}
    out: list = []
    _update(out, {k: v for k, v in record.items() if k != SEAL}, fields)
    h.update(b"".join(out))
    return h.hexdigest()


def resealed(name: str, record: dict, record_class: Any) -> dict:
    """`record` with a fresh seal (for the kit's own tests, which change a record to see a check fail)."""
    return {**record, SEAL: digest(name, record, record_class)}


def verdict(name: str, record: Any, record_class: Any) -> tuple[str, dict] | None:
    """Why a record's seal does not hold, as (its id in the grader's catalog: seal.none, seal.tampered or
    seal.changed; its parameters), or None (judge side; error records carry none and need none)."""
    if not isinstance(record, dict) or "error" in record:
        return None
    seal = record.get(SEAL)
    if not isinstance(seal, str):
        return "seal.none", {}
    if seal.startswith(TAMPERED):
        return "seal.tampered", {"detail": seal[len(TAMPERED) :][:300]}
    if seal != digest(name, record, record_class):
        return "seal.changed", {}
    return None


class Integrity:
    """What the runner's machinery looked like when it was imported, before any student code ran."""

    def __init__(self, modules: Iterable[types.ModuleType], extra: dict[str, Any]) -> None:
        self.places: list[tuple[str, dict, str, Any, Any]] = []
        for module in modules:
            for attr, value in list(vars(module).items()):
                if isinstance(value, (types.FunctionType, type)) and not attr.startswith("__"):
                    self._add(f"{module.__name__}.{attr}", vars(module), attr, value)
                    if isinstance(value, type) and value.__module__ == module.__name__:
                        for name, member in list(vars(value).items()):
                            target = getattr(member, "__func__", member)
                            if isinstance(target, types.FunctionType):
                                self._add(f"{module.__name__}.{attr}.{name}", vars(value), name, member)
        for label, (space, attr) in extra.items():
            self._add(label, space, attr, space[attr])
        # The same, column by column, for ``changed``'s look in C loops (it runs after every experiment: ~250
        # places, each ``__code__`` read an audit event the runner's hook sees): each place's lookup and value, and
        # each function's code.
        self._lookups = [getattr(space, "get", _nothing) for _, space, _, _, _ in self.places]
        self._attrs = [attr for _, _, attr, _, _ in self.places]
        self._values = [value for _, _, _, value, _ in self.places]
        coded = [(getattr(value, "__func__", value), code) for _, _, _, value, code in self.places if code is not None]
        self._functions, self._codes = [f for f, _ in coded], [c for _, c in coded]

    def _add(self, label: str, space: Any, attr: str, value: Any) -> None:
        target = getattr(value, "__func__", value)
        code = getattr(target, "__code__", None) if isinstance(target, types.FunctionType) else None
        self.places.append((label, space, attr, value, code))

    def changed(self) -> list[str]:
        """Labels of what was replaced or had its code rewritten since import ([] when all is as it was)."""
        if all(map(is_, map(call, self._lookups, self._attrs), self._values)) and all(
            map(is_, map(getattr, self._functions, repeat("__code__")), self._codes)
        ):
            return []
        out = []
        for label, space, attr, value, code in self.places:
            now = space.get(attr) if hasattr(space, "get") else None
            target = getattr(value, "__func__", value)
            if now is not value or (code is not None and target.__code__ is not code):
                out.append(label)
        return out


def _nothing(_attr: str) -> None:
    """The lookup of a place that is not a mapping: nothing there (so never the value recorded)."""
    return None


def frame_writers() -> tuple[list[types.ModuleType], dict[str, Any]]:
    """(modules, extra places) for ``Integrity``: what every frame goes through on its way out, the seal itself,
    the frame writer and the record schema, json and safetensors, which write it, and os.write, which sends it
    (a json.dumps rewritten to change a record as it leaves changes what was sealed)."""
    import os
    from json import encoder

    import safetensors.torch

    from autograder.protocol import frames, schema

    names = (__name__, frames.__name__, schema.__name__, "json", encoder.__name__, safetensors.torch.__name__)
    extra = {"os.write": (vars(os), "write"), "torch.save": (vars(torch), "save")}
    # the built-in functions json and safetensors call (no module's Python functions: not found by Integrity)
    extra["json.encoder.encode_basestring_ascii"] = (vars(encoder), "encode_basestring_ascii")
    extra["safetensors.torch.serialize"] = (vars(safetensors.torch), "serialize")
    return module_dicts(*names), extra


def module_dicts(*names: str) -> list[types.ModuleType]:
    """The loaded modules of these names (a name not loaded is skipped)."""
    return [sys.modules[n] for n in names if n in sys.modules]
