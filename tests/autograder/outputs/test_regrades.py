"""The regrade record (regrades.jsonl): each run that moves a mark appends who moved, from what to what, and why
(hand-in, marking scheme, an option), a killed run's moves included; and the pages placed for release_feedback
that a regrade made stale are listed in the report's Needs a look."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

import autograder.grading.executors
from autograder.graders import get_assignment
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, grade_class
from autograder.outputs.regrades import RECORD, why_moved

GOOD, BAD = "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"


class Killed(BaseException):
    """kill -9 as the batch sees it: nothing after it runs."""


class Batch:
    """3 points for a file that adds, 0 otherwise (a notebook: its `points` marker); `kill`: stop after grading."""

    def __init__(self, kill: bool = False) -> None:
        self.kill = kill

    def __call__(self, *, assignment, submissions, on_result, seed, **_):
        for uid, path in sorted(submissions.items()):
            text = Path(path).read_text()
            ok = "a + b" in text or '"points": 3' in text
            tests = [TestOutcome("test_add.py::test_same_shape", 3.0, "values", ok)]
            result = Result(tests=tests, run=RunFacts(status="ok"), seed=seed, execution_time=1.0)
            on_result(uid, rendered(result, get_assignment(assignment)))  # as step 8 leaves it
        if self.kill:
            raise Killed


def _class(tmp_path: Path, **students: str) -> Path:
    root = tmp_path / "course" / "submitted"
    for student, (body, stamp) in students.items():
        folder = root / student / "selftest"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "selftest.py").write_text(body)
        (folder / "timestamp.txt").write_text(f"2026-05-04 {stamp}.000000 UTC")
    return root


def _run(root: Path, monkeypatch, batch=None, assignment: str = "selftest", **options):
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch or Batch())
    job = ClassJob(assignment=assignment, paths=(root,), out=root.parent.parent / "graded", progress=False, **options)
    return grade_class(job, submissions=find_submissions([root], assignment=assignment))


def _record(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root.parent.parent / "graded" / RECORD).read_text().splitlines()]


def test_each_regrade_appends_who_moved_from_what_to_what_and_why(tmp_path, monkeypatch):
    root = _class(tmp_path, ann=(GOOD, "11:00:00"), ben=(GOOD, "12:30:00"), cy=(BAD, "11:00:00"))
    _run(root, monkeypatch, due="2026-05-04 12:00 UTC", late_penalty="1/hour")
    assert not (root.parent.parent / "graded" / RECORD).exists()  # a first grading moves nobody
    (root / "cy" / "selftest" / "selftest.py").write_text(GOOD)  # cy hands in again
    _run(root, monkeypatch, late_penalty="2/hour", accept_new_options=True)
    (line,) = _record(root)
    assert line["options"] == ["--late-penalty: 1/hour in this folder, 2/hour now"]
    moved = {m["student"]: m for m in line["moved"]}
    assert sorted(moved) == ["ben", "cy"]
    assert moved["cy"]["from"] == {"score": 0.0, "penalty": 0.0, "final": 0.0}
    assert moved["cy"]["to"] == {"score": 3.0, "penalty": 0.0, "final": 3.0} and moved["cy"]["why"] == [
        "hand-in changed"
    ]
    assert (moved["ben"]["from"]["final"], moved["ben"]["to"]["final"]) == (2.0, 1.0)
    assert moved["ben"]["why"] == ["--late-penalty changed"]
    _run(root, monkeypatch)
    _run(root, monkeypatch, force=True)
    assert len(_record(root)) == 1  # nothing moved: nothing appended


def test_a_killed_regrades_moves_are_recorded_by_the_resume(tmp_path, monkeypatch):
    root = _class(tmp_path, ann=(GOOD, "11:00:00"), cy=(BAD, "11:00:00"))
    _run(root, monkeypatch)
    (root / "cy" / "selftest" / "selftest.py").write_text(GOOD)
    with pytest.raises(Killed):
        _run(root, monkeypatch, Batch(kill=True))  # cy's new result is on disk, the run never finished
    resumed = _run(root, monkeypatch)
    assert resumed.graded == [] and [m["why"] for m in _record(root)[0]["moved"]] == [["hand-in changed"]]


def test_why_reads_what_made_each_mark():
    was = {"score": 3.0, "penalty": 1.0, "final": 2.0, "inputs": {"seed": 1, "scheme": "a", "due": "x"}}
    assert why_moved(was, {**was, "score": 2.0, "final": 1.0, "inputs": {**was["inputs"], "scheme": "b"}}) == [
        "marking scheme changed"
    ]
    assert why_moved(was, {**was, "score": 2.0, "final": 1.0}) == ["regraded (--force or --student)"]
    late = why_moved(was, {**was, "penalty": 2.0, "final": 1.0})
    assert late == ["lateness changed (timestamp.txt, or the gradebook's due date or extension)"]


def _hand_in_notebook(course: Path, student: str, points: int) -> None:
    folder = course / "submitted" / student / "weight_tying"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "weight_tying.ipynb").write_text(
        json.dumps({"cells": [], "metadata": {"points": points}, "nbformat": 4, "nbformat_minor": 5})
    )
    (folder / "timestamp.txt").write_text("2026-05-04 11:00:00.000000 UTC\n")
    (folder / "submission_secret.txt").write_text(f"secret-of-{student}\n")


def test_a_page_placed_for_release_that_a_regrade_changed_is_listed_as_stale(tmp_path, monkeypatch):
    course = tmp_path / "course"
    for student in ("ann", "bo"):
        _hand_in_notebook(course, student, 0)
    first = _run(course / "submitted", monkeypatch, assignment="weight_tying", course=course)
    assert sorted(first.placement.how.values()) == ["exchange", "exchange"] and first.stale_pages == []
    assert (course / "feedback" / "ann" / "weight_tying" / "weight_tying.html").is_file()
    _hand_in_notebook(course, "ann", 3)  # ann's mark moves; bo's page stays what it was
    second = _run(course / "submitted", monkeypatch, assignment="weight_tying")  # the course: the folder's
    assert second.stale_pages == ["ann"] and second.placement is not None
    look = html.unescape(re.sub(r"<[^>]+>", "", second.report.read_text(encoding="utf-8")))
    look = " ".join(look[look.index("Needs a look") : look.index("Class summary")].split())
    assert "feedback page stale" in look and "run `nbgrader release_feedback <assignment>` in the course again" in look
    assert re.search(
        r"ann: placed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC showing 0\.0, now 3\.0 \(weight_tying folder\)", look
    )
    assert "bo: placed" not in look
    assert _run(course / "submitted", monkeypatch, assignment="weight_tying").stale_pages == []  # placed anew
