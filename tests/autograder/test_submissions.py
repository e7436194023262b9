"""Finding submissions in nbgrader's and flat layouts, and reading one without its outputs."""

from __future__ import annotations

import json

import pytest

from autograder.submissions import MAX_SUBMISSION_BYTES, SubmissionTooLarge, find_submissions, read_submission

CORRECT = "def add(a, b):\n    return a + b\n"


def test_find_submissions_nbgrader_and_flat_layouts(tmp_path):
    submitted = tmp_path / "submitted"
    for student in ("alice", "bob"):
        folder = submitted / student / "selftest"
        folder.mkdir(parents=True)
        (folder / "selftest.ipynb").write_text("{}")
        (folder / ".ipynb_checkpoints").mkdir()
        (folder / ".ipynb_checkpoints" / "selftest-checkpoint.ipynb").write_text("{}")
    other = submitted / "alice" / "homework0"
    other.mkdir()
    (other / "homework0.ipynb").write_text("{}")  # another assignment's work is not graded here
    (submitted / "eve" / "homework0").mkdir(parents=True)
    (submitted / "eve" / "homework0" / "homework0.ipynb").write_text("{}")
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "carol.py").write_text(CORRECT)
    found = find_submissions([submitted, flat], assignment="selftest")
    assert sorted(found) == ["alice", "bob", "carol"]
    assert found["alice"].name == "selftest.ipynb"


def test_notebook_outputs_are_not_sent_to_the_runner(tmp_path):
    big_output = {"output_type": "stream", "name": "stdout", "text": "x" * 200_000}
    cell = {
        "cell_type": "code",
        "metadata": {"tags": ["t"]},
        "outputs": [big_output],
        "execution_count": 3,
        "source": CORRECT,
    }
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}}, "cells": [cell]}
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(nb))
    kind, text = read_submission(path)
    assert kind == "ipynb" and len(text) < 1000
    assert json.loads(text)["cells"] == [{"cell_type": "code", "source": CORRECT, "metadata": {"tags": ["t"]}}]


def test_oversized_file_is_refused_with_how_to_fix_it(tmp_path):
    path = tmp_path / "huge.py"
    with path.open("wb") as fh:  # sparse: no real disk use
        fh.truncate(MAX_SUBMISSION_BYTES + 1)
    with pytest.raises(SubmissionTooLarge, match="Clear Outputs"):
        read_submission(path)


def test_other_files_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="neither a .py nor an .ipynb"):
        read_submission(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError, match="no submission file"):
        read_submission(tmp_path / "gone.py")
