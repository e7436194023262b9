"""The pipeline's steps and the wire form of what they exchange: every dataclass that crosses a process comes
back equal from its own ``to_wire``/``from_wire``, and a malformed one is refused naming the field."""

from __future__ import annotations

import json
import os
import re

import pytest

from autograder.grading.findings import Finding
from autograder.grading.pipeline import Submission, read
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.protocol.said import Said
from autograder.sandbox.limits import isolation_for
from autograder.sandbox.runs import SandboxResult


def _over_json(data):
    return json.loads(json.dumps(data))  # what a pipe or dask may do to it: tuples become lists


def test_a_submission_and_a_refused_one_cross_the_wire_unchanged():
    refused = Submission("py", "", "b.py", refusal=Said("input.too_large", name="b.py", limit=64))
    for sub in (Submission("ipynb", "{}", "a.ipynb"), refused):
        assert Submission.from_wire(_over_json(sub.to_wire())) == sub
    with pytest.raises(ValueError, match="kind='exe'"):
        Submission.from_wire({"kind": "exe", "source": "", "filename": "x"})


def test_reading_a_link_is_refused_once_with_why_and_graded_empty(tmp_path):
    (tmp_path / "real.py").write_text("x = 1\n")
    os.symlink(tmp_path / "real.py", tmp_path / "link.py")
    sub = read(tmp_path / "link.py", (tmp_path,))
    assert (sub.kind, sub.source, sub.filename) == ("py", "", "link.py") and sub.refusal.key == "input.link_not_file"
    assert read(tmp_path / "real.py", (tmp_path,)) == Submission("py", "x = 1\n", "real.py")


def test_a_sandbox_result_crosses_the_wire_with_its_isolation():
    iso = isolation_for("uid").with_tree({"by": "cgroup v1", "memory": "2 GiB"})
    box = SandboxResult(1, None, False, 0.5, "out", "err", b"ev", False, iso, ["a note"], memory_exceeded=True)
    back = SandboxResult.from_wire(_over_json(box.to_wire()), b"ev")
    assert back == box


def test_a_result_crosses_the_wire_unchanged_and_a_bad_test_is_refused_by_name():
    tests = [
        TestOutcome("t.py::a", 2.0, "loss", True),
        TestOutcome(
            "t.py::b", 3.0, "loss", False, Finding(Said("diag.grad.doubled"), names="x"), 1.0, "misconception:x"
        ),
    ]
    result = Result(tests=tests, run=RunFacts(status="ok", notes=["n"]), seed=7, execution_time=1.5, language="zh")
    assert Result.from_wire(_over_json(result.to_wire())) == result
    failure = Result.grader_failure("boom")
    assert Result.from_wire(_over_json(failure.to_wire())) == failure
    bad = {**tests[0].to_wire(), "points": "2"}
    with pytest.raises(ValueError, match="'points'"):
        TestOutcome.from_wire(bad)


def _box_wire() -> dict:
    return SandboxResult(0, None, False, 0.5, "", "", b"", False, isolation_for("uid")).to_wire()


@pytest.mark.parametrize(
    ("read_back", "wire", "field", "bad"),
    [
        (Submission.from_wire, Submission("py", "x = 1\n", "a.py").to_wire(), "source", b"x = 1"),
        (Submission.from_wire, Submission("py", "x = 1\n", "a.py").to_wire(), "refusal", 3),
        (TestOutcome.from_wire, TestOutcome("t.py::a", 2.0, "loss", True).to_wire(), "passed", 1),
        (TestOutcome.from_wire, TestOutcome("t.py::a", 2.0, "loss", True).to_wire(), "points", True),
        (TestOutcome.from_wire, TestOutcome("t.py::a", 2.0, "loss", True).to_wire(), "charged", "1"),
        (Result.from_wire, Result(tests=[], run=None).to_wire(), "seed", "7"),
        (Result.from_wire, Result(tests=[], run=None).to_wire(), "tests", {}),
        (Result.from_wire, Result(tests=[], run=None).to_wire(), "language", None),
        (lambda d: SandboxResult.from_wire(d, b""), _box_wire(), "timed_out", "no"),
        (lambda d: SandboxResult.from_wire(d, b""), _box_wire(), "exit_code", 1.5),
        (lambda d: SandboxResult.from_wire(d, b""), _box_wire(), "notes", "a note"),
    ],
)
def test_every_wire_class_refuses_a_field_of_the_wrong_type_by_name(read_back, wire, field, bad):
    with pytest.raises(ValueError, match=rf"field '{field}' is {re.escape(repr(bad))}, expected"):
        read_back({**wire, field: bad})
    missing = {k: v for k, v in wire.items() if k != field}
    if field in ("source", "passed", "tests", "timed_out"):  # no default: it must be there
        with pytest.raises(ValueError, match=rf"field '{field}' is missing"):
            read_back(missing)
    assert read_back(_over_json(wire)) == read_back(wire)  # and the untouched form still reads
