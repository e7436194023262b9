"""The output folder: one run at a time, a manifest that round-trips any key, results reused only by key."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autograder.grading.findings import Finding
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.folder import OTHER_FORMAT, RESULT_FORMAT, FolderBusy, Manifest, OutputFolder
from autograder.outputs.roster import build_roster
from autograder.protocol.said import verbatim

KEY = os.fsdecode(b"caf\xe9")


def _result(passed: bool = True) -> Result:
    return Result(
        tests=[TestOutcome("t.py::test_a", 2.0, "values", passed, None if passed else Finding(verbatim("wrong")))],
        run=RunFacts("ok"),
    )


def test_a_second_run_on_the_same_folder_is_refused_with_the_holders_pid(tmp_path):
    with OutputFolder(tmp_path).lock():
        with pytest.raises(FolderBusy, match=rf"pid {os.getpid()}.*a different --out folder"):
            with OutputFolder(tmp_path).lock():
                pass
    with OutputFolder(tmp_path).lock():  # released: the next run may go
        pass


def test_the_manifest_round_trips_a_key_with_undecodable_bytes(tmp_path):
    folder = OutputFolder(tmp_path)
    student = build_roster({KEY: tmp_path / "c.py"}, roots=[], assignment="selftest")[0]
    manifest = Manifest(assignment="selftest", seed=7, kit_version="0.1.0")
    manifest.students = [folder.entry(student, "k" * 64, "pending")]
    folder.write_manifest(manifest)
    back = folder.read_manifest()
    assert back.seed == 7 and back.known_uids() == {KEY: student.uid}
    assert json.loads(folder.manifest_path.read_text())["students"][0]["name"] == "caf\\xe9"


@pytest.mark.parametrize("text", ["", "[]", '{"format": 1, "seed": "7", "students": []}', '{"format": 99}', "{bad"])
def test_a_file_that_is_not_our_manifest_reads_as_none(tmp_path, text):
    (tmp_path / "manifest.json").write_text(text)
    assert OutputFolder(tmp_path).read_manifest() is None


def test_a_result_is_reused_only_under_its_own_key_and_never_a_grader_error(tmp_path):
    folder = OutputFolder(tmp_path)
    ann, bob = build_roster({"ann": Path("a.py"), "bob": Path("b.py")}, roots=[], assignment="selftest")
    folder.save_result(ann, _result(), grading_key="key-1", assignment="selftest")
    folder.save_result(bob, Result.grader_failure("worker died"), grading_key="key-1", assignment="selftest")
    assert folder.cached("ann", "key-1").score == 2
    assert folder.cached("ann", "key-2") is None  # the suite, seed or file changed
    assert folder.cached("bob", "key-1") is None  # the grader failed: grade it again
    assert folder.cached("nobody", "key-1") is None
    data = json.loads(folder.result_path("ann").read_text())
    assert data["format"] == RESULT_FORMAT and data["batch"]["grading_key"] == "key-1"
    assert Result.from_wire(data["result"]) == _result()  # the kit's wire form, never Gradescope's shape
    folder.result_path("ann").write_text(folder.result_path("ann").read_text()[:40])  # truncated by hand
    assert folder.cached("ann", "key-1") is None
    assert "unreadable result file" in folder.load_result("ann")[2]


@pytest.mark.parametrize("fmt", [None, 1, 2, 99, "3"])  # 2: the kit's wire form before it carried its rendering
def test_a_result_file_of_another_format_is_never_misread_nor_reused(tmp_path, fmt):
    folder = OutputFolder(tmp_path)
    (ann,) = build_roster({"ann": Path("a.py")}, roots=[], assignment="selftest")
    folder.save_result(ann, _result(), grading_key="key-1", assignment="selftest")
    data = json.loads(folder.result_path("ann").read_text())
    if fmt is None:  # what an older kit wrote: Gradescope's shape, with the same grading key
        old = gradescope_results(rendered(_result(), None))
        old["extra_data"]["batch"] = data["batch"]
        data = old
    else:
        data["format"] = fmt
    folder.result_path("ann").write_text(json.dumps(data))
    result, batch, why = folder.load_result("ann")
    assert result is None and batch == {} and why.startswith(OTHER_FORMAT)
    assert ("older kit" in why) == (fmt is None) and "grade it afresh" in why
    assert folder.reusable("ann", "key-1") == (None, why)


def test_a_result_file_of_our_format_with_a_bad_field_is_unreadable_naming_it(tmp_path):
    folder = OutputFolder(tmp_path)
    (ann,) = build_roster({"ann": Path("a.py")}, roots=[], assignment="selftest")
    folder.save_result(ann, _result(), grading_key="key-1", assignment="selftest")
    data = json.loads(folder.result_path("ann").read_text())
    data["result"]["tests"][0]["points"] = "2"
    folder.result_path("ann").write_text(json.dumps(data))
    assert folder.cached("ann", "key-1") is None
    assert "unreadable result file" in folder.load_result("ann")[2] and "'points'" in folder.load_result("ann")[2]
