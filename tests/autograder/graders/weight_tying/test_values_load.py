"""load_judge_values writes the judge's values in place and reports the shapes of the state it wrote, taking the
module's state_dict once (a second one cost as much again, ~20 times per submission)."""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.runner.values import judge_values, load_judge_values, state_shapes
from dnnlpy.models.gpt import MiniGPT


class _Counting(MiniGPT):
    calls = 0

    def state_dict(self, *args, **kwargs):
        type(self).calls += 1
        return super().state_dict(*args, **kwargs)


def test_one_state_dict_per_load_and_the_same_shapes():
    torch.manual_seed(0)
    model = _Counting(11, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16, weight_tying=True)
    _Counting.calls = 0
    shapes = load_judge_values(model, 5)
    assert _Counting.calls == 1
    assert shapes == state_shapes(model)
    assert torch.equal(model.token_embed.weight, judge_values(5, "token_embed.weight", (11, 8)))
    assert model.lm_head.weight is model.token_embed.weight  # written in place: the tie holds
