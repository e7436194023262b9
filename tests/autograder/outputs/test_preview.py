"""grade --dry-run: after a marking-scheme change, whose marks would move and by how much, with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

import autograder.grading.executors
import autograder.outputs.cachekey
from autograder.grading.findings import Finding
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, ClassRunError, grade_class
from autograder.outputs.preview import preview_class
from autograder.protocol.said import Said

WRONG = Finding(Said("judge.failed_your_code_raised", what="x", text="ValueError: wrong"))
NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


def _scheme(points: dict[str, tuple[float, float]]):
    """A stand-in for grade_batch: student -> (points in "identity", points in "generation") out of 60 + 40."""

    def batch(*, submissions, on_result, seed, **_):
        for uid in sorted(submissions):
            identity, generation = points[uid]
            tests = [
                TestOutcome("t.py::test_tie", 60.0, "identity", identity == 60, None if identity == 60 else WRONG),
                TestOutcome(
                    "t.py::test_gen", 40.0, "generation", generation == 40, None if generation == 40 else WRONG
                ),
            ]
            on_result(uid, Result(tests=tests, run=RunFacts(status="ok"), seed=seed, execution_time=1.0))

    return batch


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_dry_run_lists_whose_marks_would_move_and_writes_nothing(tmp_path, monkeypatch):
    root = tmp_path / "class"
    root.mkdir()
    for student in ("ann", "ben", "cy"):
        (root / f"{student}.ipynb").write_text(NOTEBOOK)
    job = ClassJob(assignment="weight_tying", paths=(root,), out=tmp_path / "graded", progress=False)
    with pytest.raises(ClassRunError, match="holds no graded class"):
        preview_class(job, submissions=find_submissions([root], assignment="weight_tying"))
    monkeypatch.setattr(
        autograder.grading.executors, "grade_batch", _scheme({"ann": (60, 40), "ben": (60, 0), "cy": (0, 0)})
    )
    grade_class(job, submissions=find_submissions([root], assignment="weight_tying"))
    before = _snapshot(job.out)

    # The marking scheme changes: every key is stale; ben's generation now earns its points, cy loses nothing more.
    monkeypatch.setattr(autograder.outputs.cachekey, "grader_digest", lambda spec: "a new marking scheme")
    monkeypatch.setattr(
        autograder.grading.executors,
        "grade_batch",
        _scheme({"ann": (60, 40), "ben": (60, 40), "cy": (0, 0), "dee": (0, 0)}),
    )
    (root / "dee.ipynb").write_text(NOTEBOOK)  # handed in since: new
    preview = preview_class(job, submissions=find_submissions([root], assignment="weight_tying"))
    assert preview.regraded == 4 and preview.unchanged == 2
    assert [(m.name, m.before, m.after, m.change, m.areas) for m in preview.moves] == [
        ("ben", 60.0, 100.0, 40.0, {"generation": 40.0}),
        ("dee", None, 0.0, None, {}),
    ]
    text = "\n".join(preview.lines())
    assert "2 of 4 regraded students' marks would move" in text and "generation +40" in text
    assert _snapshot(job.out) == before  # nothing written: not the manifest, a result, grades.csv or a page
