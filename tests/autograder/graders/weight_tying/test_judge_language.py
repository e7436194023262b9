"""The judge speaks the submission's language: every failure message rendered from the catalog where it is built.

The hidden suite runs every test in English (the marking scheme reads English), then each failed test again in
the submission's language (``TestOutcome.localized``). On the calibration corpus's wrong files, in process, the
Chinese grading gives the English grading's marks and messages, and every failed test's Chinese message reads
in Chinese: no English sentence outside keywords, code and what the student's code raised (zh_text.py), the
file's misconception keyword kept, the raised text verbatim between 「」.

When this fails after a suite message changed: the assertion names the test and its Chinese text; build that
message with ``say("its.id", ...)`` (judge/words.py) from the catalog (messages*.py: English exactly as before,
Chinese beside it), then run python scripts/build_notebook.py.
"""

from __future__ import annotations

import re

import pytest

from autograder.graders import get_assignment
from autograder.graders.weight_tying.messages import CATALOG
from autograder.graders.weight_tying.runner.seal import PROBLEMS
from autograder.graders.weight_tying.zh_text import untranslated
from autograder.grading.judge.server import WarmJudge, checked_language
from autograder.grading.pipeline import Submission, judge_language
from autograder.qa.calibrate import calibration_files
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")
SEED = 7
HAN = re.compile(r"[\u4e00-\u9fff]")
WRONG = {
    key: (path, expectation.keyword)
    for key, (path, expectation) in calibration_files(SPEC.calibration_dir).items()
    if expectation.kind == "wrong"
}
SAMPLE = {key: WRONG[key] for key in sorted(WRONG)[::6]}  # every sixth by name; the sweep takes them all


def _grade(corpus: dict) -> dict:
    """wrong file -> (English outcomes, Chinese outcomes, English score, Chinese score), seed 7, in process."""
    grader = InProcessGrader(SPEC)
    plan = SPEC.make_plan(SEED)
    out = {}
    for key, (path, _) in corpus.items():
        evidence = grader.evidence(path, plan)
        english = grader.outcomes(plan, evidence)
        chinese = grader.outcomes(plan, evidence, language="zh")
        scores = [grader.score({t.name: (t.passed, t.output) for t in tests}) for tests in (english, chinese)]
        out[key] = (english, chinese, *scores)
    return out


@pytest.fixture(scope="module")
def graded() -> dict:
    return _grade(SAMPLE)


def _problems(graded: dict) -> list[str]:
    problems = []
    for key, (english, chinese, en_score, zh_score) in graded.items():
        keyword = WRONG[key][1].lower()
        if en_score != zh_score or [(t.passed, t.output) for t in english] != [(t.passed, t.output) for t in chinese]:
            problems.append(f"{key}: the Chinese grading differs from the English one ({en_score} vs {zh_score})")
        if any(t.localized for t in english):
            problems.append(f"{key}: an English grading has localized messages")
        for test in chinese:
            if test.passed:
                assert test.localized == "", (key, test.name)
                continue
            text = test.localized
            if not HAN.search(text) or untranslated(text):
                problems.append(f"{key} {test.name}: English left {untranslated(text)} in\n  {text}")
            if keyword in test.output.lower() and keyword not in text.lower():
                problems.append(f"{key} {test.name}: the keyword {keyword!r} is lost in\n  {text}")
            if "your code raised " in test.output:
                raised = test.output.split("your code raised ", 1)[1].split("\n")[0]
                if f"「{raised}」" not in text:
                    problems.append(f"{key} {test.name}: the raised text is not kept verbatim in\n  {text}")
    return problems


def test_a_chinese_grading_of_the_corpus_marks_as_english_and_reads_in_chinese(graded):
    assert sum(not t.passed for english, *_ in graded.values() for t in english) > 25
    assert any("your code raised " in t.output for english, *_ in graded.values() for t in english)
    problems = _problems(graded)
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:12])


@pytest.mark.sweep
def test_the_whole_corpus_in_chinese_marks_as_english_and_reads_in_chinese():
    everything = _grade(WRONG)
    problems = _problems(everything)
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:12])


def test_the_suite_helpers_and_the_seal_speak_the_catalogs_english():
    """seal.py's own English templates are the catalog's, so English stays byte for byte (suite_api speaks from
    the engine's catalog: test_catalog.py)."""
    for key, english in PROBLEMS.items():
        assert key in CATALOG and CATALOG[key].en == english, key


def test_the_judge_request_refuses_a_language_its_grader_does_not_render():
    assert checked_language(SPEC, "zh") == "zh"
    for bad in ("fr", "", None, "EN"):
        with pytest.raises(ValueError, match=re.escape(f"language={bad!r}")) as error:
            WarmJudge(SPEC).judge(SEED, None, None, lambda message: None, bad)
        assert "en, zh" in str(error.value)


def test_the_judge_language_is_the_files_when_the_grader_speaks_it():
    assert judge_language(SPEC, Submission("py", "# language: zh\nx = 1\n", "a.py")) == "zh"
    assert judge_language(SPEC, Submission("py", "# language: fr\nx = 1\n", "a.py")) == "en"
    assert judge_language(SPEC, Submission("py", "x = 1\n", "a.py")) == "en"
    assert judge_language(get_assignment("selftest"), Submission("py", "# language: zh\n", "a.py")) == "en"


def test_both_suite_runners_render_each_failed_test_again_in_the_language_asked():
    """The lean runner (pool) and pytest.main (fresh path) give the same English and the same Chinese."""
    from autograder.grading.judge.direct import DirectSuite
    from autograder.grading.judge.plugin import run_suite

    plan, run = SPEC.make_plan(SEED), {"status": "timeout"}
    suite = DirectSuite.load(SPEC.suite_dir)
    try:
        lean = list(suite.run(plan=plan, evidence={}, run=run, language="zh"))
        english = list(suite.run(plan=plan, evidence={}, run=run))
    finally:
        suite.close()
    full, _ = run_suite(suite_dir=SPEC.suite_dir, plan=plan, evidence={}, run=run, language="zh")
    assert [(t.name, t.output, t.localized) for t in lean] == [(t.name, t.output, t.localized) for t in full]
    assert [t.output for t in lean] == [t.output for t in english] and not any(t.localized for t in english)
    assert all(not t.passed and HAN.search(t.localized) and not untranslated(t.localized) for t in lean)
    assert "提交在运行到这里之前就因超时被终止" in lean[0].localized


def test_a_refused_seal_reads_in_the_judgements_language_though_its_verdict_is_kept(monkeypatch):
    """sealed.py keeps one verdict per record for the judgement (its catalog id, no words): the English run and
    the Chinese rerun of a test both render it, each in its own language."""
    from autograder.graders.weight_tying.judge import sealed
    from autograder.grading.judge.memo import end_judgement
    from autograder.grading.judge.suite_api import speaking

    record = {"seal": "tampered: emit replaced"}
    english = chinese = ""
    end_judgement()
    try:
        for lang in ("en", "zh"):
            with speaking(lang), pytest.raises(AssertionError) as error:
                sealed.need({"lm_identity": record}, "lm_identity", what="TiedEmbeddingLM")
            english, chinese = (str(error.value), chinese) if lang == "en" else (english, str(error.value))
    finally:
        end_judgement()
    assert english == (
        "TiedEmbeddingLM: evidence refused: the grader's runner was changed while your code ran (emit replaced); a "
        "record the runner did not send as measured earns nothing"
    )
    assert "「emit replaced」" in chinese and HAN.search(chinese) and not untranslated(chinese)
