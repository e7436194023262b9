"""dnnlpy.models.sampling: choosing the next token from the last position's logits."""

import pytest
import torch

from dnnlpy.models import gpt


def test_sampling_helpers():
    logits = torch.tensor([[0.0, 5.0, 1.0, 4.0], [3.0, 0.0, 0.0, 0.0]])
    assert gpt.greedy(logits).tolist() == [1, 0]
    g = torch.Generator().manual_seed(0)
    draws = torch.stack([gpt.sample_top_k(logits, 2, generator=g) for _ in range(200)])
    assert set(draws[:, 0].tolist()) == {1, 3}  # only the two best tokens of row 0
    draws = torch.stack([gpt.sample_top_p(logits, 0.5, generator=g) for _ in range(50)])
    assert set(draws[:, 0].tolist()) == {1}  # token 1 alone holds > 50% of row 0's mass
    with pytest.raises(ValueError, match=r"logits\[:, -1, :\]"):
        gpt.greedy(torch.zeros(1, 3, 4))


TIED_ROW = torch.tensor([[0.0, 5.0, 5.0, 1.0], [2.0, -1.0, 0.0, 2.0]])  # two best tokens per row


@pytest.mark.parametrize(
    "sample",
    [
        lambda logits, **kw: gpt.sample_next_token(logits, do_sample=True, **kw),
        lambda logits, **kw: gpt.sample_top_k(logits, 3, **kw),
        lambda logits, **kw: gpt.sample_top_p(logits, 0.999, **kw),
    ],
    ids=["plain", "top_k", "top_p"],
)
def test_a_tiny_temperature_is_greedy_among_the_best(sample):
    """logits / 1e-40 overflowed to inf and the softmax to nan; the tempered logits are shifted first."""
    g = torch.Generator().manual_seed(0)
    draws = torch.stack([sample(TIED_ROW * 1e4, temperature=1e-40, generator=g) for _ in range(60)])
    assert set(draws[:, 0].tolist()) == {1, 2} and set(draws[:, 1].tolist()) == {0, 3}


@pytest.mark.parametrize("temperature", [0.0, -1.0, float("inf"), float("nan"), True, "1"])
def test_temperature_must_be_a_finite_positive_number(temperature):
    with pytest.raises(ValueError, match=r"temperature must be a finite number > 0, got .*: use greedy\(\)"):
        gpt.sample_next_token(TIED_ROW, do_sample=True, temperature=temperature)


def test_a_row_with_nothing_to_sample_is_named():
    logits = torch.tensor([[0.0, 1.0], [float("-inf"), float("-inf")]])
    with pytest.raises(ValueError, match="row 1 of the logits holds nan or \\+inf, or only -inf"):
        gpt.sample_next_token(logits, do_sample=True)
    assert gpt.greedy(logits).tolist() == [1, 0]  # greedy still works
