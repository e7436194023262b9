"""The kit's feedback pages go where nbgrader's release_feedback hands them out, and nbgrader releases them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading.findings import Finding
from autograder.grading.rendering import rendered
from autograder.outputs.classview import load_class
from autograder.outputs.folder import RESULT_FORMAT, Manifest
from autograder.outputs.nbrelease import place_feedback
from autograder.outputs.report import write_report
from autograder.protocol.said import Said

SECRET = "a" * 128


def _course(tmp_path: Path, area_result) -> tuple[Path, Path]:
    course, out = tmp_path / "course", tmp_path / "graded"
    (out / "results").mkdir(parents=True)
    manifest = Manifest(assignment="weight_tying", seed=1, kit_version="0.1.0")
    for student, secret in (("ann", True), ("bo", False)):
        folder = course / "submitted" / student / "weight_tying"
        folder.mkdir(parents=True)
        (folder / "weight_tying.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text("2026-05-04 09:00:00.000000 UTC")
        if secret:
            (folder / "submission_secret.txt").write_text(SECRET)
        submission = str(folder / "weight_tying.ipynb")
        entry = {"uid": student, "name": student, "key": student, "submission": submission}
        manifest.students.append({**entry, "nbgrader_id": student, "edition": "weight_tying"})
        result = area_result({"shape flow": "logits scaled by 2"})
        data = {"format": RESULT_FORMAT, "batch": {}, "result": result.to_wire()}
        (out / "results" / f"{student}.json").write_text(json.dumps(data))
    (out / "manifest.json").write_text(manifest.to_json())
    write_report(out)
    return course, out


def test_each_collected_submission_gets_its_page_beside_the_files_release_feedback_reads(tmp_path, area_result):
    course, out = _course(tmp_path, area_result)
    done = place_feedback(load_class(out), out, course)
    dest = course / "feedback" / "ann" / "weight_tying"
    assert done.released == [dest / "weight_tying.html"] and not done.by_hand and not done.refused
    assert (dest / "weight_tying.html").read_bytes() == (out / "feedback" / "ann.html").read_bytes()
    assert (dest / "submission_secret.txt").read_text() == SECRET and (dest / "timestamp.txt").is_file()
    assert done.outside == ["bo"]  # handed in outside the exchange, in a class that uses it
    assert not (course / "feedback" / "bo").exists()  # release_feedback would stop at its missing secret


def test_a_course_without_the_exchange_gets_every_page_where_nbgrader_keeps_feedback(tmp_path, area_result):
    """nbgrader zip_collect or hand-made folders: no secrets at all, so the pages are placed for handing out."""
    course, out = _course(tmp_path, area_result)
    (course / "submitted" / "ann" / "weight_tying" / "submission_secret.txt").unlink()
    done = place_feedback(load_class(out), out, course)
    assert not done.released and not done.outside and not done.refused
    assert done.by_hand == [course / "feedback" / s / "weight_tying" / "weight_tying.html" for s in ("ann", "bo")]
    assert (course / "feedback" / "bo" / "weight_tying" / "weight_tying.html").read_bytes() == (
        out / "feedback" / "bo.html"
    ).read_bytes()


def test_a_secret_or_timestamp_that_is_a_link_is_never_read_through_nor_copied(tmp_path, area_result):
    """ann's submission_secret.txt links to bo's, and bo's timestamp.txt to a file of the course: neither is read
    through, so neither lands in feedback/ (release_feedback would hand bo's secret to ann)."""
    course, out = _course(tmp_path, area_result)
    ann, bo = (course / "submitted" / name / "weight_tying" for name in ("ann", "bo"))
    (bo / "submission_secret.txt").write_text("b" * 128)
    (ann / "submission_secret.txt").unlink()
    (ann / "submission_secret.txt").symlink_to(bo / "submission_secret.txt")
    (course / "elsewhere.txt").write_text("2026-05-04 09:00:00.000000 UTC")
    (bo / "timestamp.txt").unlink()
    (bo / "timestamp.txt").symlink_to(course / "elsewhere.txt")
    done = place_feedback(load_class(out), out, course)
    assert sorted(done.outside) == ["ann", "bo"] and not done.released  # each misses a file of its own
    placed = [p.name for p in (course / "feedback").rglob("*.txt")] if (course / "feedback").exists() else []
    assert placed == []


def test_a_linked_hand_in_never_overwrites_a_classmates_feedback(tmp_path, monkeypatch):
    """mallory's hand-in is a link to bob's notebook: her page (the link refused) is hers; bob's stays his."""
    import autograder.grading.executors
    from autograder.grading.result import Result, RunFacts, TestOutcome
    from autograder.grading.submissions import find_submissions
    from autograder.outputs.classrun import ClassJob, grade_class

    course = tmp_path / "course"
    for student in ("bob", "mallory"):
        folder = course / "submitted" / student / "weight_tying"
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text("2026-05-04 09:00:00.000000 UTC")
        (folder / "submission_secret.txt").write_text(student * 20)
    bob = course / "submitted" / "bob" / "weight_tying" / "weight_tying.ipynb"
    bob.write_text("{}")
    (course / "submitted" / "mallory" / "weight_tying" / "weight_tying.ipynb").symlink_to(bob)

    def batch(*, submissions, on_result, seed, **_):
        for uid, path in sorted(submissions.items()):
            ok = not Path(path).is_symlink()
            wrong = None if ok else Finding(Said("judge.failed_your_code_raised", what="x", text="ValueError: refused"))
            tests = [TestOutcome("test_a.py::test_tie", 100.0, "parameter identity", ok, wrong)]
            on_result(uid, rendered(Result(tests=tests, run=RunFacts(status="ok"), seed=seed), None))

    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch)
    root = course / "submitted"
    out = tmp_path / "graded"
    job = ClassJob(assignment="weight_tying", paths=(root,), out=out, progress=False)
    grade_class(job, submissions=find_submissions([root], assignment="weight_tying"))
    done = place_feedback(load_class(out), out, course)
    pages = {s: course / "feedback" / s / "weight_tying" / "weight_tying.html" for s in ("bob", "mallory")}
    assert sorted(done.released) == sorted(pages.values())
    for student, page in pages.items():
        assert page.read_bytes() == (out / "feedback" / f"{student}.html").read_bytes()
        assert (page.parent / "submission_secret.txt").read_text() == student * 20
    assert "100" in pages["bob"].read_text() and ">mallory<" not in pages["bob"].read_text()


def test_a_student_folder_that_is_a_link_gets_no_page(tmp_path, area_result):
    course, out = _course(tmp_path, area_result)
    bo = course / "submitted" / "bo"
    bo.rename(course / "bo-elsewhere")
    bo.symlink_to(course / "submitted" / "ann")  # bo's folder points at ann's (her secret, her timestamp)
    done = place_feedback(load_class(out), out, course)
    assert done.refused == ["bo: bo/weight_tying is a link or not a folder in submitted/: no page placed"]
    assert not (course / "feedback" / "bo").exists()


@pytest.mark.e2e
def test_nbgrader_release_feedback_sends_the_kits_page(tmp_path, area_result):
    course, out = _course(tmp_path, area_result)
    place_feedback(load_class(out), out, course)
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "release_feedback", "weight_tying", "--course=kit",
         f"--Exchange.root={exchange}", f"--CourseDirectory.root={course}"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    name = hashlib.md5((SECRET + "weight_tying").encode()).hexdigest()  # nbgrader's notebook_hash
    released = exchange / "kit" / "feedback" / f"{name}.html"
    assert released.read_bytes() == (out / "feedback" / "ann.html").read_bytes()
