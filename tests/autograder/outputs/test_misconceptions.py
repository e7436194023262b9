"""Misconceptions are counted once per student, under the root cause only."""

from __future__ import annotations

from autograder.outputs.classview import load_class
from autograder.outputs.misconceptions import misconceptions

KEYWORDS = [
    "copied table",
    "untied",
    ".data sharing",
    "no crop",
    "wrong crop",
    "wrong position",
    "sampling instead of argmax",
]
BOTH = "lm_head.weight did not change: copied table or untied head (copy.deepcopy / .clone())"
COPIED = "lm_head.weight holds a copy of token_embed.weight: copied table"
COUNT = "has 320 unique parameters, expected 160: copied table, untied head or .data sharing"
CROPS = "-> no crop / wrong crop: the model reads at most block_size tokens"
GREEDY = "it matches no greedy decoder: sampling instead of argmax, or a wrong position / crop / append"
DETERMINISTIC = "two calls returned different tokens: sampling instead of argmax"


def _counts(batch_folder, area_result, failing_by_student):
    view = load_class(batch_folder({s: area_result(f) for s, f in failing_by_student.items()}))
    return {m.name: len(m.students) for m in misconceptions(view, KEYWORDS)}


def test_a_cause_one_message_names_alone_explains_the_messages_that_list_it_among_others(batch_folder, area_result):
    counts = _counts(
        batch_folder,
        area_result,
        {
            "ann": {"parameter identity": COPIED, "parameter counts": COUNT, "shape flow": BOTH},
            "bo": {"argmax generation": DETERMINISTIC, "shape flow": GREEDY},
        },
    )
    assert counts == {"copied table": 1, "sampling instead of argmax": 1}


def test_without_a_definite_cause_a_student_counts_once_not_once_per_keyword(batch_folder, area_result):
    counts = _counts(
        batch_folder,
        area_result,
        {
            "cy": {"parameter identity": BOTH, "parameter counts": COUNT},  # both list "copied table" first
            "di": {"argmax generation": CROPS},  # one message, two causes: one entry
        },
    )
    assert counts == {"copied table": 1, "no crop or wrong crop": 1}
