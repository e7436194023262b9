"""A toy assignment that exercises the grading engine end to end (and shows how to write one).

Contract: a submission defines ``add(a, b)`` returning ``a + b`` for float tensors (broadcasting included).
The plan (trusted) draws the tensors, ``experiments.run`` (untrusted runner) calls ``add`` and emits plain
tensors, and ``suite/`` (trusted judge) recomputes ``a + b`` from the plan.
"""
from __future__ import annotations

from pathlib import Path

from autograder.spec import AssignmentSpec

__all__ = ["SPEC", "make_plan"]

_HERE = Path(__file__).resolve().parent


def make_plan(seed: int) -> dict:
    import torch  # here, not at import: the registry is read before the runner starts

    gen = torch.Generator().manual_seed(seed)
    return {"a": torch.randn(3, 4, generator=gen), "b": torch.randn(3, 4, generator=gen),
            "col": torch.randn(3, 1, generator=gen), "row": torch.randn(1, 5, generator=gen)}


SPEC = AssignmentSpec(
    name="selftest",
    required_names=("add",),
    make_plan=make_plan,
    experiments="autograder.assignments.selftest.experiments:run",
    suite_dir=_HERE / "suite",
    solution_path=_HERE / "solution.py",
    calibration_dir=_HERE / "calibration",
)
