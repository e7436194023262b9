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
