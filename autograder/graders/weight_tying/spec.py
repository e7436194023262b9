"""Trusted: the weight_tying grader as the engine sees it (``SPEC``)."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.spec import AssignmentSpec
from autograder.graders.weight_tying import messages
from autograder.graders.weight_tying.released_demos import DIGESTS
from autograder.grading.marking import load_scheme

__all__ = ["SPEC"]

_HERE = Path(__file__).resolve().parent


def _make_plan(seed: int) -> dict:
    # Imported when called: reading the registry must not import torch or the judge's reference.
    from autograder.graders.weight_tying.judge.plan import make_plan

    return make_plan(seed)


SPEC = AssignmentSpec(
    name="weight_tying",
    required_names=("TiedEmbeddingLM", "MiniGPTWithWeightTying"),
    make_plan=_make_plan,
    experiments="autograder.graders.weight_tying.runner.experiments:run",
    judge_dir=_HERE / "judge",
    solution_path=SOLUTIONS_DIR / "weight_tying.py",
    catalog=messages,
    scheme=load_scheme(_HERE / "marking.toml"),
    languages=messages.LANGUAGES,
    # The notebook's imports (matplotlib.pyplot is most of a run's import time) and the library it builds on.
    warm_imports=("matplotlib", "matplotlib.pyplot", "dnnlpy.nn", "dnnlpy.models.gpt", "dnnlpy.tokenizers", "numpy"),
    # generate is exercise 2's loop: the library's decoder is not there to hand it to
    # a first figure, a first training and MiniGPT's first forward and backward, paid once in each fork server
    warm_up="autograder.graders.weight_tying.runner.warm:warm_up",
    # the judge's values each run loads into the student's MiniGPT, drawn once a plan in each fork server
    plan_ready="autograder.graders.weight_tying.runner.warm:plan_ready",
    withheld=("dnnlpy.models.gpt:MiniGPT.generate", "dnnlpy.models.sampling"),
    released_demos=DIGESTS,  # recorded by scripts/build_notebook.py from both editions' notebooks
    released_facts=json.loads((_HERE / "released_facts.json").read_text(encoding="utf-8"))["facts"],  # the same
    title="Weight Tying",  # the chapter's name for it (18.4.5), as both editions' notebooks title it
)
