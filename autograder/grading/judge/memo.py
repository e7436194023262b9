"""Trusted: the judge's memos, bounded in bytes, and the end of a judgement that empties the per-judgement ones.

A judge grades many submissions in one process (the warm pool's judge, the fresh path's), so whatever it
keeps between two submissions must not depend on the first one's evidence (sizes aside, in a small budget of
their own): one student's crafted evidence would otherwise fill the judge, and the next student would pay for
it at the judge's memory limit. Three kinds of memo, each least recently used first out past its byte budget:

- ``Memo("plan", ...)``: work that depends on the plan alone (the same for every student of a batch);
  kept across submissions.
- ``Memo("sizes", ...)``: work that depends on the plan and on sizes a submission reported (the judge's own
  model of those sizes, its outputs for the plan's ids): nothing of the evidence but the sizes, and those only
  as a digest in the key. Kept across submissions, since a class repeats the same mistaken sizes; its budget
  is small and its own, so a submission that reports ever new sizes evicts only entries of sizes.
- ``Memo("judgement", ...)``: work keyed on anything else a submission reported (a record); emptied by
  ``end_judgement()``, which the suite runner calls when a submission's judgement ends (``judge.suite``).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = ["Memo", "SCOPES", "nbytes", "end_judgement"]

SCOPES = ("plan", "sizes", "judgement")
_ENTRY = 256  # bytes counted for an entry besides its tensors: many tiny entries add up too
_JUDGEMENT_MEMOS: weakref.WeakSet = weakref.WeakSet()


def nbytes(value: Any, seen: set | None = None) -> int:
    """Roughly what `value` holds in memory: its tensors' storages (each counted once: a tied table is one),
    modules' parameters, gradients and buffers, containers' items; a small constant for anything else."""
    import torch

    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        total = 0
        for tensor in (value, value.grad) if value.grad is not None else (value,):
            storage = tensor.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
        return total + 64
    if isinstance(value, torch.nn.Module):
        tensors = [*value.parameters(), *value.buffers()]
        return sum(nbytes(t, seen) for t in tensors) + 64 * len(list(value.modules()))
    if isinstance(value, dict):
        return sum(nbytes(k, seen) + nbytes(v, seen) for k, v in value.items()) + 64
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(nbytes(v, seen) for v in value) + 64
    return 64


class Memo:
    """compute() once per hashable key, the least recently used entries dropped past `budget` bytes.

    `scope` "plan": entries stay across submissions (key them on the plan only); "sizes": they stay too (key
    them on the plan and a digest of reported sizes); "judgement": entries are dropped when the judgement ends
    (``end_judgement``). An entry larger than the whole budget is computed and returned, never kept. Callers
    must not change what they get back.

    `measure(value)`: the bytes a value holds that the memo alone keeps alive (``nbytes`` by default); each entry
    counts a small constant besides. A memo whose values only point at what the judgement holds anyway (the
    evidence's own records) measures them as 0, and its budget then bounds its number of entries.
    """

    def __init__(self, scope: str, budget: int, *, measure: Callable[[Any], int] = nbytes) -> None:
        if scope not in SCOPES:
            raise ValueError(f"scope={scope!r}: choose one of {', '.join(SCOPES)}")
        if budget <= 0:
            raise ValueError(f"budget={budget!r}: give a positive number of bytes")
        self.scope, self.budget, self._measure = scope, int(budget), measure
        self._entries: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self.held = 0  # bytes of the entries kept
        if scope == "judgement":
            _JUDGEMENT_MEMOS.add(self)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Any) -> bool:
        return key in self._entries

    def get(self, key: Any, compute: Callable[[], Any]) -> Any:
        hit = self._entries.get(key)
        if hit is not None:
            self._entries.move_to_end(key)
            return hit[0]
        value = compute()
        size = self._measure(value) + _ENTRY
        if size > self.budget:
            return value
        self._entries[key] = (value, size)
        self.held += size
        while self.held > self.budget:
            _, (_, dropped) = self._entries.popitem(last=False)
            self.held -= dropped
        return value

    def clear(self) -> None:
        self._entries.clear()
        self.held = 0


def end_judgement() -> None:
    """A submission's judgement is over: forget everything any judgement-scoped memo holds."""
    for memo in list(_JUDGEMENT_MEMOS):
        memo.clear()
