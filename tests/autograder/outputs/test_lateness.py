"""Due dates and lateness: the due date from --due or nbgrader's gradebook (with extensions), when each student
handed in (nbgrader's timestamp.txt; an unreadable one flagged, never on time), and a late policy set as nbgrader
sets one (LateSubmissionPlugin), its penalty kept apart from the grader's score in every output."""

from __future__ import annotations

import csv
import html
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

import autograder.grading.executors
from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, grade_class
from autograder.outputs.gradebook import GradebookEntry, kit_cells, write_gradebook
from autograder.outputs.lateness import DueDates, assess, due_dates, policy_from_course, policy_from_option
from autograder.outputs.roster import build_roster
from autograder.protocol.said import Said

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own add_submission
VENV_BIN = str(Path(sys.executable).parent)
DUE = "2026-05-04 12:00:00 UTC"
HANDED_IN = {  # student -> timestamp.txt
    "ann": "2026-05-04 11:59:00.000000 UTC",  # on time
    "ben": "2026-05-04 14:30:00.000000 UTC",  # 2 h 30 min late: 3 started hours
    "cy": "the day after the deadline",  # nbgrader cannot read it
    "dee": "2026-05-06 12:00:01.000000 UTC",  # 2 days late: more hours than points
}


def test_the_kits_policies_follow_nbgraders_and_a_bad_one_is_named():
    late_3h = timedelta(hours=2, minutes=30).total_seconds()
    assert policy_from_option("none").points("ann", 80, late_3h) == 0
    assert policy_from_option("zero").points("ann", 80, late_3h) == 80
    assert policy_from_option("5/hour").points("ann", 80, late_3h) == 15  # 3 hours begun
    assert policy_from_option("5/hour").points("ann", 10, late_3h) == 10  # never below 0, as nbgrader keeps it
    assert policy_from_option("5/hour").points("ann", 80, 0) == 0
    with pytest.raises(ValueError, match="--late-penalty 'half' is not a late policy: give none, zero, or"):
        policy_from_option("half")


def test_the_courses_nbgrader_config_sets_the_policy_as_for_nbgraders_autograde(tmp_path):
    config = tmp_path / "nbgrader_config.py"
    assert policy_from_course(tmp_path) is None
    config.write_text("c = get_config()\nc.CourseDirectory.course_id = 'x'\n")
    assert policy_from_course(tmp_path) is None  # nbgrader's default: no penalty
    config.write_text("c = get_config()\nc.LateSubmissionPlugin.penalty_method = 'zero'\n")
    assert policy_from_course(tmp_path).points("ann", 80, 60) == 80
    config.write_text(
        "c = get_config()\nc.AssignLatePenalties.plugin_class = 'autograder.outputs.late_plugin.PerHourPenalty'\n"
        "c.PerHourPenalty.points_per_hour = 2.5\n"
    )
    policy = policy_from_course(tmp_path)
    assert policy.points("ann", 80, 3601) == 5 and "PerHourPenalty(points_per_hour=2.5)" in policy.name
    config.write_text("c = get_config()\nc.AssignLatePenalties.plugin_class = 'no.such.Plugin'\n")
    with pytest.raises(ValueError, match="'no.such.Plugin'.* cannot be used"):
        policy_from_course(tmp_path)


def _course(tmp_path) -> Path:
    root = tmp_path / "course" / "submitted"
    for student, stamp in HANDED_IN.items():
        folder = root / student / "weight_tying"
        folder.mkdir(parents=True)
        (folder / "weight_tying.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
        (folder / "timestamp.txt").write_text(stamp)
    return root


def test_each_student_is_late_or_not_by_their_own_due_date_and_an_unreadable_time_is_never_on_time(tmp_path):
    root = _course(tmp_path)
    roster = build_roster(find_submissions([root], assignment="weight_tying"), roots=[root], assignment="weight_tying")
    due = datetime(2026, 5, 4, 12, tzinfo=UTC)
    dues = DueDates(None, {"weight_tying": due}, {("weight_tying", "ben"): timedelta(hours=3)})  # ben's extension
    assessed = assess(roster, {s.uid: 80.0 for s in roster}, dues, policy_from_option("5/hour"))
    late = {s.name: assessed[s.uid] for s in roster}
    assert late["ann"].seconds == 0 and late["ann"].penalty == 0 and late["ann"].submitted == "2026-05-04 11:59:00 UTC"
    assert late["ben"].seconds == 0 and late["ben"].due == "2026-05-04 15:00:00 UTC"  # within his extension
    assert late["cy"].submitted == "" and "not a time nbgrader can read" in late["cy"].problem
    assert late["dee"].seconds == 2 * 86400 + 1 and late["dee"].penalty == 80  # capped at the score


def test_due_dates_and_extensions_come_from_nbgraders_gradebook(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    db = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{db}") as gb:
        gb.add_assignment("weight_tying", duedate=datetime(2026, 5, 4, 12))  # nbgrader keeps UTC
        gb.add_assignment("weight_tying_zh", duedate=datetime(2026, 5, 5, 12))
        gb.add_student("ben")
        gb.add_submission("weight_tying", "ben", extension=timedelta(days=1))
    dues = due_dates(None, db, ("weight_tying", "weight_tying_zh"))
    assert dues.of("weight_tying", "ann") == datetime(2026, 5, 4, 12, tzinfo=UTC)
    assert dues.of("weight_tying_zh", "ann") == datetime(2026, 5, 5, 12, tzinfo=UTC)
    assert dues.of("weight_tying", "ben") == datetime(2026, 5, 5, 12, tzinfo=UTC)
    forced = due_dates("2026-05-01T00:00:00+00:00", db, ("weight_tying",))  # --due for everyone, extensions kept
    assert forced.of("weight_tying_zh", "ann") == datetime(2026, 5, 1, tzinfo=UTC)
    assert forced.of("weight_tying", "ben") == datetime(2026, 5, 2, tzinfo=UTC)


def _graded(monkeypatch, tmp_path, **options):
    def batch(*, submissions, on_result, seed, **_):
        for uid in sorted(submissions):
            tests = [TestOutcome("test_a.py::test_tie", 80.0, "parameter identity", True)]
            wrong = Finding(Said("judge.failed_your_code_raised", what="generate", text="ValueError: wrong"))
            tests.append(TestOutcome("test_a.py::test_gen", 20.0, "argmax generation", False, wrong))
            result = Result(tests=tests, run=RunFacts(status="ok"), seed=seed, execution_time=1.0)
            on_result(uid, rendered(result, get_assignment("weight_tying")))  # as step 8 leaves it

    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch)
    root = tmp_path / "course" / "submitted"
    job = ClassJob(assignment="weight_tying", paths=(root,), out=tmp_path / "graded", progress=False, **options)
    return grade_class(job, submissions=find_submissions([root], assignment="weight_tying"))


def test_lateness_and_the_penalty_are_shown_apart_from_the_graders_score_everywhere(tmp_path, monkeypatch):
    _course(tmp_path)
    outcome = _graded(monkeypatch, tmp_path, due="2026-05-04T12:00:00+00:00", late_penalty="5/hour")
    rows = {r["student"]: r for r in csv.DictReader(outcome.csv_path.open(encoding="utf-8"))}
    assert [rows["ben"][k] for k in ("score", "late_by", "late_penalty", "final_score")] == [
        "80.0",
        "2 h 30 min",
        "15.0",
        "65.0",
    ]
    assert rows["ann"]["late_by"] == "on time" and rows["ann"]["final_score"] == "80.0"
    assert rows["ann"]["parameter identity"] == "80.0"  # the areas add up to the grader's score
    assert rows["cy"]["late_by"] == "unknown: timestamp.txt unreadable" and rows["cy"]["late_penalty"] == "0.0"
    report = html.unescape(re.sub(r"<[^>]+>", " ", outcome.report.read_text(encoding="utf-8")))
    look = html.unescape(re.sub(r"<[^>]+>", "", outcome.report.read_text(encoding="utf-8")))
    look = look[look.index("Needs a look") : look.index("Class summary")]
    assert "submission time unreadable" in look and "cy: timestamp.txt says 'the day after the deadline'" in look
    assert "ben: 2 h 30 min after the due date (2026-05-04 12:00:00 UTC), late penalty 15 points" in look
    assert re.search(r"late policy\s+5 points per hour late", report) and re.search(r"handed in late\s+2", report)
    page = html.unescape((outcome.out / "feedback" / "ben.html").read_text(encoding="utf-8"))
    assert (
        "Handed in 2026-05-04 14:30:00 UTC, 2 h 30 min after the due date (2026-05-04 12:00:00 UTC): the late " in page
    )
    assert "takes 15 points off, 65 / 100 after it." in page
    again = _graded(monkeypatch, tmp_path)  # the next run keeps the folder's due date and policy
    assert again.late[next(s.uid for s in again.roster if s.name == "ben")].penalty == 15


def test_a_chinese_page_says_when_it_was_handed_in_in_chinese(tmp_path):
    from autograder.outputs.feedback import feedback_html
    from autograder.outputs.lateness import Late

    result = rendered(
        Result(tests=[TestOutcome("t.py::test_a", 100.0, "a", True)], run=RunFacts("ok"), language="zh"), None
    )
    late = Late("2026-05-04 14:30 UTC", "", "2026-05-04 12:00 UTC", 9000.0, 15.0)
    page = feedback_html(result, student="zhou", late=late)
    assert "提交于 2026-05-04 14:30 UTC，比截止时间（2026-05-04 12:00 UTC）晚了 2 小时 30 分钟：迟交扣 15 分" in page
    unknown = feedback_html(result, student="zhou", late=Late(problem="timestamp.txt says 'x'"))
    assert "无法读出这份作业的提交时间" in unknown


def test_the_penalty_and_the_due_date_go_to_nbgraders_gradebook_apart_from_the_points(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    db = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{db}") as gb:
        gb.add_assignment("wt")
        gb.add_notebook("nb", "wt")
        for cell in kit_cells({"values": 3}):
            gb.add_task_cell(cell.grade_id, "nb", "wt", max_score=cell.points, cell_type="markdown")
    tests = [TestOutcome(f"t.py::test_{i}", 1.0, "values", True) for i in range(3)]
    entries = [GradebookEntry("ann", Result(tests=tests, run=RunFacts("ok")), "ann", late_penalty=1.0)]
    entries.append(GradebookEntry("ben", Result(tests=tests, run=RunFacts("ok")), "ben"))
    write_gradebook(entries, db, assignment="wt", due=datetime(2026, 5, 4, 12, tzinfo=UTC))
    with Gradebook(f"sqlite:///{db}") as gb:
        assert gb.find_assignment("wt").duedate == datetime(2026, 5, 4, 12)
        ann, ben = (gb.find_submission("wt", s) for s in ("ann", "ben"))
        assert (ann.score, ann.late_submission_penalty) == (3.0, 1.0) and ben.late_submission_penalty == 0.0


def test_the_late_policy_is_kept_as_values_and_worded_in_the_reports_language(tmp_path, monkeypatch):
    """Issue 48 (round 11): the manifest kept the late rule as English words, so the Chinese report said "5 points
    per hour late". It keeps the rule's values (per hour, 5 points); each report words them in its own language,
    and a folder an older kit wrote (English words only) still reads, its words as they were."""
    import json

    from autograder.outputs.report import write_report

    _course(tmp_path)
    outcome = _graded(monkeypatch, tmp_path, due="2026-05-04T12:00:00+00:00", late_penalty="5/hour")
    manifest_path = outcome.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert manifest["late_rule"] == {"rule": "per_hour", "points": 5.0}

    def summary(language: str) -> str:
        report = write_report(outcome.out, language=language).read_text(encoding="utf-8")
        return html.unescape(re.sub(r"<[^>]+>", " ", report))

    assert re.search(r"迟交规则\s+每迟交一小时扣 5 分（不足一小时按一小时计）", summary("zh"))
    assert "points per hour" not in summary("zh")
    assert re.search(r"late policy\s+5 points per hour late, or part of one", summary("en"))
    del manifest["late_rule"]  # as an older kit wrote it
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    assert re.search(r"迟交规则\s+5 points per hour late", summary("zh"))
    assert policy_from_option("zero").rule == {"rule": "zero"} and policy_from_option("none").rule == {"rule": "none"}
