"""translate_zh: every failure message the grader gives on the calibration corpus reads fully in Chinese.

The corpus runs in-process (experiments -> channel round trip -> suite, as conftest.py sets it up); each
failure message is translated and must keep no English sentence (only keywords, code, values and what the
student's code raised), keep every misconception keyword, and keep the raised text verbatim. (The run
summaries are the engine's, rendered from its catalog: tests/autograder/test_catalog.py.)

When this fails after a suite message changed: the assertion shows the English words left; add or reword that
message in the catalog (autograder/graders/weight_tying/messages*.py: its English as the suite writes it, its
Chinese beside it), then rebuild the release copies with python scripts/build_notebook.py.
"""

from __future__ import annotations

import re

import pytest

from autograder.graders import get_assignment
from autograder.graders.weight_tying.translate_zh import RULES, translate, untranslated
from autograder.graders.weight_tying.translate_zh_rules import rule
from autograder.qa.calibrate import calibration_files

# The wrong files: correct ones fail nothing (test_corpus.py holds them to it), attacks are not feedback.
CORPUS = {
    key: (path, expectation.keyword)
    for key, (path, expectation) in calibration_files(get_assignment("weight_tying").calibration_dir).items()
    if expectation.kind == "wrong"
}


# Every third wrong file by name (the default run); the sweep run translates the whole corpus.
SAMPLE = {key: CORPUS[key] for key in sorted(CORPUS)[::3]}


def _messages(corpus, plan, collect_evidence, judge) -> dict[str, list[str]]:
    """wrong calibration file -> the suite's failure messages on it."""
    out = {}
    for key, (path, _) in corpus.items():
        results = judge(plan, collect_evidence(path, plan))
        out[key] = [message for passed, message in results.values() if not passed]
    return out


@pytest.fixture(scope="module")
def messages(plan, collect_evidence, judge) -> dict[str, list[str]]:
    return _messages(SAMPLE, plan, collect_evidence, judge)


def _check(english: str) -> str | None:
    chinese = translate(english)
    left = untranslated(chinese)
    if left:
        return f"English left {left} in:\n  {english}\n  -> {chinese}"
    if not re.search(r"[\u4e00-\u9fff]", chinese):
        return f"no Chinese at all in:\n  {english}\n  -> {chinese}"
    return None


def test_the_corpus_gives_messages_to_translate(messages):
    assert sum(len(m) for m in messages.values()) > 50
    assert all(messages.values()), [key for key, texts in messages.items() if not texts]


@pytest.mark.sweep
def test_every_message_on_the_whole_corpus_reads_fully_in_chinese_and_keeps_its_keyword(plan, collect_evidence, judge):
    everything = _messages(CORPUS, plan, collect_evidence, judge)
    assert sum(len(m) for m in everything.values()) > 150
    test_every_suite_message_on_the_corpus_reads_fully_in_chinese(everything)
    test_the_misconception_keyword_survives_translation(everything)


def test_every_suite_message_on_the_corpus_reads_fully_in_chinese(messages):
    problems = sorted({p for texts in messages.values() for p in map(_check, texts) if p})
    assert problems == [], f"{len(problems)} messages not fully translated:\n" + "\n".join(problems[:15])


def test_the_misconception_keyword_survives_translation(messages):
    """Where the English names the file's misconception, the Chinese names it too, in English (the class report
    and calibrate count keywords across both editions)."""
    lost = []
    for key, texts in messages.items():
        keyword = CORPUS[key][1].lower()
        naming = [t for t in texts if keyword in t.lower()]
        assert naming, f"{key}: no message names {keyword!r} (calibration's job, but this test needs one)"
        lost += [f"{key}: {translate(t)}" for t in naming if keyword not in translate(t).lower()]
    assert lost == [], "\n".join(lost[:10])


def test_what_the_student_code_raised_stays_verbatim(messages):
    raised = [m for texts in messages.values() for m in texts if "your code raised " in m]
    assert raised, "the corpus should include code that raises"
    for english in raised:
        verbatim = english.split("your code raised ", 1)[1].split("\n")[0]
        assert f"「{verbatim}」" in translate(english)


def test_rules_are_well_formed_and_values_survive():
    for pattern, _ in RULES:
        re.compile(pattern)
    pattern, template = rule("{x} has {n} rows, expected {m}", "{x} 有 {n} 行，应为 {m} 行")
    assert re.sub(pattern, template, "table has 3 rows, expected 4") == "table 有 3 行，应为 4 行"
    assert translate("") == "" and translate("no rule knows this sentence") == "no rule knows this sentence"
    reread = translate('gradient halved (reread section 7, "Gradients from both ends add up")')
    assert reread == "梯度减半（gradient halved）（请重读第 7 节「两端的梯度相加」）"
    assert untranslated(translate("no rule knows this sentence")) == ["no rule knows this sentence"]
