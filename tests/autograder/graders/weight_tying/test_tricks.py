"""Text and evidence a student controls cannot buy a mark (issue 30): each trick of the calibration corpus
(``judge/calibration/tricks/``) scores no more than its twin, the same file without the trick, graded in the
real sandbox on one worker; a stub that forges the evidence channel scores what a stub scores and is put in
front of a TA. (The sweep tier runs every trick through ``calibrate``; this is the default tier's sample.)
"""

from __future__ import annotations

import pytest

from autograder.graders import get_assignment
from autograder.grading.pool.worker import Worker
from autograder.outputs.attention import attention
from autograder.outputs.classview import ClassView, Row, triage
from autograder.qa.calibrate import calibration_files, twin_source
from autograder.sandbox import Limits

SPEC = get_assignment("weight_tying")
SEED = 30
FILES = calibration_files(SPEC.calibration_dir)
TRICKS = sorted(name for name, (_, exp) in FILES.items() if exp.kind == "trick")
# The default tier grades these; the rest are graded by calibrate in the sweep tier.
SAMPLE = ("tricks/t05_generate_prompt_then_zeros.py", "tricks/t08_forged_frames_generate_only.py")


@pytest.fixture(scope="module")
def worker():
    worker = Worker(SPEC.name, Limits(wall_seconds=60))
    yield worker
    worker.close()


def _grade(worker, tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return worker.grade_path(path, seed=SEED)


def _needs_a_look(result) -> list[str]:
    row = Row(uid="s", name="s", result=result, kind=triage(result))
    return [group.kind for group in attention(ClassView(manifest=None, rows=[row]), lambda row: {})]


def test_the_corpus_holds_the_tricks_issue_30_measured_and_each_has_a_twin():
    assert len(TRICKS) >= 8 and set(SAMPLE) <= set(TRICKS)
    for name in TRICKS:
        text = FILES[name][0].read_text(encoding="utf-8")
        assert twin_source(text) != text, f"{name}: no line is marked '# trick'"


@pytest.mark.parametrize("name", SAMPLE)
def test_a_trick_scores_no_more_than_its_twin(name, worker, tmp_path):
    text = FILES[name][0].read_text(encoding="utf-8")
    tricked = _grade(worker, tmp_path, "tricked.py", text)
    plain = _grade(worker, tmp_path, "plain.py", twin_source(text))
    assert tricked.status == plain.status == "ok", (tricked.output, plain.output)
    assert tricked.score <= plain.score < 100, (name, tricked.score, plain.score)


def test_forged_frames_cost_what_they_erased_and_show_in_needs_a_look(worker, tmp_path):
    name = "tricks/t08_forged_frames_generate_only.py"
    result = _grade(worker, tmp_path, "forged.py", FILES[name][0].read_text(encoding="utf-8"))
    owed = [t for t in result.failing() if t.finding.kind == "owed"]
    assert owed and all(t.charged == t.points for t in owed), [(t.name, t.charged) for t in owed]
    assert any("sent more than once" in note for note in result.run.notes), result.run.notes
    assert "evidence" in _needs_a_look(result)


def test_a_stub_that_forges_frames_scores_what_a_stub_scores_and_needs_a_look(worker, tmp_path):
    result = _grade(worker, tmp_path, "a39.py", FILES["attacks/a39_forged_frames_stub.py"][0].read_text("utf-8"))
    assert result.score == 0 and result.status == "ok", result.output
    assert "evidence" in _needs_a_look(result)
