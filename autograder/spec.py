"""What the engine needs to know about one assignment.

The engine is assignment-agnostic: an assignment brings a plan maker (trusted, runs in the grader), an
experiments function (runs inside the untrusted runner, next to student code) and a pytest suite that
judges the evidence those experiments emitted (trusted, never imports student code).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

# A plan and an evidence record hold only what `torch.load(weights_only=True)` accepts:
# tensors, ints, floats, bools, str, None, and lists/tuples/dicts of these.
Plan = dict[str, Any]
Record = dict[str, Any]
Emit = Callable[[str, Record], None]


@dataclass(frozen=True)
class AssignmentSpec:
    name: str  # the nbgrader assignment name, e.g. "weight_tying"
    required_names: tuple[str, ...]  # classes a submission must define
    make_plan: Callable[[int], Plan]  # seed -> the experiments' random choices (trusted side)
    experiments: str  # "package.module:function", called in the runner as fn(namespace, plan, emit)
    suite_dir: Path  # hidden pytest files that judge the evidence (fixtures: plan, evidence, run)
    solution_path: Path  # reference answer, graded by `calibrate` and the timing check
    calibration_dir: Path  # correct/, wrong/, attacks/ submissions that test the tests
