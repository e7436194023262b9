"""Trusted: the evidence unpickler: walks a frame's pickle opcode by opcode, calls nothing, builds plain values.

``torch.load(weights_only=True)`` refuses arbitrary objects, but not costly plain ones: a 1.7 KB pickle of
lists that share one another (a DAG of 2**60 leaves once printed), a dict keyed by such tuples (hashing walks
every leaf), a tensor whose size claims 10**10 elements over a one-element storage (stride 0), a storage
claiming more bytes than its record holds. So the grader does not run a pickle at all: it reads the opcodes
with ``pickletools.genops`` and builds the values itself, accepting only what the runner's ``torch.save``
writes (protocol 2):

- containers, str/int/float/bool/None, the memo; GLOBAL + REDUCE only for ``collections.OrderedDict()``
  (built as a plain dict) and ``torch._utils._rebuild_tensor_v2``; BINPERSID only for CPU storages of
  the dtypes in ``ALLOWED_DTYPES``. Nothing named in the pickle is ever imported or called;
- a memo reference may repeat a string, a number or a global, never a container or a tensor: the value
  is a tree (no sharing, no cycle), so its size, depth and printed length are what was counted;
- dict keys are str, int, bool or None (hashing one costs O(1)); ints fit in 64 bits; strings are bounded
  and lone surrogates repaired, so any output can encode them;
- a tensor's storage must hold exactly the bytes it claims and the view must fit inside it. It is built
  as a fresh contiguous CPU tensor (a bool tensor normalised to 0/1), paid for at its full size before
  any allocation, so an expanded (stride-0) view costs every element it shows.

Every bound of ``EvidenceBounds`` is checked as the walk goes; a breach raises ``Refused``.
"""

from __future__ import annotations

import math
import pickletools
from typing import Any

from autograder.protocol.bounds import ALLOWED_DTYPES, EvidenceBounds, Refused

__all__ = ["Facts", "unpickle"]

_ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2}
_ITEMSIZE |= {"int8": 1, "uint8": 1, "bool": 1}
_ODICT, _REBUILD = "collections OrderedDict", "torch._utils _rebuild_tensor_v2"
_GLOBALS = {_ODICT, _REBUILD} | {f"torch {s}" for s in ALLOWED_DTYPES}
_INT64 = 1 << 63
_MALFORMED = (ValueError, IndexError, KeyError, TypeError, OverflowError, UnicodeDecodeError, RuntimeError)


class _V:
    """A value on the machine's stack: its kind, the value built so far, a tuple's parts, nesting depth."""

    __slots__ = ("kind", "value", "parts", "depth")

    def __init__(self, kind: str, value: Any = None, parts: list | None = None, depth: int = 0) -> None:
        self.kind, self.value, self.parts, self.depth = kind, value, parts, depth


_MARK = _V("mark")


class Facts:
    """What decoding a frame saw and spent: the record's name (as soon as the pickle said it), zip members,
    opcodes, values, characters, plain tensor bytes."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.members = self.ops = self.nodes = self.chars = self.tensor_bytes = 0


def unpickle(data: bytes, storages: dict[str, bytes], bounds: EvidenceBounds, facts: Facts) -> dict:
    """The frame {"name": str, "record": dict} that `data` pickles, built plain; Refused when out of bounds.

    `storages` maps the archive's storage keys to their bytes; `facts` is filled as the walk goes, so the
    caller learns the record's name even when the frame is refused.
    """
    machine = _Machine(storages, bounds, facts)
    try:
        for op, arg, _ in pickletools.genops(data):
            facts.ops += 1
            if facts.ops > bounds.pickle_ops:
                raise Refused(f"the pickle has over {bounds.pickle_ops} opcodes")
            if op.name == "STOP":
                return machine.stop()
            handler = _HANDLERS.get(op.name)
            if handler is None:
                raise Refused(f"opcode {op.name} is not part of plain evidence")
            handler(machine, arg)
    except Refused:
        raise
    except _MALFORMED as exc:
        raise Refused(f"the pickle is malformed ({type(exc).__name__})") from None
    raise Refused("the pickle has no STOP")


class _Machine:
    def __init__(self, storages: dict[str, bytes], bounds: EvidenceBounds, facts: Facts) -> None:
        self.storages, self.bounds, self.facts = storages, bounds, facts
        self.stack: list[_V] = []
        self.marks: list[int] = []
        self.memo: dict[int, _V] = {}
        self.bases: dict[tuple[str, str], Any] = {}  # (storage key, dtype) -> a flat tensor over its bytes

    # ------------------------------------------------------------------ the stack

    def push(self, value: _V) -> None:
        facts = self.facts
        facts.nodes += 1
        if facts.nodes > self.bounds.nodes:
            raise Refused(f"the record holds over {self.bounds.nodes} values")
        if value.kind == "str":
            facts.chars += len(value.value)
            if facts.chars > self.bounds.total_chars:
                raise Refused(f"the record's strings add up to over {self.bounds.total_chars} characters")
        self.stack.append(value)
        s = self.stack  # torch.save({"name": n, ...}): the stack reads [dict, MARK, "name", n] once n is pushed
        if len(s) == 4 and facts.name is None and s[1] is _MARK and s[0].kind == "dict" and s[2].kind == "str":
            facts.name = value.value if value.kind == "str" and s[2].value == "name" else None

    def pop(self) -> _V:
        if not self.stack or (self.marks and len(self.stack) <= self.marks[-1]):
            raise Refused("the pickle pops past its stack or a MARK")
        return self.stack.pop()

    def pop_mark(self) -> list[_V]:
        if not self.marks:
            raise Refused("the pickle closes a MARK it never opened")
        start = self.marks.pop()
        items = self.stack[start:]
        del self.stack[start - 1 :]  # the items and the MARK itself
        return items

    def top(self, kind: str) -> _V:
        if not self.stack or self.stack[-1].kind != kind or (self.marks and len(self.stack) <= self.marks[-1]):
            raise Refused(f"the pickle adds to something that is not a {kind}")
        return self.stack[-1]

    def nest(self, box: _V, children: list[_V]) -> None:
        """Check that `children` may go into `box` (plain, not too deep); the caller adds them."""
        for child in children:
            if child.kind in ("mark", "global", "storage") or (child.kind == "tuple" and child.value is None):
                raise Refused(f"a {box.kind} holds a {child.kind} that is not plain evidence")
            box.depth = max(box.depth, child.depth + 1)
        if box.depth > self.bounds.depth:
            raise Refused(f"the record is nested over {self.bounds.depth} levels deep")

    def tuple_of(self, parts: list[_V]) -> None:
        box = _V("tuple", parts=parts, depth=1)
        raw = any(p.kind in ("mark", "global", "storage") or (p.kind == "tuple" and p.value is None) for p in parts)
        if not raw:  # a plain tuple; a raw one (a storage id, REDUCE's arguments) never becomes evidence
            self.nest(box, parts)
            box.value = tuple(p.value for p in parts)
        if any(p is _MARK for p in parts):
            raise Refused("the pickle misplaces a MARK")
        self.push(box)

    def stop(self) -> dict:
        if len(self.stack) != 1 or self.marks or self.stack[0].kind != "dict":
            raise Refused("the pickle does not end with one dict")
        frame = self.stack[0].value
        if sorted(frame) != ["name", "record"] or type(frame["name"]) is not str or type(frame["record"]) is not dict:
            raise Refused("a frame must be {'name': str, 'record': dict}")
        self.facts.name = frame["name"]
        return frame

    # ------------------------------------------------------------------ storages and tensors

    def storage(self, pid: _V) -> _V:
        parts = pid.parts if pid.kind == "tuple" else []
        if [p.kind for p in parts] != ["str", "global", "str", "str", "atom"] or parts[0].value != "storage":
            raise Refused("a persistent id that is not a torch storage")
        storage_type, key, location, numel = (p.value for p in parts[1:])
        dtype = ALLOWED_DTYPES.get(storage_type.partition(" ")[2])
        if dtype is None:
            raise Refused(f"storage type {storage_type!r} is not allowed in evidence")
        if location != "cpu":
            raise Refused(f"a storage on {location[:40]!r}: evidence tensors live on the CPU")
        if key not in self.storages:
            raise Refused(f"storage {key[:40]!r} has no record in the archive")
        if type(numel) is not int or numel * _ITEMSIZE[dtype] != len(self.storages[key]):
            raise Refused(f"storage {key[:40]!r} claims another size than its record holds")
        return _V("storage", (dtype, numel, key))

    def tensor(self, args: list[_V]) -> _V:
        """_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks): a checked copy."""
        if len(args) != 6:
            raise Refused("a tensor rebuilt with extra metadata or missing arguments")
        storage, offset, size, stride, requires_grad, hooks = args
        if storage.kind != "storage" or not _is_int(offset) or type(requires_grad.value) is not bool:
            raise Refused("a tensor rebuilt from something that is not a storage view")
        if hooks.kind != "dict" or hooks.value:
            raise Refused("a tensor with backward hooks")
        if size.kind != "tuple" or stride.kind != "tuple" or not all(map(_is_int, size.parts + stride.parts)):
            raise Refused("a tensor whose size or stride is not a tuple of ints")
        shape, steps, start = [p.value for p in size.parts], [p.value for p in stride.parts], offset.value
        if len(shape) != len(steps) or len(shape) > self.bounds.tensor_dims:
            raise Refused(f"a tensor of {len(shape)} dimensions (bound {self.bounds.tensor_dims}) or odd strides")
        if min([*shape, *steps, start]) < 0:
            raise Refused("a tensor with a negative size, stride or offset")
        dtype, capacity, key = storage.value
        numel = math.prod(shape)
        end = start + 1 + sum((n - 1) * s for n, s in zip(shape, steps, strict=True)) if numel else start
        if end > capacity:
            raise Refused("a tensor view reaches past the end of its storage")
        self.facts.tensor_bytes += numel * _ITEMSIZE[dtype]  # its size once contiguous: expansions pay in full
        if self.facts.tensor_bytes > self.bounds.tensor_bytes:
            raise Refused(f"the record's tensors add up to over {self.bounds.tensor_bytes} bytes once made plain")
        return _V("tensor", self._build(dtype, key, shape, steps, start))

    def _build(self, dtype: str, key: str, shape: list[int], steps: list[int], start: int) -> Any:
        import torch

        if math.prod(shape) == 0:
            return torch.empty(shape, dtype=getattr(torch, dtype))
        if (key, dtype) not in self.bases:  # one flat tensor over the record's own bytes; views are cloned out
            flat = torch.frombuffer(bytearray(self.storages[key]), dtype=torch.uint8)
            self.bases[key, dtype] = flat if dtype == "bool" else flat.view(getattr(torch, dtype))
        view = self.bases[key, dtype].as_strided(shape, steps, start)
        # clone: fresh contiguous memory, nothing shared with another tensor; bool bytes other than 0/1 become 1
        return view.ne(0) if dtype == "bool" else view.clone(memory_format=torch.contiguous_format)


def _is_int(value: _V) -> bool:
    return value.kind == "atom" and type(value.value) is int


def _atom(m: _Machine, value: Any) -> None:
    if type(value) is int and not -_INT64 <= value < _INT64:
        raise Refused("an integer outside the 64-bit range")
    m.push(_V("atom", value))


def _string(m: _Machine, text: str) -> None:
    if len(text) > m.bounds.string_chars:
        raise Refused(f"a string of {len(text)} characters, over the bound of {m.bounds.string_chars}")
    m.push(_V("str", text.encode("utf-8", "backslashreplace").decode("utf-8")))  # a lone surrogate: the text \udcff


def _mark(m: _Machine, _: None) -> None:
    m.stack.append(_MARK)
    m.marks.append(len(m.stack))


def _append(m: _Machine, children: list[_V]) -> None:
    box = m.top("list")
    m.nest(box, children)
    box.value.extend(c.value for c in children)


def _setitems(m: _Machine, items: list[_V]) -> None:
    if len(items) % 2:
        raise Refused("SETITEMS with an odd number of values")
    box = m.top("dict")
    for key in items[::2]:
        if key.kind != "str" and (key.kind != "atom" or type(key.value) is float):
            kind = type(key.value).__name__ if key.kind == "atom" else key.kind
            raise Refused(f"a dict key is a {kind}: evidence keys are str, int, bool or None")
    m.nest(box, items)
    for key, value in zip(items[::2], items[1::2], strict=True):
        box.value[key.value] = value.value


def _put(m: _Machine, index: int) -> None:
    if not m.stack or m.stack[-1] is _MARK:
        raise Refused("the pickle memoizes nothing")
    m.memo[index] = m.stack[-1]


def _get(m: _Machine, index: int) -> None:
    value = m.memo.get(index)
    if value is None:
        raise Refused("the pickle refers to a memo entry it never made")
    if value.kind not in ("str", "atom", "global"):
        # The runner never sends one object twice: a repeated container or tensor is a DAG or a cycle.
        raise Refused(f"a {value.kind} is referenced twice (a shared or cyclic structure)")
    m.push(value)


def _global(m: _Machine, name: str) -> None:
    if name not in _GLOBALS:
        raise Refused(f"global {name[:80]!r} is not part of plain evidence")
    m.push(_V("global", name))


def _reduce(m: _Machine, _: None) -> None:
    args, func = m.pop(), m.pop()
    if func.kind != "global" or args.kind != "tuple" or func.value not in (_ODICT, _REBUILD):
        raise Refused("REDUCE of something that is not OrderedDict or a tensor")
    if func.value == _ODICT:
        if args.parts:
            raise Refused("OrderedDict built from arguments")
        m.push(_V("dict", {}, depth=1))
    else:
        m.push(m.tensor(args.parts))


def _proto(m: _Machine, version: int) -> None:
    if version != 2:
        raise Refused(f"pickle protocol {version}: torch.save writes protocol 2")


_HANDLERS = {
    "PROTO": _proto,
    "MARK": _mark,
    "EMPTY_DICT": lambda m, _: m.push(_V("dict", {}, depth=1)),
    "EMPTY_LIST": lambda m, _: m.push(_V("list", [], depth=1)),
    "EMPTY_TUPLE": lambda m, _: m.tuple_of([]),
    "TUPLE": lambda m, _: m.tuple_of(m.pop_mark()),
    "TUPLE1": lambda m, _: m.tuple_of([m.pop()]),
    "TUPLE2": lambda m, _: m.tuple_of(list(reversed([m.pop(), m.pop()]))),
    "TUPLE3": lambda m, _: m.tuple_of(list(reversed([m.pop(), m.pop(), m.pop()]))),
    "APPEND": lambda m, _: _append(m, [m.pop()]),
    "APPENDS": lambda m, _: _append(m, m.pop_mark()),
    "SETITEM": lambda m, _: _setitems(m, list(reversed([m.pop(), m.pop()]))),
    "SETITEMS": lambda m, _: _setitems(m, m.pop_mark()),
    "BINPUT": _put,
    "LONG_BINPUT": _put,
    "BINGET": _get,
    "LONG_BINGET": _get,
    "BINUNICODE": _string,
    "SHORT_BINUNICODE": _string,
    "BININT": _atom,
    "BININT1": _atom,
    "BININT2": _atom,
    "LONG1": _atom,
    "BINFLOAT": _atom,
    "NONE": lambda m, _: _atom(m, None),
    "NEWTRUE": lambda m, _: _atom(m, True),
    "NEWFALSE": lambda m, _: _atom(m, False),
    "GLOBAL": _global,
    "REDUCE": _reduce,
    "BINPERSID": lambda m, _: m.push(m.storage(m.pop())),
}
