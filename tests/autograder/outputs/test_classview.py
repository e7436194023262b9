"""The class as the report sees it: every manifest student once, sorted into graded, blank, unreadable, ..."""

from __future__ import annotations

import pytest

from autograder.grading.result import Result
from autograder.outputs.classview import load_class, triage

STUB = "X failed: your code raised NotImplementedError:   (at <notebook> [cell 14]:7 in __init__)"


def test_triage_tells_blank_unreadable_and_broken_apart(area_result):
    assert triage(None) == "missing"
    assert triage(Result.grader_failure("boom")) == "grader error"
    assert triage(area_result({"shape flow": "wrong"})) == "graded"
    assert (
        triage(
            area_result(
                {
                    a: STUB
                    for a in (
                        "parameter identity",
                        "shape flow",
                        "parameter counts",
                        "gradient accumulation",
                        "argmax generation",
                    )
                }
            )
        )
        == "blank"
    )
    assert triage(area_result({"shape flow": STUB})) == "graded"  # 80 points: not blank, whatever the message
    nothing = area_result(
        {
            a: "no evidence"
            for a in (
                "parameter identity",
                "shape flow",
                "parameter counts",
                "gradient accumulation",
                "argmax generation",
            )
        },
        defined=False,
    )
    assert triage(nothing) == "graded"  # code that defines none of the classes (misspelt?) is written work
    nothing.run.empty = True  # a file with no code at all (grading.submissions.holds_code): nothing written yet
    assert triage(nothing) == "blank"
    nothing.run.load_errors = [[0, "SyntaxError: invalid syntax (line 1: class A(:)"]]
    assert triage(nothing) == "graded"  # a syntax error is written code, as every page and table says
    assert triage(area_result({"shape flow": "x"}), unreadable="not a Jupyter notebook") == "unreadable"


def test_the_class_is_the_manifest_not_the_folder(batch_folder, area_result):
    out = batch_folder({"ann": area_result(), "bob": None})
    (out / "results" / "old_student.json").write_text((out / "results" / "ann.json").read_text())  # last term's
    view = load_class(out)
    assert [(r.name, r.kind) for r in view.rows] == [("ann", "graded"), ("bob", "missing")]
    assert "run the same command again" in view.rows[1].problem


def test_a_folder_without_manifest_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="--out folder"):
        load_class(tmp_path)
