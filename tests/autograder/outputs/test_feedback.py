"""A student's feedback page: failures first, one card per reason, readable names, nothing of the grader."""

from __future__ import annotations

import re

import pytest

from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.feedback import failure_groups, feedback_html, write_feedback

RAISED = "{} failed: your code raised NotImplementedError:   (at <notebook> [cell 25]:16 in __init__)"
COPIED = "lm_head.weight did not change after an in-place change of token_embed.weight: copied table"


def _stub() -> Result:
    tests = [
        TestOutcome(
            "test_identity.py::test_wrapper_head_is_the_embedding_parameter",
            6,
            "parameter identity",
            False,
            RAISED.format("MiniGPTWithWeightTying (identity check)"),
        ),
        TestOutcome(
            "test_counts.py::test_wrapper_counts_untied_minus_vd",
            4,
            "parameter counts",
            False,
            RAISED.format("MiniGPTWithWeightTying(vocab_size=17)"),
        ),
        TestOutcome(
            "test_shapes.py::test_wrapper_float64",
            2,
            "shape flow",
            False,
            RAISED.format("MiniGPTWithWeightTying (.to(torch.float64))"),
        ),
    ]
    run = RunFacts(status="ok", load_errors=[[19, "NotImplementedError: "]], stderr_tail="Traceback: /kit/runner.py")
    return Result(tests=tests, run=run)


def _copied() -> Result:
    tests = [
        TestOutcome(
            "test_identity.py::test_tied_lm_head_is_the_embedding_parameter",
            6,
            "parameter identity",
            False,
            f"TiedEmbeddingLM: {COPIED}",
        ),
        TestOutcome(
            "test_identity.py::test_tied_lm_tie_survives_to_float64",
            2,
            "parameter identity",
            False,
            f"TiedEmbeddingLM after .to(torch.float64): {COPIED}",
        ),
        TestOutcome("test_shapes.py::test_tied_lm_shapes_and_values", 8, "shape flow", True, ""),
        TestOutcome(
            "test_counts.py::test_tied_lm_counts_one_table",
            4,
            "parameter counts",
            False,
            "TiedEmbeddingLM(vocab_size=5, embed_dim=9) has 90 unique parameters, expected 45",
        ),
    ]
    return Result(tests=tests, run=RunFacts(status="ok"))


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_one_exception_behind_many_tests_is_said_once_with_the_tests_under_it():
    html = feedback_html(_stub(), student="stub", assignment="weight_tying")
    assert html.count("Your code raised NotImplementedError (at cell 26, line 16, in __init__)") == 1
    assert html.count('class="card"') == 1 and "Costs 12 points over 3 tests" in html
    assert "wrapper head is the embedding parameter" in html and "test_identity.py" not in html
    assert "still the starter code" in html
    assert "cell 20 raised NotImplementedError: it uses a part" in _text(html)
    assert "Cells are numbered from 1" in html
    assert "/kit/runner.py" not in html and "Traceback" not in html  # grader internals stay out


def test_a_card_says_what_the_marking_scheme_charged_not_the_tests_points():
    knock = "TiedEmbeddingLM: the gradient was not checked because forward does not compute E[ids] @ E.T"
    tests = [
        TestOutcome(
            "test_identity.py::test_tied_lm_head_is_the_embedding_parameter",
            6,
            "parameter identity",
            False,
            COPIED,
            charged=6.0,
        ),
        TestOutcome(
            "test_identity.py::test_wrapper_head_is_the_embedding_parameter",
            6,
            "parameter identity",
            True,
            "",
            charged=6.0,
        ),
        TestOutcome(
            "test_gradients.py::test_tied_lm_shared_gradient_is_sum_of_paths",
            6,
            "gradient accumulation",
            False,
            knock,
            charged=0.0,
        ),
    ]
    html = feedback_html(Result(tests=tests, run=None), student="s", assignment="weight_tying")
    assert "Costs 0 points" in html  # a knock-on: its root cause is charged where it is named
    assert "Costs 6 points" in html and "Score: 6 / 18" in html


def test_a_message_repeated_for_several_subjects_is_collapsed_and_failures_come_before_passes():
    html = feedback_html(_copied(), student="ann", assignment="weight_tying")
    assert html.count(COPIED) == 1  # once, not once per test
    assert "checking TiedEmbeddingLM after .to(torch.float64)" in _text(html)
    assert html.index("What to fix") < html.index("Passed (1 test)")
    assert "<title>weight_tying: feedback for ann</title>" in html
    groups = failure_groups(_copied().failing())
    assert [sum(t.points for _, t in members) for _, members in groups] == [8, 4]  # most points lost first


def test_student_text_is_escaped_and_a_lone_surrogate_still_writes_the_page(tmp_path):
    evil = "<script>alert('x')</script> \udcff"
    result = Result(tests=[TestOutcome("t.py::test_a", 1, "a", False, evil)], run=RunFacts(status="ok"))
    path = write_feedback(result, tmp_path / "fb" / "eve.html", student="<b>eve</b>", assignment="selftest")
    page = path.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page and "&lt;b&gt;eve" in page
    assert "\\udcff" in page


def test_a_result_with_missing_fields_still_gets_a_page(tmp_path):
    weird = Result(tests=[TestOutcome("?", 0.0, "other", False, "")], run=None)  # no run facts, no message
    page = write_feedback(weird, tmp_path / "w.html").read_text()
    assert "Score: 0 / 0" in page and "status: unknown" in page and 'class="card"' in page
    with pytest.raises(TypeError, match="Result"):
        write_feedback({"score": 1}, tmp_path / "x.html")
