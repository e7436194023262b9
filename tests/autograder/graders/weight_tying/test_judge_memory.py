"""What the judge keeps between two submissions: the plan's own models, and models of reported sizes only within
the small budget of the sizes memo.

One crafted submission (the calibration attack a38) reports the largest sizes the judge rebuilds, different
every time; a judge that memoised those models without a bound kept ~240 MB per submission, until the next
student's judgement ran into the judge's memory limit.
"""

from __future__ import annotations

import gc

import torch

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.judge.models import SIZES_MEMO, cfg_shapes, judge_model
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


def test_models_built_from_crafted_sizes_leave_no_more_than_the_sizes_budget(spec, plan, collect_evidence):
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
    kept = after - before  # the sizes memo may hold up to its budget; nothing else of the crafted judgement
    assert kept < SIZES_MEMO.budget + (16 << 20), f"the judge kept {kept >> 20} MiB after a crafted judgement"
    assert sum(o.points for o in again if o.passed) == 100


def test_a_model_of_reported_sizes_is_kept_for_the_next_student_unless_it_is_too_large(plan):
    cfg = plan["gpt"]["cfg"]
    planned = judge_model(cfg, cfg_shapes(cfg), 11)
    reported = {k: list(v) for k, v in cfg_shapes({**cfg, "hidden_dim": cfg["hidden_dim"] + 3}).items()}
    other = judge_model(cfg, reported, 11)
    huge = {k: list(v) for k, v in cfg_shapes({**cfg, "embed_dim": 256, "num_layers": 8, "hidden_dim": 2048}).items()}
    large = judge_model(cfg, huge, 11)
    assert judge_model(cfg, reported, 11) is other and judge_model(cfg, huge, 11) is large  # built once
    end_judgement()
    assert judge_model(cfg, cfg_shapes(cfg), 11) is planned  # the plan's: every student's judgement shares it
    # the same mistaken sizes in the next submission: the judge's model of them, not built again
    assert judge_model(cfg, {k: tuple(v) for k, v in reported.items()}, 11) is other
    assert judge_model(cfg, huge, 11) is not large  # past the sizes memo's budget: for its judgement only
    assert all(
        type(part) in (str, int, float, bool, bytes, tuple, type(None)) for key in SIZES_MEMO._entries for part in key
    ), "a sizes memo key holds an object a submission sent"
