"""translate_zh: the run summaries of every run status read fully in Chinese.

The hidden suite's messages no longer go through translate_zh: the judge renders them from the catalog in the
submission's language (test_judge_language.py checks them on the calibration corpus). What is left here is the
engine's run summary, until it too is rendered from the catalog.

When this fails after a run summary changed: the assertion shows the English words left; add or reword that
message in the catalog (autograder/graders/weight_tying/messages*.py: its English as the engine writes it, its
Chinese beside it), then rebuild the release copies with python scripts/build_notebook.py.
"""

from __future__ import annotations

import re

import pytest

from autograder.graders.weight_tying.translate_zh import RULES, translate, untranslated
from autograder.graders.weight_tying.translate_zh_rules import rule
from autograder.grading.result import STATUS_WORDS, RunFacts
from autograder.grading.submissions import SubmissionTooLarge, read_submission


def _check(english: str) -> str | None:
    chinese = translate(english)
    left = untranslated(chinese)
    if left:
        return f"English left {left} in:\n  {english}\n  -> {chinese}"
    if not re.search(r"[\u4e00-\u9fff]", chinese):
        return f"no Chinese at all in:\n  {english}\n  -> {chinese}"
    return None


@pytest.fixture(scope="module")
def too_large(tmp_path_factory) -> str:
    """What the grader says of a notebook over the size limit (its real words, with a tiny limit)."""
    path = tmp_path_factory.mktemp("big") / "weight_tying.ipynb"
    path.write_text("{}" + " " * 2048)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("autograder.grading.submissions.MAX_SUBMISSION_BYTES", 1024)
        with pytest.raises(SubmissionTooLarge) as error:
            read_submission(path)
    return str(error.value)


@pytest.mark.parametrize("status", sorted(STATUS_WORDS))
def test_every_run_summary_reads_fully_in_chinese(status, too_large):
    run = RunFacts(
        status=status,
        exit_code=3,
        signal=9,
        limit=60.0,
        memory="2 GiB",
        load_errors=[[4, "SyntaxError: invalid syntax (weight_tying.ipynb [cell 4], line 2)"]],
        required_names=["TiedEmbeddingLM", "MiniGPTWithWeightTying"],
        defined=["TiedEmbeddingLM"],
    )
    refused = RunFacts(status=status, rejected=too_large)
    for line in run.summary().splitlines() + refused.summary().splitlines():
        assert _check(line) is None, _check(line)
    assert "SyntaxError: invalid syntax" in translate(run.summary())


def test_rules_are_well_formed_and_values_survive():
    for pattern, _ in RULES:
        re.compile(pattern)
    pattern, template = rule("{x} has {n} rows, expected {m}", "{x} 有 {n} 行，应为 {m} 行")
    assert re.sub(pattern, template, "table has 3 rows, expected 4") == "table 有 3 行，应为 4 行"
    assert translate("") == "" and translate("no rule knows this sentence") == "no rule knows this sentence"
    reread = translate('gradient halved (reread section 7, "Gradients from both ends add up")')
    assert reread == "梯度减半（gradient halved）（请重读第 7 节「两端的梯度相加」）"
    assert untranslated(translate("no rule knows this sentence")) == ["no rule knows this sentence"]
