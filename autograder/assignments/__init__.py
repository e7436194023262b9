"""The assignments this grader knows: ``get_assignment(name) -> AssignmentSpec``.

Each assignment is a subpackage exporting ``SPEC``; it is imported only when asked for (no side effects at
import of this package), so one broken assignment never stops another from being graded.
"""
from __future__ import annotations

import importlib

from autograder.spec import AssignmentSpec

__all__ = ["ASSIGNMENTS", "get_assignment", "all_specs"]

# name -> module exporting SPEC. "selftest" is a toy assignment that exercises the engine itself.
ASSIGNMENTS: dict[str, str] = {
    "weight_tying": "autograder.assignments.weight_tying",
    "selftest": "autograder.assignments.selftest",
}


def get_assignment(name: str) -> AssignmentSpec:
    """The AssignmentSpec registered under `name`; ValueError naming the known ones otherwise."""
    if name not in ASSIGNMENTS:
        raise ValueError(f"unknown assignment {name!r}: choose one of {', '.join(sorted(ASSIGNMENTS))}")
    spec = importlib.import_module(ASSIGNMENTS[name]).SPEC
    if not isinstance(spec, AssignmentSpec):
        raise TypeError(f"{ASSIGNMENTS[name]}.SPEC is a {type(spec).__name__}, expected an AssignmentSpec")
    return spec


def all_specs() -> list[AssignmentSpec]:
    """Every assignment that imports cleanly (used to hide all hidden suites from every sandbox)."""
    specs = []
    for name in ASSIGNMENTS:
        try:
            specs.append(get_assignment(name))
        except Exception:  # noqa: BLE001 - a half-written assignment must not stop grading another
            continue
    return specs
