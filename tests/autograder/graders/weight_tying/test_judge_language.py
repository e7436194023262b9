"""The judge decides on values; words are rendered last, in whichever language reads them.

On the calibration corpus's wrong files, in process: each failure's finding (a message id, its parameters, the
misconception's id) is rendered in Chinese with no English sentence left outside code and the book's terms
(zh_text.py), what the student's code raised kept verbatim between “”; and rewording every English message
of every catalog (or renaming every misconception's title) regrades the corpus to the same marks and findings:
no text decides a mark.

When this fails after a suite message changed: the assertion names the test and its Chinese text; build that
message with ``say("its.id", ...)`` (judge/words.py) from the catalog (messages*.py, English and Chinese side by
side), then run python scripts/build_notebook.py.
"""

from __future__ import annotations

import re

import pytest

from autograder.graders import get_assignment
from autograder.graders.weight_tying.judge.words import say
from autograder.graders.weight_tying.messages import render
from autograder.graders.weight_tying.runner.seal import verdict
from autograder.graders.weight_tying.zh_text import untranslated
from autograder.grading.findings import Failed
from autograder.grading.judge.memo import end_judgement
from autograder.protocol import said
from autograder.qa.calibrate import calibration_files
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")
SEED = 7
HAN = re.compile(r"[\u4e00-\u9fff]")
WRONG = {
    key: path
    for key, (path, expectation) in calibration_files(SPEC.calibration_dir).items()
    if expectation.kind == "wrong"
}
SAMPLE = {key: WRONG[key] for key in sorted(WRONG)[::6]}  # every sixth by name; the sweep takes them all


def _grade(corpus: dict) -> dict:
    """wrong file -> {test: marked outcome}, seed 7, in process."""
    grader = InProcessGrader(SPEC)
    plan = SPEC.make_plan(SEED)
    return {key: grader.grade(path, plan)[1] for key, path in corpus.items()}


@pytest.fixture(scope="module")
def graded() -> dict:
    return _grade(SAMPLE)


def _problems(graded: dict) -> list[str]:
    problems = []
    for key, outcomes in graded.items():
        for name, test in outcomes.items():
            if test.passed:
                assert test.message("zh") == "", (key, name)
                continue
            text = test.message("zh")
            if not HAN.search(text) or untranslated(text):
                problems.append(f"{key} {name}: English left {untranslated(text)} in\n  {text}")
            for part in test.finding.said.walk():
                raised = part.params.get("text") if part.key == "judge.failed_your_code_raised" else None
                if isinstance(raised, str) and f"“{raised}”" not in text:
                    problems.append(f"{key} {name}: the raised text is not kept verbatim in\n  {text}")
    return problems


def test_every_finding_of_the_corpus_reads_in_chinese(graded):
    assert sum(not t.passed for outcomes in graded.values() for t in outcomes.values()) > 25
    problems = _problems(graded)
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:12])


@pytest.mark.sweep
def test_every_finding_of_the_whole_corpus_reads_in_chinese():
    problems = _problems(_grade(WRONG))
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:12])


def _marks(graded: dict) -> dict:
    return {
        key: [(n, o.passed, o.charged, o.charged_to, o.finding and o.finding.to_wire()) for n, o in outcomes.items()]
        for key, outcomes in graded.items()
    }


def test_rewording_every_english_message_and_title_moves_no_mark(graded, monkeypatch):
    """Every English template of every registered catalog (engine, grader, misconception titles) replaced by
    words that share nothing with it: the corpus grades to the same charges and the same findings."""
    for key, message in list(said.registered().items()):
        kept = " ".join("{" + p + "}" for p in sorted(said.parameters(message.en)))
        monkeypatch.setitem(said._REGISTRY, key, said.Message(f"reworded {len(key)} {kept}", message.zh, message.names))
    reworded = _grade(SAMPLE)
    assert _marks(reworded) == _marks(graded)
    some = next(o for outcomes in reworded.values() for o in outcomes.values() if not o.passed)
    assert some.message("en").startswith("reworded ")  # the English really was replaced


def test_every_seal_verdict_is_a_message_of_the_catalog():
    """seal.py's verdicts are catalog ids with their parameters, rendered where shown in either language."""
    from autograder.graders.weight_tying.runner.evidence import LmIdentity

    verdicts = [
        verdict("lm_identity", record, LmIdentity)
        for record in ({}, {"seal": "tampered: emit replaced"}, {"seal": "0" * 64})
    ]
    assert [key for key, _ in verdicts] == ["seal.none", "seal.tampered", "seal.changed"]
    for key, params in verdicts:
        assert render(key, "en", **params) and render(key, "zh", **params), key


def test_a_refused_seal_is_owed_evidence_read_in_either_language():
    """sealed.py keeps one verdict per record for the judgement (its catalog id, no words): the finding is owed
    evidence, and renders in each language."""
    from autograder.graders.weight_tying.judge import sealed

    record = {"seal": "tampered: emit replaced"}
    end_judgement()
    try:
        with pytest.raises(Failed) as error:
            sealed.need({"lm_identity": record}, "lm_identity", what="TiedEmbeddingLM")
    finally:
        end_judgement()
    finding = error.value.finding
    assert finding.owed and finding.names is None
    assert finding.render("en") == (
        "TiedEmbeddingLM: evidence refused: the grader's runner was changed while your code ran (emit replaced); a "
        "record the runner did not send as measured earns nothing"
    )
    chinese = finding.render("zh")
    assert "“emit replaced”" in chinese and HAN.search(chinese) and not untranslated(chinese)


@pytest.mark.parametrize(
    ("frame", "case", "reads"),
    [
        (
            ("judge.what_problem", {"problem": "x"}),
            ("judge.shapes.lm_case", {"v": 38, "d": 14, "shape": (1, 4)}),
            "input_ids 形状为 (1, 4) 时，TiedEmbeddingLM(vocab_size=38, embed_dim=14) 中，x",
        ),
        (
            ("judge.shapes.transposed_values", {}),
            ("judge.shapes.gpt_case", {"args": "vocab_size=5", "shape": (2, 3)}),
            "input_ids 形状为 (2, 3) 时，MiniGPTWithWeightTying(vocab_size=5) 的 logits 是 E[ids] @ E，",
        ),
        (
            ("judge.gen.delegated", {"names": "MiniGPT.generate", "area": "a"}),
            ("suite.case.generate_call", {"shape": (3, 2), "n": 3, "block": 6}),
            "input_ids 形状为 (3, 2)、block_size=6 时，generate(input_ids, max_new_tokens=3) 在运行中调用了",
        ),
    ],
)
def test_a_case_reads_as_a_clause_before_the_sentence_it_opens(frame, case, reads):
    """Issue 48, round 23, item 1: "TiedEmbeddingLM(…)（input_ids 形状为 (1, 1)）中，" read awkwardly; in Chinese a
    case says its input first ("input_ids 形状为 … 时，") and ends on the model or call, which the sentence goes on
    from ("中，", "的", "在运行中")."""
    key, params = frame
    text = said.render(say(key, what=say(case[0], **case[1]), **params), "zh")
    assert text.startswith(reads), text
