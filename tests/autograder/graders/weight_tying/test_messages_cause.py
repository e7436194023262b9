"""Messages name the right cause (issue 19 item 7): an untied MiniGPT is named by its flag, not as a copy; a loss
that raises is a loss that does not run, not a shift misread."""

from __future__ import annotations

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import SOLUTIONS_DIR

SPEC = get_assignment("weight_tying")
SOLUTION = (SOLUTIONS_DIR / "weight_tying.py").read_text()


def test_a_wrapper_that_leaves_the_flag_out_is_named_by_its_flag(plan, collect_evidence, judge):
    source = (SPEC.calibration_dir / "wrong" / "w58_wrapper_flag_left_out.py").read_text()
    results = judge(plan, collect_evidence(source, plan))
    outcome = results["test_wrapper_head_is_the_embedding_parameter"]
    message = outcome.message()
    assert not outcome.passed and "weight_tying=False" in message and "untied head" in message
    assert outcome.finding.names == "two_tables"
    assert ".clone()" not in message and "copied table" not in message and "deepcopy" not in message


def test_a_loss_that_raises_is_not_a_shift_misread(plan, collect_evidence, judge, score):
    """What it raised is never read: a loss that raises for every target form is a loss that does not run."""
    old = "        return self.minigpt.loss(input_ids, targets)\n"
    assert SOLUTION.count(old) == 1
    source = SOLUTION.replace(old, "        raise RuntimeError('a typo in my loss')\n")
    results = judge(plan, collect_evidence(source, plan))
    failing = {name: o for name, o in results.items() if not o.passed}
    assert set(failing) == {"test_wrapper_loss_values", "test_wrapper_loss_reaches_the_model"}
    assert failing["test_wrapper_loss_values"].finding.names == "loss_not_written"
    assert failing["test_wrapper_loss_reaches_the_model"].finding.waits_on == "test_wrapper_loss_values"
    cost = SPEC.scheme.misconceptions["loss_not_written"].costs["shape flow"]
    assert score(results) == 100 - cost  # no training objective: the cost of a loss never written (w57)
    # whatever the student's text says: an error that mentions shapes is not a shift misread
    shapes = SOLUTION.replace(old, "        raise RuntimeError('shape mismatch: size of tensor a must match')\n")
    assert judge(plan, collect_evidence(shapes, plan))["test_wrapper_loss_values"].finding.names == "loss_not_written"


def test_a_class_missing_behind_a_syntax_error_is_said_to_be_its_consequence(plan, collect_evidence, judge):
    """Issue 48: a class the run never defined because its cell did not compile is named as the syntax error's
    consequence (the run's lines name the cell and the line), never as a class to spell again."""
    source = SOLUTION.replace("class TiedEmbeddingLM(", "class NotTheExercise(", 1)
    evidence = collect_evidence(source, plan)
    names = ["TiedEmbeddingLM", "MiniGPTWithWeightTying"]
    run = {"status": "ok", "required_names": names, "defined": names[1:]}
    syntax = {**run, "load_errors": [[14, "SyntaxError: expected ':' (line 1: class TiedEmbeddingLM(nn.Module))"]]}
    for facts, key in ((run, "judge.class_not_defined"), (syntax, "judge.class_not_defined_syntax")):
        outcome = judge(plan, evidence, facts, only=["test_tied_lm_counts_one_table"])["test_tied_lm_counts_one_table"]
        assert outcome.finding.said.first().key == key and outcome.finding.names is None
    zh = outcome.message("zh")
    assert zh.startswith("由于语法错误，TiedEmbeddingLM 没有定义") and "“代码的运行情况”" in zh and zh.endswith("。")


def test_a_loss_left_as_the_starter_code_says_so_once(plan, collect_evidence, judge):
    """Issue 48: the starter's NotImplementedError, then what it means for the loss, each said once, each line a
    sentence ended in Chinese."""
    old = "        return self.minigpt.loss(input_ids, targets)\n"
    source = SOLUTION.replace(old, "        raise NotImplementedError()\n")
    outcome = judge(plan, collect_evidence(source, plan), only=["test_wrapper_loss_values"])["test_wrapper_loss_values"]
    assert outcome.finding.names == "loss_not_written"
    for language, starter in (("en", "starter code"), ("zh", "初始代码")):
        first, then = outcome.message(language).splitlines()  # the starter code, then what it means: once each
        assert starter in first and starter not in then and "NotImplementedError" not in then
    assert all(line.endswith("。") for line in outcome.message("zh").splitlines())
    # nothing was written to reread: the notebook's section is where to read what to write (issue 48)
    assert "请完成第 9 节" in outcome.message("zh") and "请重读" not in outcome.message("zh")
    assert "(complete section 9" in outcome.message("en") and "reread" not in outcome.message("en")
    assert "因此算不出训练用的 loss" in outcome.message("zh") and "训练目标" not in outcome.message("zh")
    written = SOLUTION.replace(old, "        raise ValueError('my own bug')\n")  # written, and wrong: reread
    raised = judge(plan, collect_evidence(written, plan), only=["test_wrapper_loss_values"])["test_wrapper_loss_values"]
    assert raised.finding.names == "loss_not_written" and "请重读第 9 节" in raised.message("zh")


def _wrong(name: str) -> str:
    return (SPEC.calibration_dir / "wrong" / name).read_text()


def test_which_targets_go_with_which_logits_is_said_only_where_the_shift_is_the_mistake(plan, collect_evidence, judge):
    """Issue 48: a softmax before cross_entropy (w73, its targets shifted right) was told which ids predict which;
    an unshifted loss (w27) still is."""
    test = "test_wrapper_loss_values"
    softmax = judge(plan, collect_evidence(_wrong("w73_loss_softmax_before_cross_entropy.py"), plan), only=[test])
    unshifted = judge(plan, collect_evidence(_wrong("w27_loss_no_shift.py"), plan), only=[test])
    assert softmax[test].finding.names == "loss_softmax" and unshifted[test].finding.names == "loss_shift"
    for language, hint in (
        ("en", "input_ids[:, :-1] predicts input_ids[:, 1:]"),
        ("zh", "应由 input_ids[:, :-1] 预测"),
    ):
        assert "logits" in softmax[test].message(language) and hint not in softmax[test].message(language)
        assert hint in unshifted[test].message(language)
    # round 26: its call passed no targets, so what was not shifted is the loss's own target, not "targets"
    zh = unshifted[test].message("zh")
    assert "目标没有错开一位，用每个位置的 logits 去预测这个位置自己的 token" in zh and "targets 没有错开" not in zh, zh


def test_a_generate_that_does_not_crop_is_not_named_twice_on_its_card(plan, collect_evidence, judge):
    """Issue 48: the card's title is the misconception's ("no crop or wrong crop"); the message under it said the
    title again before what to do."""
    from autograder.graders.weight_tying.messages import misconception_title

    test = "test_generate_greedy_past_block_size"
    outcome = judge(plan, collect_evidence(_wrong("w18_generate_no_crop.py"), plan), only=[test])[test]
    assert outcome.finding.names == "crop"
    for language in ("en", "zh"):
        message = outcome.message(language)
        assert "block_size" in message.splitlines()[1] and misconception_title("crop", language) not in message
    # round 8: how many more cases show it is said before the section to reread, which comes last
    zh = outcome.message("zh")
    assert "另有 2 组输入同样没有通过。请重读第 9 节" in zh and zh.rstrip().endswith("”。"), zh
    assert outcome.message("en").index("(and 2 more input(s))") < outcome.message("en").index("section 9")


@pytest.mark.parametrize(("name", "section"), [("w69_exercise_1_only.py", 9), ("w70_exercise_2_only.py", 6)])
def test_a_class_left_as_the_starter_code_points_to_its_exercise_once(plan, collect_evidence, judge, name, section):
    """Issue 48, round 23, item 2: a card on a class still raising the starter's NotImplementedError sends the
    student to the section of its exercise (judge/sealed.SECTION), once, whichever test leads the card."""
    outcomes = judge(plan, collect_evidence(_wrong(name), plan)).values()
    starters = [o for o in outcomes if o.finding is not None and o.finding.starter]
    assert len(starters) >= 5, [o.test for o in outcomes]
    for o in starters:
        zh, en = o.message("zh"), o.message("en")
        assert zh.count("请完成第") == 1 and f"请完成第 {section} 节" in zh and "请重读" not in zh, zh
        assert en.count("(complete section") == 1 and f"(complete section {section}," in en and "reread" not in en, en
