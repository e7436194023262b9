"""The kit's feedback pages go where nbgrader's release_feedback hands them out, and nbgrader releases them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.outputs.classview import load_class
from autograder.outputs.folder import RESULT_FORMAT, Manifest
from autograder.outputs.nbrelease import place_feedback
from autograder.outputs.report import write_report

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
        manifest.students.append({"uid": student, "name": student, "key": student, "submission": submission})
        result = area_result({"shape flow": "logits scaled by 2"})
        data = {"format": RESULT_FORMAT, "batch": {}, "result": result.to_wire()}
        (out / "results" / f"{student}.json").write_text(json.dumps(data))
    (out / "manifest.json").write_text(manifest.to_json())
    write_report(out)
    return course, out


def test_each_collected_submission_gets_its_page_beside_the_files_release_feedback_reads(tmp_path, area_result):
    course, out = _course(tmp_path, area_result)
    placed, skipped = place_feedback(load_class(out), out, course)
    dest = course / "feedback" / "ann" / "weight_tying"
    assert placed == [dest / "weight_tying.html"]
    assert (dest / "weight_tying.html").read_bytes() == (out / "feedback" / "ann.html").read_bytes()
    assert (dest / "submission_secret.txt").read_text() == SECRET and (dest / "timestamp.txt").is_file()
    assert len(skipped) == 1 and skipped[0].startswith("bo: no submission_secret.txt")
    assert not (course / "feedback" / "bo").exists()  # release_feedback would stop at its missing secret


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
