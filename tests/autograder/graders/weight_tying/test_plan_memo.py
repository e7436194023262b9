"""The fork server's memo of a plan (``AssignmentSpec.plan_ready``, ``runner/warm.plan_ready``): the judge's values
every run of the plan loads, drawn once. A memo only: each value it holds is the one the draw makes, a run that misses
it draws its own, and the experiments send the same evidence, byte for byte, with it or without it."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from autograder.graders import get_assignment
from autograder.graders.weight_tying.runner import experiments, values, warm
from autograder.grading import pipeline
from autograder.protocol.frames import JOB, encode_frame, join_frame, read_frame
from autograder.qa.inprocess import namespace_of
from autograder.sandbox.library import imported, library_copy

SPEC = get_assignment("weight_tying")


@pytest.fixture(autouse=True)
def _no_memo_left():
    values.forget()
    yield
    values.forget()


def _job(seed: int) -> dict:
    """The part every job of the seed's plan holds, decoded as the fork server decodes it."""
    return read_frame(join_frame(JOB, {}, pipeline.job_part(SPEC, SPEC.make_plan(seed))))[1]


def _evidence(path, plan) -> list[bytes]:
    with imported(library_copy(SPEC.withheld)):
        namespace = namespace_of(path)
        frames: list[bytes] = []
        experiments.run(namespace, plan, lambda name, record: frames.append(encode_frame(name, record)))
    return frames


@pytest.mark.parametrize("seed", [3, 20261208])
def test_the_experiments_send_the_same_evidence_with_the_memo_as_without(seed):
    job = _job(seed)
    drawn = _evidence(SPEC.solution_path, job["plan"])
    warm.plan_ready(job)
    assert values._DRAWN and values._TABLES  # every load and table of the plan's configurations
    held = dict(values._DRAWN)
    copied = _evidence(SPEC.solution_path, job["plan"])
    assert copied == drawn
    assert values._DRAWN.keys() == held.keys()  # the solution's loads were all in it: nothing drawn and added


def test_a_model_of_other_shapes_draws_its_own_values_as_before():
    warm.plan_ready(_job(3))
    wrong = SPEC.calibration_dir / "wrong" / "w13_ignores_embed_dim.py"
    with_memo = _evidence(wrong, _job(3)["plan"])
    values.forget()
    assert _evidence(wrong, _job(3)["plan"]) == with_memo


def test_each_remembered_value_is_the_draw_itself_and_a_table_handed_out_is_a_copy():
    shapes = {"token_embed.weight": [7, 5], "lm_head.weight": [7, 5], "blocks.0.ln1.weight": [5], "b.bias": [5]}
    values.remember(11, shapes, gain=0.5)
    values.remember_table(12, (7, 5))
    assert len(values._DRAWN) == 3  # the tied head's values are its table's: one entry
    for key, shape in shapes.items():
        kept = values._DRAWN[(11, values._SAME_AS.get(key, key), tuple(shape), 0.5)]
        assert torch.equal(kept, values.judge_values(11, key, shape, gain=0.5))
    drawn = values._drawn_table(12, (7, 5), 1.0, values.TABLE_NORMS)
    handed = values.judge_table(12, (7, 5))
    assert torch.equal(handed, drawn)
    handed.zero_()  # a caller that writes into its table changes no later caller's
    assert torch.equal(values.judge_table(12, (7, 5)), drawn)
    values.forget()
    assert not values._DRAWN and not values._TABLES


def test_plan_ready_with_none_forgets_the_plan():
    warm.plan_ready(_job(3))
    warm.plan_ready(None)
    assert not values._DRAWN and not values._TABLES


def test_plan_ready_puts_back_the_random_state_its_builds_draw_from():
    torch.manual_seed(5)
    before = torch.get_rng_state()
    warm.plan_ready(_job(3))
    assert torch.equal(torch.get_rng_state(), before)


@pytest.mark.parametrize("value", ["os:system", f"{SPEC.runner_package}.warm", "autograder.graders.kit:plan_ready"])
def test_a_plan_ready_outside_the_runner_package_is_refused_by_name(value):
    with pytest.raises(ValueError, match=f"plan_ready={value!r}.*{SPEC.runner_package}"):
        dataclasses.replace(SPEC, plan_ready=value)
