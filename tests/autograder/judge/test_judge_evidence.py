"""The suites' evidence helpers: a missing record says why, including when the decoder refused it."""

from __future__ import annotations

import pytest

from autograder.grading.judge.suite_api import EvidenceError, entry, need


def test_a_refused_record_says_it_was_refused_and_why():
    run = {
        "status": "ok",
        "notes": ["evidence frame for 'lm_grad' refused, treated as missing: a list is referenced twice"],
    }
    with pytest.raises(EvidenceError, match="refused what the run sent.*referenced twice"):
        need({}, "lm_grad", run)
    with pytest.raises(EvidenceError, match="did not report"):
        need({}, "lm_identity", run)  # another record's note says nothing about this one


def test_an_error_of_any_shape_is_reported_briefly():
    nested: list = ["x"]
    for _ in range(30):
        nested = [nested, list(range(100))]
    with pytest.raises(EvidenceError) as exc:
        entry({"error": nested}, "experiment 'x'")
    assert len(str(exc.value)) < 400
