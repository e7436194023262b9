"""Messages name the right cause (issue 19 item 7): an untied MiniGPT is named by its flag, not as a copy; a loss
that raises is a loss that does not run, not a shift misread."""

from __future__ import annotations

from autograder.graders import get_assignment
from autograder.graders.kit import SOLUTIONS_DIR

SPEC = get_assignment("weight_tying")
SOLUTION = (SOLUTIONS_DIR / "weight_tying.py").read_text()


def test_a_wrapper_that_leaves_the_flag_out_is_named_by_its_flag(plan, collect_evidence, judge):
    source = (SPEC.calibration_dir / "wrong" / "w58_wrapper_flag_left_out.py").read_text()
    results = judge(plan, collect_evidence(source, plan))
    ok, message = results["test_wrapper_head_is_the_embedding_parameter"]
    assert not ok and "weight_tying=False" in message and "untied head" in message
    assert ".clone()" not in message and "copied table" not in message and "deepcopy" not in message


def test_a_loss_that_raises_is_not_a_shift_misread(plan, collect_evidence, judge, score):
    old = "        return self.minigpt.loss(input_ids, targets)\n"
    assert SOLUTION.count(old) == 1
    source = SOLUTION.replace(old, "        raise RuntimeError('a typo in my loss')\n")
    results = judge(plan, collect_evidence(source, plan))
    failing = {name: msg for name, (ok, msg) in results.items() if not ok}
    assert set(failing) == {
        "test_wrapper_loss_without_targets",
        "test_wrapper_loss_with_shorter_targets",
        "test_wrapper_loss_with_full_length_targets",
    }
    for message in failing.values():
        assert "loss raises" in message and "shift" not in message, message
    assert score(results) == 88  # no training objective: the cost of a loss never written (w57)
