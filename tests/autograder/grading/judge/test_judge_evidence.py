"""The suites' evidence helpers: a record the runner owed and did not send is owed evidence, whatever the run
noted; what the student's code raised is a plain failure, quoted briefly."""

from __future__ import annotations

import pytest

from autograder.grading.judge.suite_api import Failed, entry, need, plain_tensor
from autograder.protocol.said import render


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


def test_the_starter_code_is_named_by_the_class_or_the_method_still_unwritten():
    """The runner names a method with its class; the headline names what to write, the place the method."""
    stub = {"error": "NotImplementedError:   (at <notebook> [cell 24]:41 in MiniGPTWithWeightTying.generate)"}
    with pytest.raises(Failed) as caught:
        entry(stub, "generate(input_ids, max_new_tokens=3)")
    for language, headline, place in (
        ("en", "MiniGPTWithWeightTying.generate is not implemented yet", "NotImplementedError (cell 25, line 41);"),
        ("zh", "MiniGPTWithWeightTying.generate 还没有实现：第 25 个单元格第 41 行仍是初始代码", "换成你自己的代码"),
    ):
        said = render(caught.value.finding.said, language)
        assert said.startswith(headline) and place in said, said  # the line in the sentence, not after it
    constructor = {"error": "NotImplementedError:   (at <notebook> [cell 14]:7 in TiedEmbeddingLM.__init__)"}
    with pytest.raises(Failed) as caught:
        entry(constructor, "TiedEmbeddingLM (parameter count)")
    assert render(caught.value.finding.said, "zh").startswith("TiedEmbeddingLM 还没有实现：")


def test_where_a_py_files_code_raised_is_its_line_in_the_readers_words():
    """Issue 48: a .py hand-in's exception ended "(at w18.py:48 in MiniGPTWithWeightTying.generate)", English in a
    Chinese line; its line is the file's own, said as a notebook's cell is. A frame outside the hand-in (a path)
    names no line the student could look at."""
    raised = {"error": "ValueError: input_ids has shape (3, 7)  (at w18.py:48 in MiniGPTWithWeightTying.generate)"}
    with pytest.raises(Failed) as caught:
        entry(raised, "generate(input_ids, max_new_tokens=9)")
    for language, said in (
        ("zh", "“ValueError: input_ids has shape (3, 7)”（第 48 行，在 generate 中）"),
        ("en", "ValueError: input_ids has shape (3, 7) (at line 48, in generate)"),
    ):
        text = render(caught.value.finding.said, language)
        assert text.endswith(said) and "w18.py" not in text, text
    library = {"error": "ValueError: bad  (at /usr/lib/python3.11/copy.py:48 in deepcopy)"}
    with pytest.raises(Failed) as caught:
        entry(library, "x")
    assert "第 48 行" not in render(caught.value.finding.said, "zh")
    stub = {"error": "NotImplementedError:   (at w57.py:45 in MiniGPTWithWeightTying.loss)"}
    with pytest.raises(Failed) as caught:
        entry(stub, "loss(ids)")
    starter = render(caught.value.finding.said, "zh")
    assert starter.startswith("MiniGPTWithWeightTying.loss 还没有实现：第 45 行仍是初始代码"), starter
