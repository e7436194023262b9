"""Trusted: the logits a forward call recorded, read by the hidden-suite tests that need them but do not judge them.

What forward returns is judged by the shape flow tests (``test_*_shapes_and_values``), which name a wrong shape
as the misconception ``logits_shape``. A test of something else that reads those logits (the tie, a count, the
gradient, dropout) cannot judge its own claim on logits of another shape: it fails as a knock-on of the shape
flow test, so the mistake costs once, there, and never again under the tie or the count. Logits of the right
shape that are a MiniGPT's with another num_heads are the hyper-parameter's mistake: a test that cannot judge
them waits on the state_dict test, which names it (``waited_on``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from autograder.graders.weight_tying.diagnosis import close, tie_problem
from autograder.graders.weight_tying.judge.reference import other_heads
from autograder.graders.weight_tying.judge.words import say, title_of
from autograder.grading.judge.suite_api import Failed, plain_tensor, raised_where

__all__ = ["recorded_logits", "construction_logits", "tie_diagnosis", "waited_on", "SIZES_TEST"]

# The test that judges the wrapper's hyper-parameters (its sizes and num_heads), and names one ignored.
SIZES_TEST = "test_wrapper_state_dict_matches_hyperparameters"


def recorded_logits(
    record: Mapping[str, Any], key: str, shape: tuple, *, what, label, shapes_test: str, dtype=torch.float32
) -> torch.Tensor:
    """record[key] as plain (B, T, V) logits of `shape`; a tensor of another shape fails as a knock-on of
    `shapes_test` (what else is wrong with the value, ``plain_tensor`` says under `label`)."""
    value = record.get(key) if isinstance(record, Mapping) else None
    if type(value) is torch.Tensor and tuple(value.shape) != tuple(shape):
        raise Failed(
            say("note.logits_shape_not_checked", what=what, got=tuple(value.shape), want=tuple(shape)),
            waits_on=shapes_test,
        )
    return plain_tensor(record, key, shape=shape, dtype=dtype, what=label)


def waited_on(cfg, shapes, values: int, ids, matches, default: str) -> str:
    """The test a knock-on on logits that differ from the judge's MiniGPT waits on: ``SIZES_TEST`` when they are
    those of a MiniGPT of these sizes with another num_heads (`matches` accepts them), else `default`."""
    return default if other_heads(cfg, shapes, values, ids, matches) is None else SIZES_TEST


def construction_logits(
    record: Mapping[str, Any], shape: tuple, dtype, *, what, shapes_test: str
) -> tuple[torch.Tensor, bool]:
    """(logits, from forward) for a test of the tie or a count: what the constructed model computes with the table
    written (``TableFollow.head_logits``: the head applied to the table's rows, or the wrapper's MiniGPT), never
    waiting on the student's forward. Only a head that is no module one can call (a bare holder of the shared
    Parameter, which forward multiplies by itself) leaves forward's logits to show it; a forward that then
    raised, or returned another shape, is a knock-on of `shapes_test`."""
    head = record.get("head_logits") if isinstance(record, Mapping) else None
    if head is not None:  # the head as built computed something: that is what the tie is judged on
        label = say("judge.label.head_logits", what=what)
        return plain_tensor(record, "head_logits", shape=shape, dtype=dtype, what=label), False
    error = record.get("forward_error") if isinstance(record, Mapping) else None
    if record.get("logits") is None and isinstance(error, str) and error:
        error, at = raised_where(error[:600])
        said = say("judge.identity.forward_raised", what=what, error=error, at=at, test=title_of(shapes_test))
        raise Failed(said, waits_on=shapes_test)
    label = say("judge.label.logits", what=what)
    return recorded_logits(record, "logits", shape, what=what, label=label, shapes_test=shapes_test, dtype=dtype), True


def tie_diagnosis(record: Mapping[str, Any], target: torch.Tensor, *, what="", pos: torch.Tensor | None = None):
    """What a tie record (``TableFollow``) shows of the tie: None when the head followed the judge's `target` table
    written into the embedding and is that Parameter, else the misconception (``diagnosis.tie_problem``: .data
    sharing, a copy, an untied head, tied only after forward, ...). A head the runner could not read is owed."""
    label = say("judge.what_label", what=what, name="lm_head.weight")
    head = plain_tensor(record, "head_after_inplace", dtype=target.dtype, what=label)
    after = record.get("head_after_forward")

    def shows_table(t) -> bool:
        return type(t) is torch.Tensor and t.shape == target.shape and close(t, target, rtol=0, atol=0)

    return tie_problem(
        head_shape=tuple(head.shape),
        table_shape=tuple(target.shape),
        follows=shows_table(head),
        same_object=record.get("head_is_embed") is True,
        same_storage=record.get("same_data_ptr") is True,
        follows_after_forward=shows_table(after),
        pos_shape=None if pos is None else tuple(pos.shape),
        flag_off=record.get("flag_off") is True,  # the wrapper's records only: names an untied MiniGPT as such
    )
