"""The self-check in Chinese: a failure names the section to reread one way, 第 N 节“heading”, at the end of its
message whether the diagnosis names it or the check does, and the graded area on the line after it; why a
submission cannot be checked is said in Chinese too, from the catalog.

Each wrong answer is the reference with one edit, loaded and checked in-process as test_release_selfcheck.py does.
"""

from __future__ import annotations

import math
import re

import pytest

from coursecheck.notebook import exec_source

TIE = "self.lm_head.weight = self.token_embed.weight"

# name -> (the reference's line, its wrong version, the check that must fail)
WRONG = {
    "copied table (the diagnosis names the section)": (
        TIE,
        "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())",
        "test_tied_head_is_the_embedding_parameter",
    ),
    "bias on the head (the check's hint names it)": (
        "vocab_size, bias=False)",
        "vocab_size, bias=True)",
        "test_tied_holds_one_table_and_no_bias",
    ),
    "no context crop": ("context = ids[:, -block_size:]", "context = ids", "test_generate_crops_past_block_size"),
    "softmax before cross-entropy (the loss check names section 5, not its exercise's)": (
        "return self.minigpt.loss(input_ids, targets)",
        "targets = input_ids[:, 1:] if targets is None else targets\n"
        "        inputs = input_ids if targets.shape[1] == input_ids.shape[1] else input_ids[:, :-1]\n"
        "        probs = self.minigpt(inputs).softmax(-1)\n"
        "        return torch.nn.functional.cross_entropy(probs.reshape(-1, probs.size(-1)), targets.reshape(-1))",
        "test_wrapper_loss_with_full_length_targets",
    ),
}


@pytest.mark.parametrize("mistake", list(WRONG))
def test_a_chinese_failure_names_its_section_by_number_and_heading_once(checks, solution_source, monkeypatch, mistake):
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    old, new, failing = WRONG[mistake]
    assert old in solution_source, f"edit no longer applies: {old!r}"
    result = exec_source(solution_source.replace(old, new, 1), "submission.py")
    session = checks.SELF_CHECK.session(
        {n: result.namespace.get(n) for n in ("TiedEmbeddingLM", "MiniGPTWithWeightTying")}
    )
    message = session.outcome(failing).message
    assert len(re.findall(r"请重读第 \d+ 节“[^”]+”", message)) == 1, message
    assert "notebook 第" not in message and "）（" not in message, message
    assert re.search(r"评分项：[^\n]+。$", message), message
    # one layout whoever names the section: the message ending with where to reread, the area on a line of its own
    text, area = message.rsplit("\n", 1)
    assert re.search(r"请重读第 \d+ 节“[^”]+”(和第 \d+ 节“[^”]+”)?。$", text) and area.startswith("评分项："), message


@pytest.mark.parametrize("language", ["en", "zh"])
def test_softmax_before_cross_entropy_is_sent_to_the_section_that_teaches_it(
    checks, solution_source, monkeypatch, language
):
    """Section 5 says what cross-entropy takes (logits: it applies log_softmax itself), as the grader's page says;
    the loss's own exercise (section 9) is not where the fix is explained. The message says softmax ran twice."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    old, new, failing = WRONG["softmax before cross-entropy (the loss check names section 5, not its exercise's)"]
    result = exec_source(solution_source.replace(old, new, 1), "submission.py")
    session = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": result.namespace["MiniGPTWithWeightTying"]})
    message = session.outcome(failing).message
    said = {"en": ("(reread section 5,", "softmax applied twice"), "zh": ("请重读第 5 节", "等于做了两次 softmax")}
    section, twice = said[language]
    assert section in message and twice in message and "section 9" not in message and "第 9 节" not in message


def test_a_stub_points_to_its_task_and_names_no_mistake_nor_graded_area(checks, monkeypatch):
    """Nothing of a class is written yet: that is no mistake, so the failure sends the student to the section that
    sets the task (not “reread”), names no graded area (a stub is not one area's: the first check of a class is a
    parameter count), and the checks that wait for it say what they wait for, not what to fix."""
    stub = "import torch.nn as nn\nclass TiedEmbeddingLM(nn.Module):\n    def __init__(self, *a, **k):\n"
    stub += "        raise NotImplementedError()\n"
    cls = exec_source(stub, "stub.py").namespace["TiedEmbeddingLM"]
    for language, see, area, waits in (
        ("en", '(the task is in section 6, "Exercise 1', "Graded area", "not checked until TiedEmbeddingLM is"),
        ("zh", "。题目要求见第 6 节“练习 1：TiedEmbeddingLM”。", "评分项", "尚未检查：要等 TiedEmbeddingLM 实现之后"),
    ):
        monkeypatch.setenv("WEIGHT_TYING_LANG", language)
        session = checks.SELF_CHECK.session({"TiedEmbeddingLM": cls})
        message = session.outcome("test_tied_table_has_shape_v_by_d").message
        assert see in message and area not in message and "reread" not in message and "重读" not in message, message
        waiting = session.outcome("test_tied_head_is_the_embedding_parameter").message
        assert waiting.startswith(waits) and "fix" not in waiting and "修正" not in waiting, waiting


def test_a_question_before_the_section_to_reread_is_ended_once(checks, monkeypatch):
    """A message that asks a question (“是不是 generate 里有死循环？”) and names its section: the section is named
    once, right after the question mark, with no full stop between them."""
    from weight_tying_checks.diagnosis import reread
    from weight_tying_checks.messages import render_said
    from weight_tying_checks.said import Said

    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    asked = render_said(Said("check.budget.check", seconds=3) + reread(9), "zh")
    shown = checks.SELF_CHECK.reread(asked, checks.SELF_CHECK.checks["test_generate_crops_past_block_size"])
    assert shown.count("请重读") == 1 and "死循环？请重读第 9 节" in shown and "？。" not in shown, shown


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_waiting_check_names_the_check_that_failed_not_one_that_waits_too(checks, monkeypatch, language):
    """The gradient check waits on the tie check, which waits on the table's shape: with the table built (D, V),
    the shape check is the one that failed (✗), so that is the one the gradient's practice cell names."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    wrong = "import torch.nn as nn\nclass TiedEmbeddingLM(nn.Module):\n"
    wrong += "    def __init__(self, vocab_size, embed_dim=128):\n        super().__init__()\n"
    wrong += "        self.token_embed = nn.Embedding(embed_dim, vocab_size)\n"
    session = checks.SELF_CHECK.session({"TiedEmbeddingLM": exec_source(wrong, "w.py").namespace["TiedEmbeddingLM"]})
    waiting = session.outcome("test_tied_gradients_from_both_ends_add_up")
    failed, waits_too = "test_tied_table_has_shape_v_by_d", "test_tied_head_is_the_embedding_parameter"
    assert session.outcome(failed).status == "failed" and session.outcome(waits_too).status == "not checked"
    assert (
        waiting.status == "not checked" and checks.SELF_CHECK.title(checks.SELF_CHECK.checks[failed]) in waiting.message
    )
    assert checks.SELF_CHECK.title(checks.SELF_CHECK.checks[waits_too]) not in waiting.message


_LOSS_CHECKS = (
    "test_wrapper_loss_without_targets",
    "test_wrapper_loss_with_shorter_targets",
    "test_wrapper_loss_with_full_length_targets",
)


@pytest.mark.parametrize(
    "language, short", [("en", "the same mistake as the check above: "), ("zh", "与上一项是同一个错误：")]
)
def test_a_mistake_the_three_loss_checks_share_is_explained_once(checks, solution_source, monkeypatch, language, short):
    """Issue 48: the double softmax was explained word for word under each of the three loss checks. The first
    failure says it in full; the two after it say it short (its id's ``.again``), each with its own values, the
    section to reread and its graded area."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    old, new, _ = WRONG["softmax before cross-entropy (the loss check names section 5, not its exercise's)"]
    result = exec_source(solution_source.replace(old, new, 1), "submission.py")
    session = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": result.namespace["MiniGPTWithWeightTying"]})
    first, *later = (session.outcome(name).message for name in _LOSS_CHECKS)
    twice, section = {"en": ("softmax applied twice", "section 5"), "zh": ("等于做了两次 softmax", "第 5 节")}[language]
    assert twice in first and short not in first, first
    for message in later:  # round 15: said as the count check says it, each with its own values
        assert message.startswith(short) and twice not in message and section in message, message
        assert message.count("\n") == 1 and len(message) < len(first), message
        assert "原因同上" not in message and "同样" not in message and "得到" not in message, message
    if language == "zh":  # the grader's form (是 … 应为 …); one request (请重读), not two in a row
        assert "）是 " in first and "，应为 " in first and "应直接传入 logits。" in first, first
        assert "请直接传入" not in first and first.count("请") == 1, first
        # round 19: one 检查 and no 先……先 in the sentence a reader tripped on
        assert first.count("检查") == 1 and "先" not in first, first
    # round 19: the diagnosis and its fix first, then why the right loss is the larger one here
    said = {
        "en": ("cross-entropy of probabilities", "give it the raw logits", "right loss is the larger"),
        "zh": ("传给交叉熵的是概率而不是 logits", "应直接传入 logits", "正确的 loss 反而更大"),
    }[language]
    places = [first.find(part) for part in said]
    assert -1 < places[0] < places[1] < places[2], first
    # round 15: the model is confident, so the right loss is far from ln V, where a loss on probabilities stays
    got, want = (float(v) for v in re.findall(r"\d+\.\d{5}", first)[:2])
    assert abs(got - math.log(50)) < 0.1 and want - got > 3, first
    # round 22: the band §5 proves (1 wide, ln V inside), not a vague "near ln V"
    band = {"en": "less than 1 from ln V", "zh": "离 ln V 不到 1"}[language]
    assert band in first and "near ln V" not in first and "ln V 附近" not in first, first
    # a check whose check above did not say it (not run here) says it in full: no "above" to point to
    alone = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": result.namespace["MiniGPTWithWeightTying"]})
    skipped = [alone.outcome(name).message for name in _LOSS_CHECKS[::2]]
    assert all(twice in message and short not in message for message in skipped), skipped


@pytest.mark.parametrize(
    "language, opening",
    [
        ("en", "untied head: self.minigpt was built with weight_tying=False (left out"),
        ("zh", "self.minigpt 是以 weight_tying=False 构建的（不传这个参数时默认也是 False"),
    ],
)
def test_a_minigpt_built_untied_is_said_once_by_what_it_was_built_with(
    checks, solution_source, monkeypatch, language, opening
):
    """Issue 48: a generic lead ("the MiniGPT is untied or wrongly tied") said again what the diagnosis after it
    said, and the diagnosis called the wrapper's model model.minigpt where every other message says self.minigpt."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    assert "weight_tying=True" in solution_source
    result = exec_source(solution_source.replace("weight_tying=True", "weight_tying=False", 1), "submission.py")
    session = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": result.namespace["MiniGPTWithWeightTying"]})
    message = session.outcome("test_wrapper_minigpt_is_tied").message
    assert message.startswith(opening) and "model.minigpt" not in message, message
    assert message.count("weight_tying=False") == 1, message


@pytest.mark.parametrize(
    "language, same, hedge",
    [
        ("en", "the same mistake as the check above: ", "copied table or untied head"),
        ("zh", "与上一项是同一个错误：", "可能是"),
    ],
)
@pytest.mark.parametrize(
    "tie", ["self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())", "pass"]
)  # a copied table; an untied head, a second table of its own
def test_a_parameter_count_under_the_tie_check_that_named_its_cause_says_so(
    checks, solution_source, monkeypatch, language, same, hedge, tie
):
    """Issue 48, round 13: under the tie check that just named the copied table (or the untied head), the count
    check hedged between the two causes. It says it is the same mistake, from the catalog's ``names`` of both
    failures; run on its own (nothing named above it), it still says the whole sentence."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    cls = exec_source(solution_source.replace(TIE, tie, 1), "submission.py").namespace["TiedEmbeddingLM"]
    count = "test_tied_holds_one_table_and_no_bias"
    session = checks.SELF_CHECK.session({"TiedEmbeddingLM": cls})
    assert not session.outcome("test_tied_head_is_the_embedding_parameter").passed
    message = session.outcome(count).message
    assert message.startswith(same) and hedge not in message and "(V, D)" in message, message
    # round 24: the model as called, in keyword form (was "TiedEmbeddingLM(V=20, D=8)", no valid call)
    assert "TiedEmbeddingLM(vocab_size=20, embed_dim=8) " in message and "(V=" not in message, message
    alone = checks.SELF_CHECK.session({"TiedEmbeddingLM": cls}).outcome(count).message
    assert same not in alone and hedge in alone, alone


FORWARD = "        x = self.token_embed(input_ids)"


@pytest.mark.parametrize(
    "language, same, hedge",
    [
        ("en", "the same mistake as the check above: ", "copied table or untied head"),
        ("zh", "与上一项是同一个错误：", "可能是"),
    ],
)
@pytest.mark.parametrize(
    "tie, in_forward",
    [("pass", f"        {TIE}\n"), ("self.lm_head.weight = nn.Parameter(self.token_embed.weight)", "")],
)  # the tie made in forward; one storage, two Parameters: each leaves a built model two Parameters of (V, D)
def test_a_parameter_count_under_a_tie_check_whose_cause_explains_a_second_table_says_so(
    checks, solution_source, monkeypatch, language, same, hedge, tie, in_forward
):
    """Issue 48, round 14: under the tie check that named the tie made in forward (w09), the count check still
    hedged between a copy and an untied head. The marking scheme's ``covers`` (that cause explains a second
    table), released as the catalog's COVERS, makes it the same mistake."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    source = solution_source.replace(TIE, tie, 1).replace(FORWARD, in_forward + FORWARD, 1)
    cls = exec_source(source, "submission.py").namespace["TiedEmbeddingLM"]
    session = checks.SELF_CHECK.session({"TiedEmbeddingLM": cls})
    tie_check = session.outcome("test_tied_head_is_the_embedding_parameter")
    assert not tie_check.passed and hedge not in tie_check.message, tie_check.message
    message = session.outcome("test_tied_holds_one_table_and_no_bias").message
    # round 23: one storage under two Parameters is no second table: it says what is true (one memory, both counted)
    what = "(V, D)" if in_forward else {"en": "over the same memory", "zh": "共用同一块内存"}[language]
    assert message.startswith(same) and hedge not in message and what in message, message


def _tie_then_sizes(checks, solution_source, line: str) -> tuple[str, str, str]:
    """The wrapper with `line` added after its MiniGPT is built: the tie check's message, the size check's under
    it, and the size check's run alone (no check above said anything)."""
    old = "            weight_tying=True,\n        )\n"
    source = solution_source.replace(old, old + f"        {line}\n", 1)
    assert source != solution_source
    cls = exec_source(source, "submission.py").namespace["MiniGPTWithWeightTying"]
    session = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": cls})
    tied, sizes = (
        session.outcome(name).message
        for name in ("test_wrapper_minigpt_is_tied", "test_wrapper_passes_every_hyperparameter")
    )
    alone = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": cls}).outcome(
        "test_wrapper_passes_every_hyperparameter"
    )
    return tied, sizes, alone.message


@pytest.mark.parametrize(
    "language, short, full",
    [
        ("en", "the same mistake as the check above: ", "only the head"),
        ("zh", "与上一项是同一个错误：", "只应有 LM head"),
    ],
)
def test_a_positional_table_tied_too_is_explained_once(checks, solution_source, monkeypatch, language, short, full):
    """Round 23 (w10): the positional table tied to the token table failed the size check with "pass every size
    on", which the student had done. The weights' shapes differ because of the mistake the check above said in
    full (decided from the shapes the model holds): said short, as that mistake, not as a size left behind."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    tied, sizes, alone = _tie_then_sizes(checks, solution_source, "self.minigpt.pos_embed = self.minigpt.token_embed")
    assert full in tied and short not in tied and tied.count("(50, 16)") == 1, tied
    assert sizes.startswith(short) and "(50, 16)" in sizes and full not in sizes, sizes
    assert "pass every size" not in sizes and "尺寸参数都传下去" not in sizes, sizes
    # where the grader's pages send it: section 4 teaches that positions keep their own table (was section 9)
    section = {"en": ("section 4,", "section 9,"), "zh": ("第 4 节", "第 9 节")}[language]
    assert all(section[0] in m and section[1] not in m for m in (tied, sizes)), (tied, sizes)
    # the message says the mistake once: no second sentence that the positional table shares the token table
    assert tied.count("token embedding 表") <= 2 and "也共享了" not in tied, tied
    assert full in alone and short not in alone, alone  # said in full when no check above said it


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_second_parameter_over_the_same_memory_is_not_called_a_second_table(
    checks, solution_source, monkeypatch, language
):
    """Round 23 (w03): a head given nn.Parameter(token_embed.weight.data) holds one block of memory under two
    Parameter objects; the count check called it a second (V, D) table. It says what is true (decided from the
    parameters' storage): both objects are listed, so the count is V * D too many; short under the identity check
    that said the mistake in full, in full on its own."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    source = solution_source.replace(TIE, "self.lm_head.weight = nn.Parameter(self.token_embed.weight.data)", 1)
    assert source != solution_source
    cls = exec_source(source, "submission.py").namespace["TiedEmbeddingLM"]
    count = "test_tied_holds_one_table_and_no_bias"
    short = checks.SELF_CHECK.session({"TiedEmbeddingLM": cls})
    short.outcome("test_tied_head_is_the_embedding_parameter")
    alone = checks.SELF_CHECK.session({"TiedEmbeddingLM": cls}).outcome(count).message
    said = {
        "en": ("the same mistake as the check above: ", "over the same memory", "second (V, D) table"),
        "zh": ("与上一项是同一个错误：", "两个参数对象共用同一块内存", "第二张 (V, D) 的表"),
    }[language]
    first = {"en": "parameters() lists both Parameter objects", "zh": "parameters() 会把共用它的两个参数对象都列出来"}
    assert short.outcome(count).message.startswith(said[0]) and said[1] in short.outcome(count).message
    assert said[0] not in alone and first[language] in alone, alone
    assert all(said[2] not in message for message in (alone, short.outcome(count).message)), alone
    # a copied table (two memories) is still called a second table
    copied = solution_source.replace(TIE, "self.lm_head.weight = nn.Parameter(self.token_embed.weight.clone())", 1)
    copied_cls = exec_source(copied, "submission.py").namespace["TiedEmbeddingLM"]
    assert said[2] in checks.SELF_CHECK.session({"TiedEmbeddingLM": copied_cls}).outcome(count).message


@pytest.mark.parametrize(
    "language, short, full, tie",
    [
        ("en", "the same mistake as the check above: ", "instead of token_embed", "positional embedding tied"),
        ("zh", "与上一项是同一个错误：", "而不是 token embedding 的表", "LM head 共享的是 positional embedding"),
    ],
)
def test_a_head_tied_to_the_positional_table_is_explained_once(
    checks, solution_source, monkeypatch, language, short, full, tie
):
    """Round 23b (w11): a head tied to the positional table instead of the token table failed the size check with
    "pass every size on", which the student had done. The weights' shapes differ because of the mistake the tie
    check above said in full (decided from the shapes the model holds: the head has the positional table's): said
    short, as that mistake, not as a size left behind; in full when no check above said it."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    line = "self.minigpt.lm_head.weight = self.minigpt.pos_embed.weight"
    tied, sizes, alone = _tie_then_sizes(checks, solution_source, line)
    assert tied.count(tie) == 1 and full in tied and short not in tied, tied  # the tie said once, in full
    assert sizes.startswith(short) and "(8, 16)" in sizes and "(50, 16)" in sizes and tie not in sizes, sizes
    assert "pass every size" not in sizes and "尺寸参数都传下去" not in sizes, sizes
    section = {"en": "section 4,", "zh": "第 4 节"}[language]  # positions keep a table of their own
    assert section in tied and section in sizes, (tied, sizes)
    assert full in alone and short not in alone and "(8, 16)" in alone, alone  # in full on its own


@pytest.mark.parametrize(
    "line, wrong, which",
    [("dropout=dropout,", "dropout=0.0,", "dropout"), ("hidden_dim=hidden_dim,", "hidden_dim=512,", "hidden_dim")],
)
def test_a_hyperparameter_not_passed_on_says_so(checks, solution_source, monkeypatch, line, wrong, which):
    """Issue 48, round 24: "……：忽略了超参数 dropout" did not say who ignored it; the line says what it shows
    ("说明没有把超参数 X 传给 MiniGPT")."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    source = solution_source.replace(line, wrong, 1)
    assert source != solution_source
    cls = exec_source(source, "submission.py").namespace["MiniGPTWithWeightTying"]
    session = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": cls})
    message = session.outcome("test_wrapper_passes_every_hyperparameter").message
    assert f"，说明没有把超参数 {which} 传给 MiniGPT" in message and "忽略了超参数" not in message, message
