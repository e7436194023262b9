"""The public checks (weight_tying_checks, shared by `pytest` and the notebook's practice cells), in-process.

Each wrong answer is the reference with one edit; its classes are loaded with coursecheck.notebook.exec_source and
handed to a fresh Session of the checks. test_selfcheck_corpus.py walks the calibration corpus the same way.
"""

from __future__ import annotations

import re

import pytest
import torch

from coursecheck.notebook import exec_source

TIE = "self.lm_head.weight = self.token_embed.weight"
LOOP = "logits[:, -1, :].argmax(dim=-1, keepdim=True)"

# name -> (edits to the reference answer, the check that must fail, words its message must contain)
WRONG = {
    "copied table": (
        [(TIE, "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())")],
        "test_tied_head_is_the_embedding_parameter",
        "copied table",
    ),
    ".data sharing": (
        [(TIE, "self.lm_head.weight = nn.Parameter(self.token_embed.weight.data)")],
        "test_tied_head_is_the_embedding_parameter",
        ".data sharing",
    ),
    "untied tables": ([(TIE, "pass")], "test_tied_head_is_the_embedding_parameter", "untied head"),
    "tied in forward": (
        [
            (TIE, "pass"),
            (
                "x = self.token_embed(input_ids)",
                "self.lm_head.weight = self.token_embed.weight\n        x = self.token_embed(input_ids)",
            ),
        ],
        "test_tied_head_is_the_embedding_parameter",
        "tied only after forward",
    ),
    "bias on the head": (
        [("vocab_size, bias=False)", "vocab_size, bias=True)")],
        "test_tied_holds_one_table_and_no_bias",
        "bias on the head",
    ),
    "probabilities": (
        [("return self.lm_head(x)", "return self.lm_head(x).softmax(dim=-1)")],
        "test_tied_forward_returns_logits",
        "probabilities instead of logits",
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
    "MiniGPT untied": ([("weight_tying=True,", "weight_tying=False,")], "test_wrapper_minigpt_is_tied", "untied"),
    "wrong num_heads": (
        [("num_heads=num_heads,", "num_heads=1,")],
        "test_wrapper_passes_every_hyperparameter",
        "hyper-parameter ignored (num_heads)",
    ),
    "wrong hidden_dim": (
        [("hidden_dim=hidden_dim,", "hidden_dim=512,")],
        "test_wrapper_passes_every_hyperparameter",
        "hyper-parameter ignored (hidden_dim)",
    ),
    "no dropout": (
        [("dropout=dropout,", "dropout=0.0,")],
        "test_wrapper_passes_every_hyperparameter",
        "hyper-parameter ignored (dropout)",
    ),
    "unshifted loss": (
        [("return self.minigpt.loss(input_ids, targets)", "return self.minigpt.loss(input_ids, input_ids)")],
        "test_wrapper_loss_without_targets",
        "loss target shift wrong",
    ),
    "sampling": (
        [(LOOP, "logits[:, -1, :].softmax(-1).multinomial(1)")],
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
        "wrong position",
    ),
    "dropout left on while decoding": (
        [("        self.eval()  # no dropout while decoding, so greedy output is deterministic\n", "")],
        "test_generate_turns_dropout_off",
        "dropout on while decoding",
    ),
    "no context crop": (
        [("context = ids[:, -block_size:]", "context = ids")],
        "test_generate_crops_past_block_size",
        "no crop",
    ),
    "first block_size tokens": (
        [("context = ids[:, -block_size:]", "context = ids[:, :block_size]")],
        "test_generate_crops_past_block_size",
        "wrong crop",
    ),
    "delegated to MiniGPT.generate": (
        [("        ids = input_ids\n", "        return self.minigpt.generate(input_ids, max_new_tokens)\n")],
        "test_generate_writes_its_own_loop",
        "delegated generate",
    ),
    "delegated to a sampling helper": (
        [(LOOP, "sampling.greedy(logits[:, -1, :]).unsqueeze(-1)")],
        "test_generate_writes_its_own_loop",
        "called greedy: delegated generate",
    ),
}

CHECK_NAMES = [
    "test_tied_table_has_shape_v_by_d",
    "test_tied_head_is_the_embedding_parameter",
    "test_tied_holds_one_table_and_no_bias",
    "test_tied_forward_returns_logits",
    "test_tied_gradients_from_both_ends_add_up",
    "test_wrapper_holds_a_dnnlpy_minigpt",
    "test_wrapper_minigpt_is_tied",
    "test_wrapper_passes_every_hyperparameter",
    "test_wrapper_forward_returns_minigpt_logits",
    "test_wrapper_loss_without_targets",
    "test_wrapper_loss_with_shorter_targets",
    "test_wrapper_loss_with_full_length_targets",
    "test_generate_writes_its_own_loop",
    "test_generate_is_greedy_and_keeps_the_prompt",
    "test_generate_turns_dropout_off",
    "test_generate_crops_past_block_size",
]
STUB = """
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


def _edited(source: str, edits) -> str:
    for old, new in edits:
        assert old in source, f"edit no longer applies: {old!r}"
        source = source.replace(old, new, 1)
    return source.replace("from dnnlpy.models import gpt", "from dnnlpy.models import gpt, sampling")


def _session(checks, source: str):
    result = exec_source(source, "submission.py")
    assert result.errors == []
    return checks.SELF_CHECK.session(
        {name: result.namespace.get(name) for name in ("TiedEmbeddingLM", "MiniGPTWithWeightTying")}
    )


def test_the_checks_are_the_ones_listed_here_in_teaching_order(checks):
    assert list(checks.CHECKS) == CHECK_NAMES
    assert checks.GROUPS == ("exercise 1", "gradients", "exercise 2", "loss", "generate")
    for check in checks.CHECKS.values():
        assert check.area in (
            "parameter identity",
            "shape flow",
            "parameter counts",
            "gradient accumulation",
            "argmax generation",
        )
        prefix = "test_tied_" if check.cls == "TiedEmbeddingLM" else ("test_wrapper_", "test_generate_")
        assert check.name.startswith(prefix)


def test_every_check_has_its_title_in_the_catalog_in_both_languages(checks, monkeypatch):
    """A check's title is shown from the message catalog (checks.title): its English is the @check title."""
    for language in ("en", "zh"):
        monkeypatch.setenv("WEIGHT_TYING_LANG", language)
        for check in checks.CHECKS.values():
            shown = checks.title(check)
            assert shown == check.title if language == "en" else re.search(r"[\u4e00-\u9fff]", shown), check.name


def test_the_reference_answer_passes_every_check(checks, solution_source):
    session = _session(checks, solution_source)
    assert {name: session.outcome(name).status for name in checks.CHECKS} == dict.fromkeys(CHECK_NAMES, "passed")


@pytest.mark.parametrize("mistake", list(WRONG))
def test_a_wrong_answer_fails_its_check_naming_the_misconception_and_the_section(checks, solution_source, mistake):
    edits, failing, words = WRONG[mistake]
    outcome = _session(checks, _edited(solution_source, edits)).outcome(failing)
    assert outcome.status == "failed", f"{mistake}: {failing} {outcome.status}"
    assert words in outcome.message, outcome.message
    # The section to reread: the self-check's own hint, or the diagnosis's "(reread section N, ...)".
    assert re.search(r"[Rr]eread (notebook )?section \d+", outcome.message), outcome.message
    assert re.search(r"Graded area: [a-z ]+\.$", outcome.message), outcome.message
    assert "Traceback" not in outcome.message and "lm_head.weight = token_embed.weight" not in outcome.message


def test_a_check_that_needs_another_is_not_checked_rather_than_misleading(checks, solution_source):
    # A head bias breaks the forward values; the gradient check would then blame the tie.
    session = _session(checks, _edited(solution_source, WRONG["bias on the head"][0]))
    gradient = session.outcome("test_tied_gradients_from_both_ends_add_up")
    assert gradient.status == "not checked"
    assert gradient.message.startswith(
        "not checked until “forward returns the logits E[ids] @ E.T, shape (B, T, V)” passes"
    )
    assert session.outcome("test_tied_head_is_the_embedding_parameter").passed  # the tie itself is right


def test_stubs_fail_once_per_class_and_the_rest_waits(checks):
    session = _session(checks, STUB)
    outcomes = {name: session.outcome(name) for name in checks.CHECKS}
    failed = [name for name, o in outcomes.items() if o.status == "failed"]
    assert failed == ["test_tied_table_has_shape_v_by_d", "test_wrapper_holds_a_dnnlpy_minigpt"]
    assert all("is not implemented yet" in outcomes[name].message for name in failed)
    assert {o.status for name, o in outcomes.items() if name not in failed} == {"not checked"}


def test_every_waiting_check_knows_the_failure_it_waits_for(checks):
    session = _session(checks, STUB)
    assert session.blocker("test_tied_gradients_from_both_ends_add_up") == "test_tied_table_has_shape_v_by_d"
    assert session.blocker("test_generate_crops_past_block_size") == "test_wrapper_holds_a_dnnlpy_minigpt"
    assert session.blocker("test_tied_table_has_shape_v_by_d") is None


def test_a_class_not_defined_is_said_once(checks):
    session = checks.SELF_CHECK.session(
        {"TiedEmbeddingLM": None, "MiniGPTWithWeightTying": None},
        {"TiedEmbeddingLM": "nb.ipynb does not define TiedEmbeddingLM (cell 3 raised SyntaxError)"},
    )
    assert "cell 3 raised SyntaxError" in session.outcome("test_tied_table_has_shape_v_by_d").message
    assert session.outcome("test_tied_forward_returns_logits").message == (
        "not checked until “token_embed.weight is a (V, D) table” passes: fix that one first"
    )


def test_nanogpt_style_targets_get_one_short_message_not_a_traceback(checks, solution_source):
    hand_written = """
    def loss(self, input_ids, targets=None):
        logits = self.minigpt(input_ids[:, :-1])  # always shifts: wrong for targets as long as input_ids
        targets = input_ids[:, 1:] if targets is None else targets
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
"""
    source = solution_source.replace(
        "import torch.nn as nn\n", "import torch.nn as nn\nimport torch.nn.functional as F\n"
    )
    start = source.index("    def loss(")
    source = source[:start] + hand_written.lstrip("\n") + source[source.index("    @torch.no_grad()", start) :]
    session = _session(checks, source)
    assert session.outcome("test_wrapper_loss_without_targets").passed
    assert session.outcome("test_wrapper_loss_with_shorter_targets").passed
    full = session.outcome("test_wrapper_loss_with_full_length_targets")
    assert full.status == "failed"
    assert "raised ValueError" in full.message and "Expected input batch_size" in full.message
    assert "nanoGPT's form" in full.message and "loss target shift wrong" in full.message
    assert len(full.message.splitlines()) <= 4 and "cross_entropy(" not in full.message


def test_delegating_generate_names_what_it_called(checks, solution_source):
    edits = WRONG["delegated to MiniGPT.generate"][0]
    outcome = _session(checks, _edited(solution_source, edits)).outcome("test_generate_writes_its_own_loop")
    assert "MiniGPT.generate" in outcome.message and "delegated generate" in outcome.message


def test_practice_prints_one_line_per_check_and_raises_on_a_failure(checks, solution_source, capsys):
    good = exec_source(solution_source, "answer.py").namespace
    checks.practice("exercise 1", TiedEmbeddingLM=good["TiedEmbeddingLM"])
    out = capsys.readouterr().out
    assert out.count("✓") == 4 and "worth no points" in out
    bad = exec_source(_edited(solution_source, WRONG["probabilities"][0]), "bad.py").namespace
    with pytest.raises(
        AssertionError, match="1 of the exercise 1 checks failed: see the lines marked ✗ above"
    ) as raised:
        checks.practice("exercise 1", TiedEmbeddingLM=bad["TiedEmbeddingLM"])
    # Jupyter shows the message alone (IPython's hook), no traceback into the checks package
    assert raised.value._render_traceback_() == [str(raised.value)]
    out = capsys.readouterr().out
    assert "✗ forward returns the logits" in out and "probabilities instead of logits" in out
    with pytest.raises(ValueError, match="unknown group 'exercise 3'"):
        checks.practice("exercise 3", TiedEmbeddingLM=bad["TiedEmbeddingLM"])
    with pytest.raises(ValueError, match="needs MiniGPTWithWeightTying=MiniGPTWithWeightTying"):
        checks.practice("loss", TiedEmbeddingLM=bad["TiedEmbeddingLM"])


EARLIER = "an earlier check to pass (marked –): fix the lines marked ✗ first"


def test_practice_counts_checks_that_wait_apart_from_those_that_failed(checks, solution_source, capsys, monkeypatch):
    """A check that waits for a failed one did not fail: a wrong table shape is one failure, three waiting."""
    wrong = _edited(
        solution_source, [("nn.Embedding(vocab_size, embed_dim)", "nn.Embedding(vocab_size + 1, embed_dim)")]
    )
    bad = exec_source(wrong, "bad.py").namespace
    with pytest.raises(AssertionError) as raised:
        checks.practice("exercise 1", TiedEmbeddingLM=bad["TiedEmbeddingLM"])
    out = capsys.readouterr().out
    assert out.count("✗") == 1 and out.count("–") == 3
    assert str(raised.value) == f"1 of the exercise 1 checks failed (marked ✗) and 3 wait for {EARLIER}"
    with pytest.raises(AssertionError) as raised:
        checks.practice("gradients", TiedEmbeddingLM=bad["TiedEmbeddingLM"])  # all of its checks wait
    # round 13: the cell to go back to, named from the failed check the gradients checks wait for
    assert str(raised.value) == (
        "the gradients checks (marked –) run once the lines marked ✗ in the exercise 1 practice check cell pass: "
        "fix those first"
    )
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    with pytest.raises(AssertionError, match="有 1 项没有通过（标 ✗ 的行），另有 3 项要等前面的检查通过之后才检查"):
        checks.practice("exercise 1", TiedEmbeddingLM=bad["TiedEmbeddingLM"])
    with pytest.raises(AssertionError) as raised:
        checks.practice("gradients", TiedEmbeddingLM=bad["TiedEmbeddingLM"])
    assert str(raised.value) == (
        "“梯度”这组检查（标 – 的行）要等“练习 1”的检查单元格里标 ✗ 的行通过之后才运行，请先回到那里修正。"
    )


def test_practice_leaves_the_notebooks_random_state_alone(checks, solution_source, capsys):
    good = exec_source(solution_source, "answer.py").namespace
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    checks.practice("exercise 1", TiedEmbeddingLM=good["TiedEmbeddingLM"])
    assert torch.equal(torch.rand(3), expected)


def test_the_language_setting_switches_messages_to_chinese(checks, solution_source, monkeypatch, capsys):
    bad = exec_source(_edited(solution_source, WRONG["copied table"][0]), "bad.py").namespace
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    outcome = checks.SELF_CHECK.session({"TiedEmbeddingLM": bad["TiedEmbeddingLM"]}).outcome(
        "test_tied_head_is_the_embedding_parameter"
    )
    assert "复制了一份表：" in outcome.message and "第 6 节" in outcome.message
    with pytest.raises(AssertionError, match="“练习 1”这组检查中有"):  # the group by its Chinese name
        checks.practice("exercise 1", TiedEmbeddingLM=bad["TiedEmbeddingLM"])
    assert "模型构建完成时，LM head 的权重就是 token embedding 的参数对象本身" in capsys.readouterr().out
    monkeypatch.setenv("WEIGHT_TYING_LANG", "fr")
    with pytest.raises(
        ValueError, match="WEIGHT_TYING_LANG='fr' is not a language of this assignment: use one of en, zh"
    ):
        checks.language()


def test_an_untied_wrapper_is_named_by_its_flag_and_blocks_nothing_else(checks, solution_source):
    source = solution_source.replace("            weight_tying=True,\n", "")
    assert source != solution_source
    session = _session(checks, source)
    outcomes = {name: session.outcome(name) for name in checks.CHECKS}
    failed = {name: o.message for name, o in outcomes.items() if o.status != "passed"}
    assert list(failed) == ["test_wrapper_minigpt_is_tied"], failed
    message = failed["test_wrapper_minigpt_is_tied"]
    assert "weight_tying=False" in message and "untied head" in message and ".clone()" not in message


def test_a_loss_that_raises_is_not_called_a_shift_misread(checks, solution_source):
    source = solution_source.replace(
        "        return self.minigpt.loss(input_ids, targets)\n", "        raise RuntimeError('a typo')\n"
    )
    session = _session(checks, source)
    message = session.outcome("test_wrapper_loss_without_targets").message
    assert "loss raises" in message and "shift" not in message, message
