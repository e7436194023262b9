"""What a warm judge reuses across the students of one plan: the reference values themselves, not just models.

A class shares one plan, so every expected value the judge computes from the plan's own inputs (logits,
losses, gradients of the judge's MiniGPTs with the plan's sizes) is the same for every correct student: the
second student's judgement must run no judge model at all. Within a judgement, each record's seal is checked
once however many tests read the record.
"""

from __future__ import annotations

import pytest

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.judge import sealed
from autograder.grading.judge.memo import end_judgement
from autograder.grading.judge.suite import Suite
from dnnlpy.models.gpt import MiniGPT


@pytest.fixture(scope="module")
def honest(plan, collect_evidence):
    return collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)


def _score(suite, plan, evidence) -> float:
    return sum(o.points for o in suite.run(plan=plan, evidence=evidence, run={"status": "ok"}) if o.passed)


def test_the_second_student_of_a_plan_runs_no_judge_model(spec, plan, honest, monkeypatch):
    suite = Suite.load(spec.suite_dir, spec.scheme)
    try:
        assert _score(suite, plan, honest) == 100
        calls = []
        forward = MiniGPT.forward
        monkeypatch.setattr(MiniGPT, "forward", lambda self, *a, **k: calls.append(1) or forward(self, *a, **k))
        assert _score(suite, plan, dict(honest)) == 100
    finally:
        suite.close()
    assert calls == [], f"the judge ran its MiniGPT {len(calls)} times for a second correct student of the plan"


def test_a_records_seal_is_checked_once_per_judgement(plan, honest, judge, monkeypatch):
    checked = []
    verdict = sealed.verdict
    monkeypatch.setattr(sealed, "verdict", lambda name, *a: checked.append(name) or verdict(name, *a))
    end_judgement()
    judge(plan, honest)
    assert checked and sorted(checked) == sorted(set(checked)), "a record's seal was checked more than once"
    first = len(checked)
    end_judgement()
    judge(plan, honest)
    assert len(checked) == 2 * first  # the next judgement checks every seal again
