"""Trusted: the toy selftest grader as the engine sees it (``SPEC``), with its plan maker."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.selftest import messages
from autograder.graders.selftest.released_demos import DIGESTS
from autograder.graders.spec import AssignmentSpec
from autograder.grading.marking import load_scheme

__all__ = ["SPEC", "make_plan"]

_HERE = Path(__file__).resolve().parent


def make_plan(seed: int) -> dict:
    import torch  # here, not at import: the registry is read before the runner starts

    gen = torch.Generator().manual_seed(seed)
    return {
        "a": torch.randn(3, 4, generator=gen),
        "b": torch.randn(3, 4, generator=gen),
        "col": torch.randn(3, 1, generator=gen),
        "row": torch.randn(1, 5, generator=gen),
    }


SPEC = AssignmentSpec(
    name="selftest",
    required_names=("add",),
    make_plan=make_plan,
    experiments="autograder.graders.selftest.runner.experiments:run",
    judge_dir=_HERE / "judge",
    solution_path=SOLUTIONS_DIR / "selftest.py",  # the notebook's solution cell too (scripts/selftest_notebook/)
    catalog=messages,
    scheme=load_scheme(_HERE / "marking.toml"),
    released_demos=DIGESTS,  # recorded by scripts/build_notebook.py --assignment selftest from its notebook
    released_facts=json.loads((_HERE / "released_facts.json").read_text(encoding="utf-8"))["facts"],  # the same
)
