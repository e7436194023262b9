"""Untrusted: the toy grader's experiments: call the student's ``add`` and emit what it returned."""

from __future__ import annotations

import torch

__all__ = ["run"]


def _plain(value) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"add returned a {type(value).__name__}, expected a torch.Tensor")
    return value.detach().clone().as_subclass(torch.Tensor)


def run(namespace: dict, plan: dict, emit) -> None:
    for name, (x, y) in {"same_shape": ("a", "b"), "broadcast": ("col", "row")}.items():
        try:
            emit(name, {"value": _plain(namespace["add"](plan[x], plan[y]))})
        except Exception as exc:  # a student failure is evidence too
            emit(name, {"error": f"{type(exc).__name__}: {exc}"})
