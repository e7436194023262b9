"""translate_zh: why a hand-in was not run (grading.submissions, grading.safe_files) reads fully in Chinese.

Each message is the grader's real one, made by handing read_submission a file that provokes it; the run summary
("Your submission was not run: ...") is checked whole, as the student reads it.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from autograder.graders.weight_tying.translate_zh import translate, untranslated
from autograder.grading.result import RunFacts
from autograder.grading.submissions import SubmissionRefused, read_submission


def _refusal(path, root=None) -> str:
    with pytest.raises(SubmissionRefused) as error:
        read_submission(path, root=root)
    return str(error.value)


@pytest.fixture(scope="module")
def refusals(tmp_path_factory) -> dict[str, str]:
    """case -> the grader's own message for a file that provokes it."""
    folder = tmp_path_factory.mktemp("hand-ins")
    out = {}
    notebook = folder / "weight_tying.ipynb"
    with pytest.MonkeyPatch.context() as patch:
        notebook.write_text("{}" + " " * 2048)
        patch.setattr("autograder.grading.submissions.MAX_SUBMISSION_BYTES", 1024)
        out["too large"] = _refusal(notebook)
    with pytest.MonkeyPatch.context() as patch:
        notebook.write_text(json.dumps({"cells": [[1, 2, 3]] * 50}))
        patch.setattr("autograder.grading.submissions.MAX_JSON_VALUES", 10)
        out["too many values"] = _refusal(notebook)
    notebook.write_text("[" * 100_000 + "]" * 100_000)
    out["nested too deeply"] = _refusal(notebook)
    notebook.write_text("{not json")
    out["not json"] = _refusal(notebook)
    notebook.write_text(json.dumps({"nbformat": 4}))
    out["no cells"] = _refusal(notebook)
    with pytest.MonkeyPatch.context() as patch:
        notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [[[["x"]]]]}]}))
        patch.setattr("autograder.grading.submissions.MAX_JSON_DEPTH", 3)
        out["cells nested"] = _refusal(notebook)
    text = folder / "answers.txt"
    text.write_text("x")
    out["not py"] = _refusal(text)
    out["missing"] = _refusal(folder / "gone.ipynb")
    link = folder / "linked.ipynb"
    os.symlink(notebook, link)
    out["link"] = _refusal(link)
    (folder / "sub").mkdir()
    os.symlink(folder / "sub", folder / "via")
    out["link folder"] = _refusal(folder / "via" / "x.ipynb", root=folder)
    out["outside"] = _refusal(notebook, root=folder / "sub")
    (folder / "dir.ipynb").mkdir()
    out["folder"] = _refusal(folder / "dir.ipynb")
    os.mkfifo(folder / "pipe.ipynb")
    out["fifo"] = _refusal(folder / "pipe.ipynb")
    return out


def test_every_case_was_provoked(refusals):
    assert len(set(refusals.values())) == len(refusals), refusals


@pytest.mark.parametrize(
    "case",
    [
        "too large",
        "too many values",
        "nested too deeply",
        "not json",
        "no cells",
        "cells nested",
        "not py",
        "missing",
        "link",
        "link folder",
        "outside",
        "folder",
        "fifo",
    ],
)
def test_each_refusal_reads_fully_in_chinese_in_the_run_summary(refusals, case):
    summary = RunFacts(status="ok", rejected=refusals[case]).summary()
    chinese = translate(summary)
    assert untranslated(chinese) == [], f"{summary}\n-> {chinese}"
    assert re.search(r"[\u4e00-\u9fff]{4}", chinese.split("：", 1)[1]), chinese  # the reason too, not the prefix
    assert "你的提交没有被运行" in chinese


def test_file_names_and_parser_words_stay_verbatim(refusals):
    assert "weight_tying.ipynb" in translate(refusals["too large"])
    chinese = translate(refusals["not json"])
    assert "「Expecting property name enclosed in double quotes" in chinese, chinese
