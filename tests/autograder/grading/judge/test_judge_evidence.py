"""The suites' evidence helpers: a record the runner owed and did not send is owed evidence, whatever the run
noted; what the student's code raised is a plain failure, quoted briefly."""

from __future__ import annotations

import pytest

from autograder.grading.judge.suite_api import Failed, entry, need, plain_tensor


def test_a_missing_record_is_owed_evidence_whatever_a_note_says():
    run = {
        "status": "ok",
        "notes": ["evidence frame for 'lm_grad' refused, treated as missing: not checked because a list"],
    }
    with pytest.raises(Failed) as caught:
        need({}, "lm_grad", run)
    assert caught.value.finding.owed and caught.value.finding.waits_on is None  # never a knock-on
    assert "refused, sent twice or never sent" in str(caught.value)
    assert "not checked because" not in str(caught.value)  # a note's words are nobody's finding
    with pytest.raises(Failed) as caught:
        need({"lm_grad": ["not", "a", "dict"]}, "lm_grad", run)
    assert caught.value.finding.owed


def test_a_value_the_runner_always_records_is_owed_and_a_wrong_one_is_the_students():
    with pytest.raises(Failed) as caught:
        plain_tensor({}, "logits")
    assert caught.value.finding.owed
    with pytest.raises(Failed) as caught:
        plain_tensor({"logits": None}, "logits")
    assert caught.value.finding.kind == "plain"


def test_an_error_of_any_shape_is_reported_briefly():
    nested: list = ["x"]
    for _ in range(30):
        nested = [nested, list(range(100))]
    with pytest.raises(Failed) as exc:
        entry({"error": nested}, "experiment 'x'")
    assert len(str(exc.value)) < 400 and exc.value.finding.kind == "plain"
