"""The one weight_tying diagnosis (suite, self-check and notebook cells share it): each mistake named."""

from __future__ import annotations

import json

import torch

from autograder.graders.kit import KIT_ROOT
from autograder.graders.weight_tying.diagnosis import (
    SECTIONS,
    generated_ids_problem,
    gradient_problem,
    greedy_problem,
    logits_follow_table,
    logits_problem,
    lookup_problem,
    reread,
    tie_problem,
)
from autograder.grading.findings import named_in

V, D = 7, 3


def tie(**facts):
    base = {"head_shape": (V, D), "table_shape": (V, D), "follows": False, "same_object": False, "same_storage": False}
    return tie_problem(**{**base, **facts})


def test_tie_problem_names_each_way_of_getting_the_tie_wrong():
    assert tie(follows=True, same_object=True) is None
    assert "second Parameter object on the token table's memory" in str(tie(follows=True, same_storage=True))
    assert "copied table" in str(tie(equal_values=True))
    assert "untied" in str(tie())
    assert "tied only after forward" in str(tie(follows_after_forward=True))
    assert "transposed" in str(tie(head_shape=(D, V)))
    assert "positional embedding tied" in str(tie(head_shape=(5, D), pos_shape=(5, D)))


def test_each_problem_names_its_misconception_by_the_schemes_id():
    """What marking reads: the id a message names (messages.NAMES), never its words."""
    assert named_in(tie(equal_values=True)) == "two_tables"
    assert named_in(tie(follows=True, same_storage=True)) == "data_sharing"
    assert named_in(tie(follows_after_forward=True)) == "tied_after_forward"
    assert named_in(tie(head_shape=(5, D), pos_shape=(5, D))) == "positional_tied"
    expected = torch.randn(2, 3, V)
    assert named_in(logits_problem(expected.softmax(-1), expected)) == "probabilities"
    assert named_in(logits_problem(3 * expected, expected)) == "logits_scaled"
    assert named_in(logits_problem(expected + torch.randn(2, 3, V), expected)) is None  # wrong values: unnamed
    g_in, g_out = torch.randn(5, 3), torch.randn(5, 3)
    assert named_in(gradient_problem(2 * (g_in + g_out), g_in, g_out, same_object=True)) == "gradient_scaled"


def test_logits_problem_names_softmax_bias_scale_and_shapes():
    expected = torch.randn(2, 3, V)
    assert logits_problem(expected.clone(), expected) is None
    assert "probabilities instead of logits" in str(logits_problem(expected.softmax(-1), expected))
    assert "log_softmax" in str(logits_problem(expected.log_softmax(-1), expected))
    assert "bias on the head" in str(logits_problem(expected + torch.randn(V), expected))
    assert "logits scaled" in str(logits_problem(3 * expected, expected))
    assert "forward must return the head's V scores" in str(logits_problem(torch.randn(2, 3, 4), expected))
    # a wrong shape is one misconception, however it came about (the vectors before the head, ids, flattened rows)
    for wrong in (torch.randn(2, 3, 4), expected.argmax(-1), expected.reshape(6, V)):
        assert named_in(logits_problem(wrong, expected)) == "logits_shape"
    assert "positional embedding tied" in str(logits_problem(torch.randn(2, 3, 5), expected, block_size=5))
    assert "token ids" in str(logits_problem(expected.argmax(-1), expected))
    assert "flattened" in str(logits_problem(expected.reshape(6, V), expected))
    assert "wrong values" in str(logits_problem(expected + torch.randn(2, 3, V), expected))


def test_logits_follow_table_forgives_what_shape_flow_judges():
    expected = torch.randn(2, 3, V)
    assert logits_follow_table(expected.softmax(-1), expected)
    assert logits_follow_table(2 * expected + torch.randn(V), expected)
    assert not logits_follow_table(torch.randn(2, 3, V), expected)


def test_gradient_problem_names_doubling_halving_and_one_path():
    g_in, g_out = torch.randn(5, 3), torch.randn(5, 3)
    assert gradient_problem(g_in + g_out, g_in, g_out, same_object=True) is None
    assert "doubled" in str(gradient_problem(2 * (g_in + g_out), g_in, g_out, same_object=True))
    assert "halved" in str(gradient_problem(0.5 * (g_in + g_out), g_in, g_out, same_object=True))
    assert "only one path" in str(gradient_problem(g_in, g_in, g_out, same_object=True))
    assert ".data sharing" in str(gradient_problem(g_out, g_in, g_out, same_object=False))
    assert "got no gradient" in str(gradient_problem(None, g_in, g_out, same_object=True))


def test_generated_ids_and_greedy_problems():
    prompt = torch.tensor([[1, 2]])
    expected = torch.tensor([[1, 2, 3, 4]])
    assert generated_ids_problem(expected.clone(), prompt, 2) is None
    assert "not int64" in str(generated_ids_problem(expected.float(), prompt, 2))
    assert "prompt not preserved" in str(generated_ids_problem(torch.tensor([[0, 2, 3, 4]]), prompt, 2))
    assert "only the new tokens" in str(generated_ids_problem(torch.tensor([[3, 4]]), prompt, 2))
    assert generated_ids_problem(torch.tensor([[0, 2, 3, 4]]), prompt, 2, check_prompt=False) is None
    assert greedy_problem(expected, expected, again=expected.clone()) is None
    assert "sampling instead of argmax" in str(greedy_problem(expected, expected, again=torch.tensor([[1, 2, 4, 4]])))
    assert "LAST position" in str(greedy_problem(torch.tensor([[1, 2, 3, 0]]), expected))


def test_gradient_problem_names_a_row_without_its_lookup_part_and_a_divided_one():
    g_in, g_out = torch.randn(5, 3), torch.randn(5, 3)
    padded = g_in + g_out
    padded[0] = g_out[0]  # padding_idx=0: row 0 gets the head path only
    assert "padding_idx" in str(gradient_problem(padded, g_in, g_out, same_object=True))
    divided = g_in + g_out
    divided[2] = g_out[2] + g_in[2] / 3  # an id seen three times, scale_grad_by_freq
    assert "scale_grad_by_freq" in str(gradient_problem(divided, g_in, g_out, same_object=True))
    noisy = (g_in + g_out) * 40 + 1e-5 * torch.randn(5, 3)  # float noise of large gradients is not a mistake
    assert gradient_problem(noisy, g_in * 40, g_out * 40, same_object=True) is None


def test_lookup_problem_names_max_norm():
    table = torch.randn(6, 4) * 3
    ids = torch.tensor([[0, 1, 2], [3, 4, 5]])
    assert lookup_problem(table[ids], table, ids) is None
    capped = table[ids] * (1.0 / table[ids].norm(dim=-1, keepdim=True)).clamp(max=1.0)
    assert "max_norm" in str(lookup_problem(capped, table, ids))
    assert "not the rows" in str(lookup_problem(table[ids] + 1, table, ids))


def test_every_message_names_a_notebook_section_that_exists():
    """The sections the hints send students to are the notebook's own headings (rename both together)."""
    notebook = KIT_ROOT / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb"
    headings = {
        line.strip()
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("## ")
    }
    for number, title in SECTIONS.items():
        assert any(h.startswith(f"## {number}. {title}") for h in headings), (number, title, sorted(headings))
    assert str(reread(7)) == ' (reread section 7, "Gradients from both ends add up")'
    assert "reread section 6" in str(tie(equal_values=True))


def test_a_tie_card_says_what_is_true_and_not_its_heading_again():
    """Issue 48, round 23: the data_sharing body opened with its own heading; the untied body said any new
    nn.Parameter makes a second table, where one around the same tensor shares its memory (data_sharing's case)."""
    from autograder.protocol.said import render

    for language in ("en", "zh"):
        shared = render(tie(follows=True, same_storage=True), language)
        assert not shared.startswith(("one storage", "一块内存")), shared
        untied = render(tie(), language)
        assert ("around a copy of the weights" if language == "en" else "包住权重的副本") in untied, untied
        assert "a new nn.Parameter make" not in untied and "新建的 nn.Parameter" not in untied


def test_the_positional_card_says_what_a_head_on_the_positional_table_does():
    """w11 ties the head to the positional table instead (the token table shares nothing): the heading no longer
    says the positional table shares "too", and the body says what the head scores, over which vocabulary."""
    from autograder.graders.weight_tying.messages import MISCONCEPTIONS
    from autograder.protocol.said import Said, render

    assert "也参与了共享" not in MISCONCEPTIONS["positional_tied"][1]
    said = Said("diag.logits.scores_positions", got=(1, 1, 6), want=(1, 1, 26))
    assert "词表里的 V 个 token" in render(said, "zh") and "V tokens of the vocabulary" in render(said, "en")
