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


class _Seen(torch.Tensor):
    """A tensor subclass that notes the operations called on it (a student's Parameter subclass would)."""

    ops: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.ops.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


def _values_of(model) -> dict:
    return {k: v.clone() for k, v in model.state_dict().items() if v.is_floating_point()}


def test_every_entry_holds_exactly_the_judges_values_whatever_its_layout_and_dtype():
    torch.manual_seed(0)
    tied = MiniGPT(13, 5, embed_dim=6, num_layers=2, num_heads=3, hidden_dim=10, weight_tying=True)
    untied = MiniGPT(13, 5, embed_dim=6, num_layers=1, num_heads=2, hidden_dim=10, weight_tying=False).double()
    odd = MiniGPT(13, 5, embed_dim=6, num_layers=1, num_heads=2, hidden_dim=10, weight_tying=True)
    with torch.no_grad():  # a table stored transposed: not contiguous, written through its view
        odd.pos_embed.weight = torch.nn.Parameter(torch.zeros(6, 5).t())
    for model in (tied, untied, odd):
        for gain in (1.0, 3.0, 0.003):
            load_judge_values(model, 9, gain=gain)
            for key, value in _values_of(model).items():
                expected = judge_values(9, key, tuple(value.shape), gain=gain).to(value.dtype)
                assert torch.equal(value, expected), (key, gain, value.dtype)
                as_bytes = [t.reshape(-1).view(torch.uint8).tolist() for t in (value, expected)]
                assert as_bytes[0] == as_bytes[1], key


def test_a_tensor_subclass_in_the_state_sees_one_copy_as_it_always_did():
    model = MiniGPT(7, 3, embed_dim=4, num_layers=1, num_heads=2, hidden_dim=8, weight_tying=True)
    model.pos_embed.weight = torch.nn.Parameter(torch.zeros(3, 4).as_subclass(_Seen))
    _Seen.ops = []
    load_judge_values(model, 4)
    writes = [op for op in _Seen.ops if op.endswith("_") and not op.startswith("__")]  # in-place calls
    assert writes == ["copy_"], _Seen.ops
    assert torch.equal(model.pos_embed.weight.as_subclass(torch.Tensor), judge_values(4, "pos_embed.weight", (3, 4)))
