"""The self-check's loss checks when the loss fails because of a mistake another check names: a head tied to the
positional table (w11) makes block_size-wide logits, so every loss fails; they say it is the tie check's mistake,
short, and send the student to section 4, not to a target shift. A loss's own shift mistake keeps its own words.

Each wrong answer is the reference with one edit, or a calibration answer, checked in-process as
test_release_selfcheck.py does.
"""

from __future__ import annotations

import pytest

from autograder.graders.kit import KIT_ROOT
from coursecheck.notebook import exec_source

WRONG = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration" / "wrong"
LOSSES = (
    "test_wrapper_loss_without_targets",
    "test_wrapper_loss_with_shorter_targets",
    "test_wrapper_loss_with_full_length_targets",
)
BUILT = "            weight_tying=True,\n        )\n"
ON_POSITIONS = BUILT + "        self.minigpt.lm_head.weight = self.minigpt.pos_embed.weight\n"
LOSS = "return self.minigpt.loss(input_ids, targets)"
SHIFT = {"en": "loss target shift wrong", "zh": "错开"}  # every shift hint says it
SAME = {
    "en": ("the same mistake as the check “its head is its token table", "section 4,"),
    "zh": (
        "与“self.minigpt 的 LM head 与 token embedding 共享同一张表；位置表保持独立”这项检查是同一个错误",
        "第 4 节",
    ),
}


def _losses(checks, source: str) -> list:
    cls = exec_source(source, "submission.py").namespace["MiniGPTWithWeightTying"]
    session = checks.SELF_CHECK.session({"MiniGPTWithWeightTying": cls})
    return [session.outcome(name) for name in LOSSES]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize(
    "loss",
    [
        LOSS,  # MiniGPT's own loss: cross-entropy stops at a class id past the 8 the head scores
        "return self.minigpt(input_ids).sum() * 0",  # a loss that returns anyway: nothing to compare it with
    ],
)
def test_a_head_tied_to_the_positional_table_fails_the_loss_checks_as_the_tie_checks_mistake(
    checks, solution_source, monkeypatch, language, loss
):
    """Round 23c (w11): the three loss checks failed with "class id 33, outside [0, 8)" and two of them then asked
    "loss target shift wrong?". The cause is the head's shape (the positional table's, (block_size, D)), a value the
    checks read: each loss check says it is the tie check's mistake, short, with section 4; the marks stay (failed)."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    source = solution_source.replace(BUILT, ON_POSITIONS, 1).replace(LOSS, loss, 1)
    assert ON_POSITIONS in source and loss in source, "edit no longer applies"
    same, section = SAME[language]
    for outcome in _losses(checks, source):
        message = outcome.message
        assert not outcome.passed and message.startswith(same), message
        assert "(8, 16)" in message and "(50, 16)" in message and section in message, message
        assert SHIFT[language] not in message and "class id" not in message, message


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_positional_table_tied_too_leaves_the_loss_checks_passing(checks, solution_source, monkeypatch, language):
    """Round 23c (w10): the positional table tied to the token table is (V, D) wide, so the head stays the token
    table's shape and the loss is right: no knock-on on the loss checks, nothing said there."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    source = (WRONG / "w10_pos_embed_also_tied.py").read_text(encoding="utf-8")
    assert all(outcome.passed for outcome in _losses(checks, source))


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("answer", ["w27_loss_no_shift.py", "w28_loss_shift_wrong_way.py"])
def test_a_real_shift_mistake_keeps_its_shift_hint(checks, monkeypatch, language, answer):
    """A loss that shifts its targets wrongly, with the head tied right, is still said to be a shift mistake."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    first = _losses(checks, (WRONG / answer).read_text(encoding="utf-8"))[0]
    assert not first.passed and SHIFT[language] in first.message, first.message
    assert SAME[language][0] not in first.message, first.message


@pytest.mark.parametrize(
    "answer, cause",
    [("w27_loss_no_shift.py", "目标没有错开一位"), ("w28_loss_shift_wrong_way.py", "目标错开的方向反了")],
)
def test_a_shift_mistake_with_no_targets_given_does_not_blame_targets(checks, monkeypatch, answer, cause):
    """Issue 48, round 26: loss(ids) called with no targets said "targets 没有错开一位", blaming an argument never
    passed; what is predicted is named 目标 there."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    first = _losses(checks, (WRONG / answer).read_text(encoding="utf-8"))[0]
    assert not first.passed and first.message.startswith("loss(ids)（不给 targets 时）"), first.message
    assert cause in first.message and "targets 没有错开" not in first.message, first.message
    assert "targets 错开的方向" not in first.message, first.message
