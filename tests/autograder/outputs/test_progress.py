"""A class run's progress in its folder, and `status`'s one line: running (done of total, failures, elapsed, time
left), finished, or stopped part-way; read without taking the folder's lock."""

from __future__ import annotations

import json
import os

import pytest

import autograder.grading.executors
from autograder.cli.main import main
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, grade_class
from autograder.outputs.folder import Manifest, OutputFolder
from autograder.outputs.progress import Progress, status_line


def _result(status: str = "ok") -> Result:
    if status == "grader error":
        return Result.grader_failure("RuntimeError: the judge broke")
    return Result(tests=[TestOutcome("t.py::test_a", 3.0, "values", True)], run=RunFacts(status=status), seed=1)


@pytest.fixture
def klass(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ann", "bo", "cy", "dee"):
        (folder / f"{name}.py").write_text("def add(a, b):\n    return a + b\n")
    return folder


def test_a_running_batch_says_done_of_total_failures_elapsed_and_time_left(klass, tmp_path, monkeypatch):
    out = tmp_path / "graded"
    seen: list[str] = []

    def batch(*, submissions, on_result, seed, **_):
        for n, uid in enumerate(sorted(submissions)):
            seen.append(status_line(out))  # from "another terminal", while the run holds the folder
            on_result(uid, _result(("ok", "timeout", "grader error", "ok")[n]))

    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch)
    job = ClassJob(assignment="selftest", paths=(klass,), out=out, progress=False)
    grade_class(job, submissions=find_submissions([klass], assignment="selftest"))
    assert seen[0].startswith("running (pid ") and seen[0].endswith("s elapsed") and "0 of 4 graded" in seen[0]
    assert "3 of 4 graded, 1 grader error, 1 timeout;" in seen[3] and " left" in seen[3]
    done = status_line(out)
    assert done.startswith("finished ") and "4 students, 4 graded this run, 1 grader error, 1 timeout" in done
    again = grade_class(job, submissions=find_submissions([klass], assignment="selftest"))
    assert "4 students, 1 graded this run, 3 up to date" in status_line(out) and again.graded  # the grader error


def test_a_batch_killed_part_way_says_it_stopped_and_how_to_resume(tmp_path):
    folder = OutputFolder(tmp_path)
    with folder.lock():
        folder.write_manifest(Manifest("selftest", 1, "k"))
        progress = Progress(tmp_path, total=11, reused=2, todo=9)
        progress.add(_result())
        thirty_seconds_in = json.loads((tmp_path / "progress.json").read_text())["started"] + 30
        assert status_line(tmp_path, now=thirty_seconds_in) == (  # one graded in 30 s: 8 more take about 4 min
            f"running (pid {os.getpid()}): 1 of 9 graded (2 up to date before); 30 s elapsed, about 4 min 0 s left"
        )
    # the lock is gone and the run never finished: kill -9, as status sees it
    assert status_line(tmp_path) == (
        "stopped before it finished (killed?): 1 of 9 graded (2 up to date before), 8 left; run the same grade "
        "command again to grade the rest (the folder keeps its options)"
    )


def test_status_on_a_folder_without_a_class_run_exits_2_naming_it(tmp_path, capsys):
    assert main(["status", str(tmp_path)]) == 2
    assert f"{str(tmp_path / 'manifest.json')!r} is missing or not a grading manifest" in capsys.readouterr().err
