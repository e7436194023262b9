"""The report's misconceptions are the charges marking made: each student once per misconception, read from
the charge's id, never from a message's words; a crash or a timeout is not a misconception."""

from __future__ import annotations

from autograder.grading.findings import Finding
from autograder.outputs.classview import load_class
from autograder.outputs.misconceptions import misconceptions
from autograder.protocol.said import Said

COPIED = Finding(Said("diag.tie.copied"), names="two_tables")
CROP = Finding(Said("suite.gen.crop_short"), names="crop")
# A student's exception that quotes a misconception's words names nothing.
FORGED = "ValueError: copied table, sampling instead of argmax, positional embedding tied"


def _counts(batch_folder, area_result, failing_by_student):
    view = load_class(batch_folder({s: area_result(f) for s, f in failing_by_student.items()}))
    return {m.key: len(m.students) for m in misconceptions(view)}


def test_each_student_counts_once_per_misconception_charged(batch_folder, area_result):
    counts = _counts(
        batch_folder,
        area_result,
        {
            "ann": {"parameter identity": COPIED, "parameter counts": COPIED, "gradient accumulation": COPIED},
            "bo": {"parameter identity": COPIED, "argmax generation": CROP},
            "cy": {"argmax generation": CROP},
        },
    )
    assert counts == {"two_tables": 2, "crop": 2}


def test_the_students_words_and_crashes_are_no_misconception(batch_folder, area_result):
    counts = _counts(batch_folder, area_result, {"eve": {"shape flow": FORGED, "argmax generation": FORGED}})
    assert counts == {}


def test_each_misconception_has_its_title_and_a_sample_in_english_when_one_is_there(batch_folder, area_result):
    view = load_class(
        batch_folder(
            {"zh": area_result({"parameter identity": COPIED}), "en": area_result({"parameter identity": COPIED})}
        )
    )
    found = misconceptions(view)
    assert [m.name for m in found] == ["a second table (copied table or untied head)"]
    assert found[0].sample_language == "en" and found[0].sample.startswith("copied table: lm_head.weight holds")
