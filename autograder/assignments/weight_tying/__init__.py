"""The weight_tying assignment: token embedding and LM head sharing one table (chapter 18.4)."""
from __future__ import annotations

from pathlib import Path

from autograder.spec import AssignmentSpec

__all__ = ["SPEC"]

_HERE = Path(__file__).resolve().parent
_REPO = _HERE.parents[2]


def _make_plan(seed: int) -> dict:
    # Imported lazily: the runner imports this package (for `experiments`) and must not need the
    # judge's reference or dnnlpy's MiniGPT to do so.
    from .plan import make_plan

    return make_plan(seed)


SPEC = AssignmentSpec(
    name="weight_tying",
    required_names=("TiedEmbeddingLM", "MiniGPTWithWeightTying"),
    make_plan=_make_plan,
    experiments="autograder.assignments.weight_tying.experiments:run",
    suite_dir=_HERE / "suite",
    solution_path=_REPO / "solutions" / "weight_tying.py",
    calibration_dir=_REPO / "autograder" / "calibration" / "weight_tying",
)
