"""autograder.grading.handins: nbgrader's timestamp.txt read as nbgrader reads it, and the rule that picks one of
a student's editions (the later submission, else the assignment's own), said in grades.csv and Needs a look."""

from __future__ import annotations

import csv
import html
import re
from datetime import UTC, datetime

import pytest

import autograder.grading.executors
from autograder.grading.handins import choose_edition, parse_stamp, read_stamp
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, grade_class

EDITIONS = ("weight_tying", "weight_tying_zh")


@pytest.mark.parametrize(
    "text",
    [
        "2026-05-04 09:30:00.123456 UTC",
        "2026-05-04 09:30:00 America/Los_Angeles",
        "2026-05-04T09:30:00+02:00",
        "2026-05-04 09:30:00",
        "2026-05-04 09:30:00 3600",
        "4 May 2026 10:00",
    ],
)
def test_a_timestamp_reads_as_nbgrader_reads_it(text):
    from nbgrader.utils import parse_utc

    assert parse_stamp(text) == parse_utc(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "yesterday",
        "",
        "2026-13-45 10:00:00 UTC",
        "\x00\x01",
        "2026-05-04 09:30:00 Europe/Berln",
        "2026-05-04 09:30 Berlin",
    ],
)
def test_a_timestamp_nbgrader_cannot_read_is_a_problem_never_a_time(tmp_path, text):
    (tmp_path / "timestamp.txt").write_text(text)
    stamp = read_stamp(tmp_path)
    assert stamp.when is None and "not a time nbgrader can read" in stamp.problem
    assert read_stamp(tmp_path / "elsewhere") is None  # no file: nothing to say


def test_a_timestamp_that_is_a_link_is_never_read_through(tmp_path):
    """A student's timestamp.txt linked to a classmate's (or any file): a problem, never that file's time."""
    (tmp_path / "classmate.txt").write_text("2026-05-04 09:30:00.000000 UTC")
    (tmp_path / "timestamp.txt").symlink_to(tmp_path / "classmate.txt")
    stamp = read_stamp(tmp_path)
    assert stamp.when is None and "not a regular file" in stamp.problem


def _hand_in(root, student: str, edition: str, stamp: str | None) -> None:
    folder = root / student / edition
    folder.mkdir(parents=True)
    (folder / "weight_tying.ipynb").write_text("{}")
    if stamp is not None:
        (folder / "timestamp.txt").write_text(stamp)


def test_of_two_editions_the_later_submission_is_graded_else_the_assignments_own(tmp_path):
    root = tmp_path / "submitted"
    _hand_in(root, "cy", "weight_tying", "2026-05-04 09:30:00.000000 UTC")
    _hand_in(root, "cy", "weight_tying_zh", "2026-05-04 10:00:00.000000 UTC")  # later: graded
    _hand_in(root, "di", "weight_tying", "2026-05-04 11:00:00.000000 UTC")  # later: graded
    _hand_in(root, "di", "weight_tying_zh", "2026-05-04 10:00:00.000000 UTC")
    _hand_in(root, "ed", "weight_tying", None)
    _hand_in(root, "ed", "weight_tying_zh", "2026-05-04 10:00:00.000000 UTC")  # no time to compare: English
    _hand_in(root, "fu", "weight_tying", "garbled")
    _hand_in(root, "fu", "weight_tying_zh", "2026-05-04 10:00:00.000000 UTC")  # unreadable: English
    found = find_submissions([root], assignment="weight_tying", also=("weight_tying_zh",), notebook="weight_tying")
    assert {s: p.parent.name for s, p in found.items()} == {
        "cy": "weight_tying_zh",
        "di": "weight_tying",
        "ed": "weight_tying",
        "fu": "weight_tying",
    }
    choice = choose_edition(root / "cy", list(EDITIONS))
    assert choice.note == (
        "handed in weight_tying and weight_tying_zh: graded weight_tying_zh, the later submission "
        "(weight_tying 2026-05-04 09:30:00 UTC, weight_tying_zh 2026-05-04 10:00:00 UTC)"
    )
    assert "no submission time to compare" in choose_edition(root / "ed", list(EDITIONS)).why
    assert choose_edition(root / "ed", ["weight_tying"]).note == ""  # one edition: nothing to say
    assert datetime(2026, 5, 4, 10, tzinfo=UTC) == read_stamp(root / "cy" / "weight_tying_zh").when


def test_two_editions_in_the_same_minute_are_told_apart_in_the_note(tmp_path):
    """Issue 45: both editions at 17:32 read "17:32 and 17:32"; the note says the seconds, and the microseconds
    when only they tell the two apart (nbgrader's stamps carry them)."""
    _hand_in(tmp_path, "gi", "weight_tying", "2026-05-04 17:32:05.000000 UTC")
    _hand_in(tmp_path, "gi", "weight_tying_zh", "2026-05-04 17:32:41.000000 UTC")
    assert choose_edition(tmp_path / "gi", list(EDITIONS)).why == (
        "the later submission (weight_tying 2026-05-04 17:32:05 UTC, weight_tying_zh 2026-05-04 17:32:41 UTC)"
    )
    _hand_in(tmp_path, "ho", "weight_tying", "2026-05-04 17:32:05.750000 UTC")
    _hand_in(tmp_path, "ho", "weight_tying_zh", "2026-05-04 17:32:05.250000 UTC")
    choice = choose_edition(tmp_path / "ho", list(EDITIONS))
    assert choice.graded == "weight_tying" and choice.why == (
        "the later submission (weight_tying 2026-05-04 17:32:05.750000 UTC, "
        "weight_tying_zh 2026-05-04 17:32:05.250000 UTC)"
    )


def _full_marks(*, submissions, on_result, seed, **_):
    """Stands in for grade_batch: every file scores 100."""
    for uid in sorted(submissions):
        tests = [TestOutcome("test_a.py::test_tie", 100.0, "parameter identity", True)]
        on_result(uid, Result(tests=tests, run=RunFacts(status="ok"), seed=seed, execution_time=1.0))


def test_the_class_outputs_say_which_edition_was_graded_and_why(tmp_path, monkeypatch):
    root = tmp_path / "submitted"
    _hand_in(root, "cy", "weight_tying", "2026-05-04 09:30:00.000000 UTC")
    _hand_in(root, "cy", "weight_tying_zh", "2026-05-04 10:00:00.000000 UTC")
    _hand_in(root, "al", "weight_tying", "2026-05-04 09:00:00.000000 UTC")

    monkeypatch.setattr(autograder.grading.executors, "grade_batch", _full_marks)
    submissions = find_submissions([root], assignment="weight_tying", also=("weight_tying_zh",))
    job = ClassJob(assignment="weight_tying", paths=(root,), out=tmp_path / "graded", progress=False)
    outcome = grade_class(job, submissions=submissions)
    rows = {r["student"]: r for r in csv.DictReader(outcome.csv_path.open(encoding="utf-8"))}
    graded = "handed in weight_tying and weight_tying_zh: graded weight_tying_zh"
    assert rows["cy"]["note"].startswith(graded + ", the later submission")
    assert rows["al"]["note"] == ""
    report = html.unescape(re.sub(r"<[^>]+>", "", outcome.report.read_text(encoding="utf-8")))
    look = report[report.index("Needs a look") : report.index("Class summary")]
    assert (
        "several editions" in look and "cy: handed in weight_tying and weight_tying_zh: graded weight_tying_zh" in look
    )


def test_a_garbled_or_missing_stamp_is_listed_with_what_to_do_never_chosen_silently(tmp_path, monkeypatch):
    root = tmp_path / "submitted"
    _hand_in(root, "fu", "weight_tying", "2026-05-04 09:00:00.000000 UTC")
    _hand_in(root, "fu", "weight_tying_zh", "the evening, roughly")  # the later one's stamp, garbled
    _hand_in(root, "gi", "weight_tying", None)  # collected by hand: no timestamp.txt at all
    _hand_in(root, "al", "weight_tying", "2026-05-04 09:00:00.000000 UTC")
    assert choose_edition(root / "fu", list(EDITIONS)).rule == "no time"

    monkeypatch.setattr(autograder.grading.executors, "grade_batch", _full_marks)
    submissions = find_submissions([root], assignment="weight_tying", also=("weight_tying_zh",))
    job = ClassJob(
        assignment="weight_tying", paths=(root,), out=tmp_path / "graded", progress=False, due="2026-05-04 12:00 UTC"
    )
    outcome = grade_class(job, submissions=submissions)
    rows = {r["student"]: r for r in csv.DictReader(outcome.csv_path.open(encoding="utf-8"))}
    assert rows["gi"]["late_by"] == "unknown: no timestamp.txt" and rows["al"]["late_by"] == "on time"
    report = html.unescape(re.sub(r"<[^>]+>", "", outcome.report.read_text(encoding="utf-8")))
    look = " ".join(report[report.index("Needs a look") : report.index("Class summary")].split())
    chosen = look[look.index("edition chosen without a time") :]
    assert "Check which the student meant; then put nbgrader's time in that timestamp.txt" in chosen
    assert (
        "fu: handed in weight_tying and weight_tying_zh: graded weight_tying, no submission time to compare" in chosen
    )
    assert "several editions" not in look  # listed once, under what the TA must do
    missing = look[look.index("submission time missing") :]
    assert "gi: no timestamp.txt in weight_tying folder; due 2026-05-04 12:00:00 UTC" in missing
    assert "put nbgrader's time in <student>/<assignment>/timestamp.txt" in missing
    assert "al:" not in missing
