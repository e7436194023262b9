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
