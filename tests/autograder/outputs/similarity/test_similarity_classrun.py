"""The pass in a class run: after the grades, on the instructor's side only. grades.csv gains similar_to and keeps
every mark; the report gains its section and a linked line per pair in Needs a look; no feedback page, result file
or Gradescope JSON says a word of it; a pass that fails is a warning, never a lost grade."""

from __future__ import annotations

import csv
import json
import re

import pytest

import autograder.grading.executors
import autograder.outputs.similarity.detect
from autograder.cli.main import main
from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.grading.findings import Finding
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, grade_class
from autograder.outputs.similarity.detect import SimilarityOptions
from autograder.protocol.said import Said

CALIBRATION = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"
AREAS = {"parameter identity": 24, "argmax generation": 18}


def _fake_batch(*, submissions, seed, on_result, **_):
    """Every hand-in 24 of 42, whatever it holds (the grader is not what this tests)."""
    for uid in sorted(submissions):
        failed = Finding(Said("judge.failed_your_code_raised", what="X", text="boom"))
        tests = [
            TestOutcome(
                f"test_{n}.py::test_{n}", p, a, n == 0, None if n == 0 else failed, 0.0 if n == 0 else p, "test"
            )
            for n, (a, p) in enumerate(AREAS.items())
        ]
        result = Result(tests=tests, run=RunFacts(status="ok"), seed=seed, execution_time=1.0)
        on_result(uid, rendered(result, get_assignment("weight_tying")))  # as step 8 leaves it


def _four(copied: str) -> dict[str, tuple[str, str]]:
    """alice's correct file `copied`, bob's disguised copy of it in the other edition, carol's and dave's own."""
    read = lambda rel: (CALIBRATION / rel).read_text(encoding="utf-8")  # noqa: E731
    return {
        "alice": (read(f"correct/{copied}.py"), "en"),
        "bob": (read(f"similarity/copies/{copied}__all.py"), "zh"),
        "carol": (read("correct/c02_reverse_tie.py"), "en"),
        "dave": (read("correct/c10_forward_by_parts.py"), "py"),
    }


@pytest.fixture
def graded(tmp_path, monkeypatch, class_of):
    """A class of four graded twice, into `plain` without the pass and `out` with it: alice and bob (a disguised
    copy of alice's, in the other edition) are a pair, carol and dave are not."""
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", _fake_batch)
    root = class_of(_four("c04_einsum_manual_loss"))
    found = find_submissions([root], assignment="weight_tying", also=("weight_tying_zh",), notebook="weight_tying")

    def run(out, options):
        job = ClassJob(assignment="weight_tying", paths=(root,), out=out, seed=3, progress=False, similarity=options)
        return grade_class(job, submissions=found)

    plain = run(tmp_path / "plain", None)
    outcome = run(tmp_path / "out", SimilarityOptions())
    return tmp_path, plain, outcome


def _untimed(page: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "WHEN", page)


def _rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["student"]: row for row in csv.DictReader(fh)}


def test_grades_gain_similar_to_and_keep_every_mark(graded):
    tmp_path, plain, outcome = graded
    assert plain.similarity is None and [(p.a_name, p.b_name) for p in outcome.similarity.pairs] == [("alice", "bob")]
    before, after = _rows(tmp_path / "plain" / "grades.csv"), _rows(tmp_path / "out" / "grades.csv")
    assert after["alice"]["similar_to"].startswith("bob (") and after["bob"]["similar_to"].startswith("alice (")
    assert after["carol"]["similar_to"] == after["dave"]["similar_to"] == ""
    for name, row in before.items():
        assert row["similar_to"] == "" and after[name] == {**row, "similar_to": after[name]["similar_to"]}
    for uid in ("alice", "bob", "carol", "dave"):
        mine = json.loads((tmp_path / "out" / "results" / f"{uid}.json").read_text())
        theirs = json.loads((tmp_path / "plain" / "results" / f"{uid}.json").read_text())
        assert mine["result"] == theirs["result"]


def test_the_report_lists_the_pair_and_links_its_page_from_needs_a_look(graded):
    tmp_path, _, outcome = graded
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    page = outcome.similarity.pairs[0].page
    assert '<h2 id="similar">Similar hand-ins</h2>' in report and "similar hand-ins" in report
    assert report.count(f'href="{page}"') == 2  # the section's link and Needs a look's
    side_by_side = (tmp_path / "out" / page).read_text(encoding="utf-8")
    assert "alice" in side_by_side and "bob" in side_by_side and "<mark>" in side_by_side
    assert "Similar hand-ins" not in (tmp_path / "plain" / "report.html").read_text(encoding="utf-8")


def test_no_student_ever_sees_it(graded):
    tmp_path, _, outcome = graded
    for uid, other in (("alice", "bob"), ("bob", "alice")):
        page = (tmp_path / "out" / "feedback" / f"{uid}.html").read_text(encoding="utf-8")
        plain = (tmp_path / "plain" / "feedback" / f"{uid}.html").read_text(encoding="utf-8")
        assert _untimed(page) == _untimed(plain)  # the same page but for when it was graded
        assert "similar" not in page.lower() and f">{other}<" not in page
        result = Result.from_wire(json.loads((tmp_path / "out" / "results" / f"{uid}.json").read_text())["result"])
        sent = json.dumps(gradescope_results(result))
        assert "similar" not in sent.lower() and other not in sent


def test_a_pass_that_fails_is_a_warning_and_the_grades_stand(tmp_path, monkeypatch, class_of):
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", _fake_batch)

    def broken(*args, **kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr(autograder.outputs.similarity.detect, "run_similarity", broken)
    root = class_of({"a": ("x = 1\n", "py"), "b": ("y = 2\n", "py")})
    job = ClassJob(assignment="weight_tying", paths=(root,), out=tmp_path / "out", seed=3, progress=False)
    job = ClassJob(**{**job.__dict__, "similarity": SimilarityOptions()})
    outcome = grade_class(job, submissions={"a": root / "a.py", "b": root / "b.py"})
    assert any("similarity pass did not run (MemoryError: no room)" in w for w in outcome.warnings)
    assert set(_rows(tmp_path / "out" / "grades.csv")) == {"a", "b"} and outcome.report is not None


def test_the_command_alone_gives_a_graded_folder_similar_to(tmp_path, batch_folder, area_result, class_of):
    """`python -m autograder similarity` on a folder graded earlier: its grades.csv and report written again, the
    marks as the results say."""
    out = batch_folder({"alice": area_result(), "bob": area_result(), "carol": area_result(), "dave": area_result()})
    root = class_of(_four("c06_custom_init_after_tie"))
    assert not (out / "grades.csv").exists()  # batch_folder writes results and the manifest only
    assert main(["similarity", "--assignment", "weight_tying", str(root), "--out", str(out)]) == 0
    with open(out / "grades.csv", newline="", encoding="utf-8") as fh:
        rows = {row["student"]: row for row in csv.DictReader(fh)}
    assert rows["alice"]["similar_to"].startswith("bob (") and rows["dave"]["similar_to"] == ""
    assert {row["score"] for row in rows.values()} == {"100.0"}
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Similar hand-ins" in report and "similar/" in report
