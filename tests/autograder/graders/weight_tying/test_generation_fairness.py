"""Generation is judged on the student's loop alone: on a model the judge can load whatever size the wrapper
ignored, and with dropout off on a model handed over in train mode (issue 19 items 6 and 7)."""

from __future__ import annotations

import torch

from autograder.graders import get_assignment
from autograder.graders.weight_tying.judge.suite.test_generation import train_mode_what
from autograder.protocol.said import render

SPEC = get_assignment("weight_tying")
WRONG = SPEC.calibration_dir / "wrong"
CROP = "            context = ids[:, -self.minigpt.block_size:]\n"


def _cost(misconception: str, *tests: str) -> float:
    """What the scheme charges for it when these tests (of one exercise) show it: at most their points."""
    scheme = SPEC.scheme
    charged = 0.0
    for area, cost in scheme.misconceptions[misconception].costs.items():
        charged += min(cost, sum(scheme.tests[t].points for t in tests if scheme.tests[t].area == area))
    return charged


def test_a_wrong_loop_in_a_wrapper_that_ignores_a_size_is_still_graded(plan, collect_evidence, judge, score):
    """w14 (num_layers hard-coded) with its crop removed: the judge's weights cannot go into its MiniGPT, yet the
    loop runs on one that holds them and its own mistake is named and charged."""
    right = (WRONG / "w14_ignores_num_layers.py").read_text()
    assert right.count(CROP) == 1
    no_crop = right.replace(CROP, "            context = ids\n")
    base = score(judge(plan, collect_evidence(right, plan)))
    results = judge(plan, collect_evidence(no_crop, plan))
    failing = {name: o.finding for name, o in results.items() if not o.passed}
    assert failing["test_generate_greedy_past_block_size"].names == "crop", failing
    generation = [n for n in failing if n.startswith("test_generate")]
    assert score(results) == base - _cost("crop", *generation)


def test_a_decoder_that_leaves_dropout_on_is_named_and_restoring_the_mode_is_not_graded(
    plan, collect_evidence, judge, score
):
    source = (WRONG / "w59_generate_dropout_on.py").read_text()
    results = judge(plan, collect_evidence(source, plan))
    failing = {name: o.finding for name, o in results.items() if not o.passed}
    assert list(failing) == ["test_generate_turns_dropout_off"], failing
    assert failing["test_generate_turns_dropout_off"].names == "dropout_in_generate"
    assert score(results) == 100 - _cost("dropout_in_generate", "test_generate_turns_dropout_off")
    # Switching to eval mode and never switching back keeps full marks (good practice, not the lesson).
    fixed = source.replace(
        "    def generate(self, input_ids, max_new_tokens):\n",
        "    def generate(self, input_ids, max_new_tokens):\n        self.eval()\n",
    )
    assert fixed != source
    assert score(judge(plan, collect_evidence(fixed, plan))) == 100


def test_a_wrong_position_decoder_is_not_charged_for_dropout_too(collect_evidence, judge):
    """w23 (the first position's logits) switches to eval mode; on seed 13 its wrong tokens equal the ones a
    dropout-1 model gives, which once named "dropout on while decoding" too (84 against 90 on other seeds). The
    dropout test judges its own fact, the same tokens in train mode as in eval mode, which holds: it passes, and
    the decoder's mistake is charged once, by the greedy tests that name it."""
    source = (WRONG / "w23_generate_first_position.py").read_text()
    plan = SPEC.make_plan(13)
    results = judge(plan, collect_evidence(source, plan))
    assert results["test_generate_turns_dropout_off"].passed, results["test_generate_turns_dropout_off"].message()
    greedy = results["test_generate_greedy_within_block_size"]
    assert not greedy.passed and greedy.finding.names == "position_or_append"


def test_a_loop_no_model_explains_is_never_credited_for_its_right_kind_of_output(collect_evidence, judge, mark):
    """A generate that never calls the model (the prompt's last token repeated) returns int64 of the right shape,
    the prompt in front, the same on both calls and in either mode: none of that is credited (a knock-on of the
    greedy test, which costs its own points), so it scores what the starter's NotImplementedError scores."""
    source = (WRONG / "w23_generate_first_position.py").read_text()
    start = source.index("    def generate(")
    lazy = source[:start] + (
        "    def generate(self, input_ids, max_new_tokens):\n"
        "        return torch.cat([input_ids, input_ids[:, -1:].expand(-1, max_new_tokens)], dim=1)\n"
    )
    plan = SPEC.make_plan(7)
    results = mark(judge(plan, collect_evidence(lazy, plan)))
    generation = [o for o in results.values() if o.area == "argmax generation"]
    assert not any(o.passed for o in generation)
    assert sum(o.charged for o in generation) == 18


def test_the_train_mode_call_shows_its_dropout_as_a_probability():
    """Issue 48, round 18, item 3: "dropout=1，模型处于训练模式" read as "dropout on"; the dropout is a float (a
    probability), so the call shows it as 1.0 in both languages."""
    case = {"ids": torch.zeros(3, 2, dtype=torch.int64), "max_new_tokens": 3, "cfg": {"block_size": 6, "dropout": 1.0}}
    zh, en = render(train_mode_what(case), "zh"), render(train_mode_what(case), "en")
    assert zh.startswith("模型处于训练模式（dropout=1.0），") and "dropout=1.0, the model in train mode" in en, (zh, en)


def test_the_train_mode_call_as_a_label_names_the_call_first():
    """Issue 48, round 26, item 4: as the page's "the call checked", the train-mode call read "…时，generate(…)",
    a clause waiting for its verb; it takes the label form the other calls have: the call, then its conditions."""
    from autograder.grading.rendering import standalone

    case = {"ids": torch.zeros(3, 2, dtype=torch.int64), "max_new_tokens": 3, "cfg": {"block_size": 6, "dropout": 1.0}}
    label = standalone(train_mode_what(case), SPEC)
    zh, en = render(label, "zh"), render(label, "en")
    call = "generate(input_ids, max_new_tokens=3)，"
    assert zh == call + "其中模型处于训练模式（dropout=1.0），input_ids 形状为 (3, 2)，block_size=6", zh
    assert en.startswith("generate(input_ids, max_new_tokens=3), where the model is in train mode (dropout=1.0)"), en
    assert render(train_mode_what(case), "zh").startswith("模型处于训练模式（dropout=1.0），")  # a sentence's subject
