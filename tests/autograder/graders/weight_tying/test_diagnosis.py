"""The one weight_tying diagnosis (suite, self-check and notebook cells share it): each mistake named."""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.diagnosis import (
    generated_ids_problem,
    gradient_problem,
    greedy_problem,
    logits_follow_table,
    logits_problem,
    tie_problem,
)

V, D = 7, 3


def tie(**facts):
    base = {"head_shape": (V, D), "table_shape": (V, D), "follows": False, "same_object": False, "same_storage": False}
    return tie_problem(**{**base, **facts})


def test_tie_problem_names_each_way_of_getting_the_tie_wrong():
    assert tie(follows=True, same_object=True) is None
    assert ".data sharing" in tie(follows=True, same_storage=True)
    assert "copied table" in tie(equal_values=True)
    assert "untied" in tie()
    assert "tied only after forward" in tie(follows_after_forward=True)
    assert "transposed" in tie(head_shape=(D, V))
    assert "positional embedding tied" in tie(head_shape=(5, D), pos_shape=(5, D))


def test_logits_problem_names_softmax_bias_scale_and_shapes():
    expected = torch.randn(2, 3, V)
    assert logits_problem(expected.clone(), expected) is None
    assert "probabilities instead of logits" in logits_problem(expected.softmax(-1), expected)
    assert "log_softmax" in logits_problem(expected.log_softmax(-1), expected)
    assert "bias on the head" in logits_problem(expected + torch.randn(V), expected)
    assert "logits scaled" in logits_problem(3 * expected, expected)
    assert "transposed" in logits_problem(torch.randn(2, 3, 4), expected)
    assert "positional embedding tied" in logits_problem(torch.randn(2, 3, 5), expected, block_size=5)
    assert "token ids" in logits_problem(expected.argmax(-1), expected)
    assert "flattened" in logits_problem(expected.reshape(6, V), expected)
    assert "wrong values" in logits_problem(expected + torch.randn(2, 3, V), expected)


def test_logits_follow_table_forgives_what_shape_flow_judges():
    expected = torch.randn(2, 3, V)
    assert logits_follow_table(expected.softmax(-1), expected)
    assert logits_follow_table(2 * expected + torch.randn(V), expected)
    assert not logits_follow_table(torch.randn(2, 3, V), expected)


def test_gradient_problem_names_doubling_halving_and_one_path():
    g_in, g_out = torch.randn(5, 3), torch.randn(5, 3)
    assert gradient_problem(g_in + g_out, g_in, g_out, same_object=True) is None
    assert "doubled" in gradient_problem(2 * (g_in + g_out), g_in, g_out, same_object=True)
    assert "halved" in gradient_problem(0.5 * (g_in + g_out), g_in, g_out, same_object=True)
    assert "only one path" in gradient_problem(g_in, g_in, g_out, same_object=True)
    assert ".data sharing" in gradient_problem(g_out, g_in, g_out, same_object=False)
    assert "got no gradient" in gradient_problem(None, g_in, g_out, same_object=True)


def test_generated_ids_and_greedy_problems():
    prompt = torch.tensor([[1, 2]])
    expected = torch.tensor([[1, 2, 3, 4]])
    assert generated_ids_problem(expected.clone(), prompt, 2) is None
    assert "not int64" in generated_ids_problem(expected.float(), prompt, 2)
    assert "prompt not preserved" in generated_ids_problem(torch.tensor([[0, 2, 3, 4]]), prompt, 2)
    assert "only the new tokens" in generated_ids_problem(torch.tensor([[3, 4]]), prompt, 2)
    assert generated_ids_problem(torch.tensor([[0, 2, 3, 4]]), prompt, 2, check_prompt=False) is None
    assert greedy_problem(expected, expected, again=expected.clone()) is None
    assert "sampling instead of argmax" in greedy_problem(expected, expected, again=torch.tensor([[1, 2, 4, 4]]))
    assert "LAST position" in greedy_problem(torch.tensor([[1, 2, 3, 0]]), expected)
