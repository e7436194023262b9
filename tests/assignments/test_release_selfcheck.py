"""The public self-check passes the reference answer and names the misconception of each wrong answer.

Each wrong answer is the reference with one edit; its classes are loaded with dnnlpy.notebook.exec_source and
handed straight to the self-check's test functions (fast: no subprocess, no pytest-in-pytest).
"""

from __future__ import annotations

import pytest
import torch

from dnnlpy.notebook import exec_source

TIE = "self.lm_head.weight = self.token_embed.weight"

# name -> (edits to the reference answer, self-check test that must fail, words its message must contain)
WRONG = {
    "copied table": (
        [(TIE, "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())")],
        "test_tied_head_shares_the_embedding_parameter",
        "copied table",
    ),
    ".data sharing": (
        [(TIE, "self.lm_head.weight = nn.Parameter(self.token_embed.weight.data)")],
        "test_tied_head_shares_the_embedding_parameter",
        ".data sharing",
    ),
    "untied tables": ([(TIE, "pass")], "test_tied_head_shares_the_embedding_parameter", "untied head"),
    "bias on the head": (
        [("vocab_size, bias=False)", "vocab_size, bias=True)")],
        "test_tied_head_has_no_bias",
        "a bias on the head",
    ),
    "probabilities": (
        [("return self.lm_head(x)", "return self.lm_head(x).softmax(dim=-1)")],
        "test_tied_forward_returns_logits",
        "probabilities instead of logits",
    ),
    "log-probabilities": (
        [("return self.lm_head(x)", "return self.lm_head(x).log_softmax(dim=-1)")],
        "test_tied_forward_returns_logits",
        "log-probabilities",
    ),
    "positions added": (
        [
            (
                "x = self.token_embed(input_ids)",
                "x = self.token_embed(input_ids) + 0.1 * torch.arange(input_ids.shape[1]).unsqueeze(-1)",
            )
        ],
        "test_tied_forward_returns_logits",
        "wrong values",
    ),
    "gradient cut at the input": (
        [("x = self.token_embed(input_ids)", "x = self.token_embed(input_ids).detach()")],
        "test_tied_gradients_from_both_ends_add_up",
        "only one path",
    ),
    "MiniGPT untied": (
        [("weight_tying=True,", "weight_tying=False,")],
        "test_minigpt_is_a_tied_dnnlpy_minigpt",
        "weight_tying=True",
    ),
    "wrong num_heads": (
        [("num_heads=num_heads,", "num_heads=1,")],
        "test_minigpt_uses_the_given_hyperparameters",
        "num_heads",
    ),
    "wrong hidden_dim": (
        [("hidden_dim=hidden_dim,", "hidden_dim=64,")],
        "test_minigpt_uses_the_given_hyperparameters",
        "sizes differ",
    ),
    "unshifted loss": (
        [("return self.minigpt.loss(input_ids, targets)", "return self.minigpt.loss(input_ids, input_ids)")],
        "test_minigpt_forward_and_loss",
        "predict ids[:, 1:] from ids[:, :-1]",
    ),
    "sampling": (
        [("logits[:, -1, :].argmax(dim=-1, keepdim=True)", "logits[:, -1, :].softmax(-1).multinomial(1)")],
        "test_generate_is_greedy_and_keeps_the_prompt",
        "sampling instead of argmax",
    ),
    "only new tokens": (
        [("        return ids\n", "        return ids[:, input_ids.shape[1]:]\n")],
        "test_generate_is_greedy_and_keeps_the_prompt",
        "only the new tokens",
    ),
    "first position's logits": (
        [("logits[:, -1, :].argmax", "logits[:, 0, :].argmax")],
        "test_generate_is_greedy_and_keeps_the_prompt",
        "LAST position",
    ),
    "no context crop": (
        [("context = ids[:, -block_size:]", "context = ids")],
        "test_generate_crops_the_context_past_block_size",
        "crop the context",
    ),
    "first block_size tokens": (
        [("context = ids[:, -block_size:]", "context = ids[:, :block_size]")],
        "test_generate_crops_the_context_past_block_size",
        "differ from greedy decoding",
    ),
}

TESTS = [
    "test_tied_embedding_table_has_shape_v_by_d",
    "test_tied_head_has_no_bias",
    "test_tied_head_shares_the_embedding_parameter",
    "test_tied_forward_returns_logits",
    "test_tied_gradients_from_both_ends_add_up",
    "test_minigpt_is_a_tied_dnnlpy_minigpt",
    "test_minigpt_uses_the_given_hyperparameters",
    "test_minigpt_forward_and_loss",
    "test_generate_is_greedy_and_keeps_the_prompt",
    "test_generate_crops_the_context_past_block_size",
]


def _classes(source: str):
    result = exec_source(source, "submission.py")
    assert result.errors == []
    return result["TiedEmbeddingLM"], result["MiniGPTWithWeightTying"]


def _run(selfcheck, name: str, classes) -> str | None:
    """Run one self-check test on the given classes; the failure message, or None if it passed."""
    torch.manual_seed(0)
    fn = getattr(selfcheck, name)
    cls = classes[0] if name.startswith("test_tied") else classes[1]
    try:
        fn(cls)
    except pytest.fail.Exception as failure:
        return str(failure)
    return None


def test_the_self_check_lists_every_test_here(selfcheck):
    assert sorted(n for n in dir(selfcheck) if n.startswith("test_")) == sorted(TESTS)


@pytest.mark.parametrize("name", TESTS)
def test_reference_answer_passes(selfcheck, solution_source, name):
    assert _run(selfcheck, name, _classes(solution_source)) is None


@pytest.mark.parametrize("mistake", list(WRONG))
def test_wrong_answer_fails_with_the_misconception_named(selfcheck, solution_source, mistake):
    edits, failing_test, words = WRONG[mistake]
    source = solution_source
    for old, new in edits:
        assert old in source, f"edit for {mistake!r} no longer applies: {old!r}"
        source = source.replace(old, new, 1)
    message = _run(selfcheck, failing_test, _classes(source))
    assert message is not None, f"{mistake}: {failing_test} passed"
    assert words in message, message


def test_stub_fails_every_test_with_not_implemented(selfcheck):
    stub = """
import torch.nn as nn
class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        raise NotImplementedError()
class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4, hidden_dim=512,
                 dropout=0.0):
        super().__init__()
        raise NotImplementedError()
"""
    classes = _classes(stub)
    for name in TESTS:
        message = _run(selfcheck, name, classes)
        assert message is not None and "is not implemented yet" in message, (name, message)


def test_missing_attribute_is_named(selfcheck):
    source = (
        "import torch.nn as nn\nclass TiedEmbeddingLM(nn.Module):\n"
        "    def __init__(self, vocab_size, embed_dim=128):\n        super().__init__()\n"
        "MiniGPTWithWeightTying = None\n"
    )
    message = _run(selfcheck, "test_tied_embedding_table_has_shape_v_by_d", _classes(source))
    assert "has no attribute 'token_embed'" in message
