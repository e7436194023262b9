"""Two hyper-parameters passed in each other's place cost what one ignored hyper-parameter costs.

The submission is the reference with num_layers and num_heads swapped in the wrapper's MiniGPT call. On seed 7
every shape case builds, and the judge must name the ignored hyper-parameter in the shape tests (the logits are
a MiniGPT's with another num_heads) and let the gradient and dropout checks that read those logits wait on the
state_dict test, instead of charging each again (78 before).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.qa.inprocess import InProcessGrader

ROOT = Path(__file__).resolve().parents[4]
CALIBRATION = ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration" / "wrong"
CALL = "            num_layers=num_layers,\n            num_heads=num_heads,\n"
SWAPPED = "            num_layers=num_heads,\n            num_heads=num_layers,\n"


@pytest.fixture(scope="module")
def grader():
    spec = get_assignment("weight_tying")
    return spec, InProcessGrader(spec)


def test_swapped_num_layers_and_num_heads_cost_one_ignored_hyperparameter(grader):
    spec, g = grader
    reference = (ROOT / "solutions" / "weight_tying.py").read_text(encoding="utf-8")
    assert reference.count(CALL) == 1, "the reference no longer passes num_layers and num_heads as this test expects"
    plan = spec.make_plan(7)
    score, marked = g.grade(reference.replace(CALL, SWAPPED), plan)
    one_ignored, _ = g.grade(CALIBRATION / "w14_ignores_num_layers.py", plan)
    assert score == one_ignored == 94.0
    shapes = marked["test_wrapper_shapes_and_values"]
    assert not shapes.passed and shapes.finding.names == "hyperparameter_ignored"
    for name in ("test_wrapper_shared_gradient_is_sum_of_paths", "test_wrapper_dropout_honoured"):
        assert marked[name].finding.waits_on == "test_wrapper_state_dict_matches_hyperparameters", name
