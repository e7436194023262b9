"""The run's own records are the runner's word: any shape is read without raising, malformed parts noted."""

from __future__ import annotations

import pytest

from autograder.protocol.run_records import MAX_LOAD_ERRORS, error_text, read_load

REQUIRED = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")


def test_a_well_formed_load_record_is_read_as_is():
    facts = read_load({"errors": [[2, "NameError: x"]], "defined": ["TiedEmbeddingLM"]}, REQUIRED)
    assert facts.errors == [[2, "NameError: x"]] and facts.defined == ["TiedEmbeddingLM"] and facts.notes == []


def test_the_reviews_malformed_record_is_noted_not_fatal():
    facts = read_load({"errors": [[1, "ok"], [1, "a", "b"], "x", [True, "bool index"], [3, 4]], "defined": 5}, REQUIRED)
    assert facts.errors == [[1, "ok"]] and facts.defined == []
    assert any("4 malformed" in n for n in facts.notes) and any("defined is not a list (int)" in n for n in facts.notes)


@pytest.mark.parametrize("record", [[1, 2], "text", {"errors": {"a": 1}}, {"errors": None, "defined": "Tied"}])
def test_any_shape_is_read_without_raising(record):
    facts = read_load(record, REQUIRED)
    assert facts.errors == [] and facts.defined == [] and facts.notes


def test_errors_and_messages_are_bounded_and_defined_names_are_the_required_ones():
    facts = read_load({"errors": [[k, "m" * 10_000] for k in range(500)], "defined": [*REQUIRED, "Extra", 7]}, REQUIRED)
    assert len(facts.errors) == MAX_LOAD_ERRORS and all(len(m) == 2000 for _, m in facts.errors)
    assert facts.defined == list(REQUIRED)
    assert read_load(None, REQUIRED).notes == []  # no record at all: the run ended before loading


def test_error_text_is_short_whatever_the_error_is():
    nested: list = [1]
    for _ in range(50):
        nested = [nested, list(range(1000))]
    assert len(error_text(nested)) < 400 and error_text("x" * 5000, 100) == "x" * 100
    assert error_text(None) == "None"


def test_the_last_running_report_says_where_a_run_stopped_when_it_agrees_with_the_rest():
    from autograder.protocol.frames import MAX_RUNNING
    from autograder.protocol.run_records import read_running

    cells = {"__running__0": {"cell": 3, "check": ""}, "__running__1": {"cell": 12, "check": ""}}
    assert read_running(cells) == {"cell": 12}  # loading never finished: the last slow cell
    checks = {**cells, "__load__": {}, "__running__2": {"cell": -1, "check": "gpt_generate"}}
    assert read_running(checks) == {"check": "gpt_generate"}
    assert read_running({**cells, "__load__": {}}) == {}  # a cell after loading finished is stale
    assert read_running({"__running__0": ["cell", 3]}) == {} and read_running({}) == {}
    full = {f"__running__{i}": {"cell": i, "check": ""} for i in range(MAX_RUNNING)}
    assert read_running(full) == {}  # the runner ran out of reports: its last one may be stale


def test_the_refused_record_is_read_bounded_whatever_its_shape():
    from autograder.protocol.run_records import MAX_REFUSED, read_refused

    files, calls = read_refused({"files": ["/a", 3, "", "x" * 600, *[f"/f{n}" for n in range(100)]], "calls": "no"})
    assert files[0] == "/a" and len(files) <= MAX_REFUSED and all(isinstance(f, str) and f for f in files)
    assert calls == [] and read_refused(None) == ([], []) and read_refused([1]) == ([], [])
