"""The calibration corpus walked through the public checks: what students see before the grader does.

Every correct file (any style) passes every check; every wrong file fails at least one check whose message
names the file's misconception keyword (the `# expect: wrong <keyword>` header, as MISCONCEPTIONS.md words
it), in English and, with WEIGHT_TYING_LANG=zh, in Chinese with no English sentence left.
"""

from __future__ import annotations

import pytest

from autograder.calibrate import calibration_files
from autograder.graders import get_assignment
from autograder.graders.weight_tying.translate_zh import untranslated
from dnnlpy.notebook import exec_source, load_notebook

CORPUS = {
    key: (path, expectation.kind, expectation.keyword)
    for key, (path, expectation) in calibration_files(get_assignment("weight_tying").calibration_dir).items()
    if expectation.kind in ("correct", "wrong")
}
CLASSES = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")


def _outcomes(checks, path) -> dict:
    loaded = load_notebook(path) if path.suffix == ".ipynb" else exec_source(path.read_text("utf-8"), path.name)
    session = checks.Session({name: loaded.namespace.get(name) for name in CLASSES})
    return {name: session.outcome(name) for name in checks.CHECKS}


@pytest.fixture(scope="module")
def english(checks) -> dict[str, dict]:
    return {key: _outcomes(checks, path) for key, (path, _, _) in CORPUS.items()}


def test_the_corpus_is_there():
    kinds = [kind for _, kind, _ in CORPUS.values()]
    assert kinds.count("correct") >= 8 and kinds.count("wrong") >= 25


def test_every_correct_file_passes_every_check(english):
    failing = {
        key: {name: o.message for name, o in outcomes.items() if not o.passed}
        for key, outcomes in english.items()
        if CORPUS[key][1] == "correct"
    }
    assert {key: f for key, f in failing.items() if f} == {}


def test_every_wrong_file_is_named_by_a_failing_check(english):
    unnamed = {}
    for key, outcomes in english.items():
        _, kind, keyword = CORPUS[key]
        if kind != "wrong":
            continue
        messages = [o.message for o in outcomes.values() if o.status == "failed"]
        if not any(keyword.lower() in m.lower() for m in messages):
            unnamed[key] = (keyword, messages)
    assert unnamed == {}


def _chinese_problems(checks, monkeypatch, keys) -> list[str]:
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    problems = []
    for key in keys:
        path, _, keyword = CORPUS[key]
        messages = [o.message for o in _outcomes(checks, path).values() if o.message]
        problems += [f"{key}: English left {untranslated(m)} in {m}" for m in messages if untranslated(m)]
        if not any(keyword.lower() in m.lower() for m in messages):
            problems.append(f"{key}: no Chinese message names {keyword!r}")
    return problems


WRONG = sorted(key for key, (_, kind, _) in CORPUS.items() if kind == "wrong")


def test_in_chinese_every_message_is_chinese_and_still_names_the_keyword(checks, monkeypatch):
    """Every third wrong file by name; the sweep run takes them all (as test_translate_zh does)."""
    problems = _chinese_problems(checks, monkeypatch, WRONG[::3])
    assert problems == [], "\n".join(problems[:10])


@pytest.mark.sweep
def test_in_chinese_every_wrong_file_reads_in_chinese_and_names_its_keyword(checks, monkeypatch):
    problems = _chinese_problems(checks, monkeypatch, WRONG)
    assert problems == [], "\n".join(problems[:10])
