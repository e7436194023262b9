"""What the judge keeps between two submissions: the plan's own models, never what a submission's sizes made.

One crafted submission (the calibration attack a38) reports the largest sizes the judge rebuilds, different
every time; a judge that memoised those models kept ~240 MB per submission, until the next student's
judgement ran into the judge's memory limit.
"""

from __future__ import annotations

import gc

import torch

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.judge.models import cfg_shapes, judge_model
from autograder.grading.judge.memo import end_judgement
from autograder.grading.judge.suite import Suite

ATTACK = "attacks/a38_judge_growth.py"


def _live_tensor_bytes() -> int:
    """Bytes of every tensor storage this process can still reach."""
    gc.collect()
    seen, total = set(), 0
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.device.type == "cpu":
            storage = obj.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
    return total


def test_models_built_from_reported_sizes_do_not_outlive_the_judgement(spec, plan, collect_evidence):
    honest = collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)
    crafted = collect_evidence(spec.calibration_dir / ATTACK, plan)
    suite = Suite.load(spec.suite_dir, spec.scheme)  # the warm judge's way: modules kept for the plan
    try:
        assert sum(o.points for o in suite.run(plan=plan, evidence=honest, run={"status": "ok"}) if o.passed) == 100
        before = _live_tensor_bytes()
        outcomes = list(suite.run(plan=plan, evidence=crafted, run={"status": "ok"}))
        after = _live_tensor_bytes()
        again = list(suite.run(plan=plan, evidence=honest, run={"status": "ok"}))
    finally:
        suite.close()
    assert [o.name for o in outcomes if o.passed] == []  # an attack earns nothing
    assert after - before < 16 << 20, f"the judge kept {(after - before) >> 20} MiB after a crafted judgement"
    assert sum(o.points for o in again if o.passed) == 100


def test_a_model_of_the_plans_sizes_is_shared_and_one_of_reported_sizes_is_not(plan):
    cfg = plan["gpt"]["cfg"]
    planned = judge_model(cfg, cfg_shapes(cfg), 11)
    reported = {k: list(v) for k, v in cfg_shapes({**cfg, "hidden_dim": cfg["hidden_dim"] + 3}).items()}
    other = judge_model(cfg, reported, 11)
    assert judge_model(cfg, reported, 11) is other  # within one judgement: built once
    end_judgement()
    assert judge_model(cfg, cfg_shapes(cfg), 11) is planned  # the plan's: every student's judgement shares it
    assert judge_model(cfg, reported, 11) is not other  # a submission's sizes: built again for the next one
