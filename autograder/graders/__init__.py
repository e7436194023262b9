"""Both sides: the graders this kit knows, one folder per nbgrader assignment (``get_assignment(name)``).

Each grader is a subpackage (see ``autograder.graders.spec``) whose ``spec`` module exports ``SPEC``; it is imported
only when asked for (no side effects at import of this package, which the sandbox imports too), so one
broken grader never stops another from being graded.
"""

from __future__ import annotations

import importlib

__all__ = ["ASSIGNMENTS", "get_assignment", "all_specs", "editions_of", "unknown_assignment"]

# nbgrader assignment name -> module exporting SPEC. "selftest" is a toy that exercises the engine itself.
# Editions of one assignment in other languages are nbgrader assignments of their own, graded by the same
# grader (which reads each submission's language from the file: autograder.grading.language).
ASSIGNMENTS: dict[str, str] = {
    "weight_tying": "autograder.graders.weight_tying.spec",
    "weight_tying_zh": "autograder.graders.weight_tying.spec",
    "selftest": "autograder.graders.selftest.spec",
}


def unknown_assignment(name: str) -> str | None:
    """Why `name` is not an assignment of this kit, naming the ones it is; None for a known one."""
    if name in ASSIGNMENTS:
        return None
    return f"unknown assignment {name!r}: choose one of {', '.join(sorted(ASSIGNMENTS))} (--assignment NAME)"


def get_assignment(name: str):
    """The AssignmentSpec registered under `name`; ValueError naming the known ones otherwise."""
    from autograder.graders.spec import AssignmentSpec

    if error := unknown_assignment(name):
        raise ValueError(error)
    spec = importlib.import_module(ASSIGNMENTS[name]).SPEC
    if not isinstance(spec, AssignmentSpec):
        raise TypeError(f"{ASSIGNMENTS[name]}.SPEC is a {type(spec).__name__}, expected an AssignmentSpec")
    return spec


def editions_of(name: str) -> tuple[str, ...]:
    """Every assignment name graded by the same grader as `name` (itself first): its editions."""
    if error := unknown_assignment(name):
        raise ValueError(error)
    return (name, *(other for other, module in ASSIGNMENTS.items() if module == ASSIGNMENTS[name] and other != name))


def all_specs() -> list:
    """Every grader that imports cleanly (used to hide all judges from every sandbox)."""
    specs = []
    for name in dict.fromkeys(ASSIGNMENTS):
        try:
            spec = get_assignment(name)
            if spec not in specs:  # editions share one grader
                specs.append(spec)
        except Exception:  # a half-written grader must not stop grading another
            continue
    return specs
