"""Calibration headers and the verdict rule shared by `calibrate` and the in-process corpus tests."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from autograder.grading.findings import Finding
from autograder.grading.result import TestOutcome
from autograder.protocol.said import Said
from autograder.qa.calibrate import (
    Expectation,
    calibration_files,
    interpreter_dirs,
    judge_verdict,
    read_expectation,
    sandbox_writes,
    twin_source,
)
from autograder.sandbox.slots import BASE_UID


def _failing(names: str | None = None, charged_to: str = "", text: str = "boom") -> TestOutcome:
    finding = Finding(Said("judge.failed_your_code_raised", what="x", text=text), names=names)
    return TestOutcome("t.py::test_a", 4, "a", False, finding, charged=4, charged_to=charged_to)


def test_read_expectation_with_the_tests_a_wrong_file_must_fail(tmp_path):
    path = tmp_path / "w.py"
    path.write_text("# expect: wrong two_tables\n# why: a clone\n# fails: test_a, test_b\nx = 1\n")
    exp = read_expectation(path)
    assert (exp.kind, exp.names, exp.fails) == ("wrong", "two_tables", ("test_a", "test_b"))
    (tmp_path / "n.py").write_text("x = 1\n")
    assert read_expectation(tmp_path / "n.py") is None


def test_a_wrong_file_is_held_to_its_band_of_marks(tmp_path):
    path = tmp_path / "w.py"
    path.write_text("# expect: wrong max_norm\n# why: a slip\n# fails: test_a\n# marks: 88-96\nx = 1\n")
    exp = read_expectation(path)
    assert exp.band == (88.0, 96.0)
    assert judge_verdict(exp, {"test_a": _failing("max_norm")}, 92, 100)[0] is True
    ok, note = judge_verdict(exp, {"test_a": _failing("max_norm")}, 67, 100)
    assert not ok and "outside its band 88-96" in note
    path.write_text("# expect: wrong max_norm\n# marks: 96-88\n")
    with pytest.raises(ValueError, match="not a band"):
        read_expectation(path)


def test_calibration_files_fall_back_on_the_folder(tmp_path):
    for rel in ("correct/a.py", "wrong/b.py", "attacks/c.ipynb", "attacks/_helper.py", "wrong/notes.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}" if rel.endswith(".ipynb") else "x = 1\n")
    found = calibration_files(tmp_path)
    assert sorted(found) == ["attacks/c.ipynb", "correct/a.py", "wrong/b.py"]
    assert [found[k][1].kind for k in sorted(found)] == ["attack", "correct", "wrong"]


def test_a_trick_files_twin_leaves_the_trick_out_and_puts_the_plain_code_in(tmp_path):
    text = (
        "# expect: trick\n"
        "def loss(self):\n"
        "    raise RuntimeError('shape mismatch')  # trick\n"
        "    # plain: raise NotImplementedError\n"
        "    # a comment stays\n"
        "x = 'not # trick here'\n"
    )
    assert twin_source(text) == (
        "# expect: trick\ndef loss(self):\n    raise NotImplementedError\n"
        "    # a comment stays\nx = 'not # trick here'\n"
    )
    (tmp_path / "tricks").mkdir()
    (tmp_path / "tricks" / "t.py").write_text(text)
    assert calibration_files(tmp_path)["tricks/t.py"][1].kind == "trick"


def test_judge_verdict_demands_the_named_tests_and_the_misconception_shown():
    wrong = Expectation("wrong", "two_tables", ("test_a",))
    assert judge_verdict(wrong, {"test_a": _failing("two_tables")}, 90, 100) == (True, "shows 'two_tables'")
    covered = _failing("only_one_path", charged_to="misconception:two_tables")  # carried by the root cause
    assert judge_verdict(wrong, {"test_a": covered}, 90, 100)[0] is True
    assert judge_verdict(wrong, {"test_b": _failing("two_tables")}, 90, 100)[0] is False  # test_a passed
    assert judge_verdict(wrong, {}, 100, 100) == (False, "got full marks")
    ok, note = judge_verdict(wrong, {"test_a": _failing(text="copied table: two_tables")}, 90, 100)
    assert not ok and "no failing test shows 'two_tables'" in note  # words in the student's text name nothing
    correct = Expectation("correct", "")
    assert judge_verdict(correct, {}, 100, 100) == (True, "")
    ok, note = judge_verdict(correct, {"test_a": _failing()}, 90, 100)
    assert not ok and note.startswith("lost points: test_a: x failed: your code raised boom")


def test_a_planted_file_is_found_whatever_its_name(tmp_path):
    site = tmp_path / "site-packages"
    (site / "pkg" / "__pycache__").mkdir(parents=True)
    (site / "pkg" / "old.py").write_text("x = 1\n")
    since = time.time()
    time.sleep(0.05)
    planted = site / "zz_anything_else.pth"
    planted.write_text("import os\n")
    (site / "pkg" / "__pycache__" / "old.cpython-311.pyc").write_bytes(b"compiled by the grader itself")
    if os.geteuid() == 0:  # a root grader: sandboxes run as their own uids, so ownership tells, not time
        os.chown(planted, BASE_UID + 7, BASE_UID + 7)
        os.utime(planted, (0, 0))  # a sandbox can set its file's mtime back; ownership stays
    assert sandbox_writes(site, since) == ["zz_anything_else.pth"]


def test_the_interpreter_dirs_cover_the_venv_and_the_standard_library():
    dirs = interpreter_dirs()
    assert any(Path(os.__file__).parent == d or d in Path(os.__file__).parents for d in dirs)
    assert any(d == Path(sys.prefix) or d in Path(sys.prefix).parents or Path(sys.prefix) in d.parents for d in dirs)
