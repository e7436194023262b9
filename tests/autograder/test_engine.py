"""The engine end to end on the toy `selftest` assignment, plus its pure parts (frames, judge, batch)."""
from __future__ import annotations

import io
import json
import struct
import textwrap
from pathlib import Path

import pytest
import torch

from autograder.assignments import get_assignment
from autograder.batch import find_submissions
from autograder.calibrate import read_expectation
from autograder.engine import (MAX_SUBMISSION_BYTES, SubmissionTooLarge, decode_frames, grade_submission,
                              hidden_paths, read_submission)
from autograder.judge import run_suite
from autograder.sandbox import Limits, probe_isolation

SPEC = get_assignment("selftest")
CORRECT = "def add(a, b):\n    return a + b\n"


def frame(name, record) -> bytes:
    buf = io.BytesIO()
    torch.save({"name": name, "record": record}, buf)
    return struct.pack(">Q", len(buf.getvalue())) + buf.getvalue()


def grade(tmp_path: Path, source: str, name: str = "sub.py", **limits) -> dict:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return grade_submission(spec=SPEC, path=path, seed=0, limits=Limits(**{"wall_seconds": 20, **limits}))


def test_unknown_assignment_names_the_known_ones():
    with pytest.raises(ValueError, match="weight_tying"):
        get_assignment("nope")


def test_decode_frames_drops_duplicates_and_malformed():
    data = frame("a", {"v": torch.ones(2)}) + frame("b", {"v": 1}) + frame("b", {"v": 2})
    bad = b"not a torch file"
    data += struct.pack(">Q", len(bad)) + bad + frame("c", {"v": "x"})
    evidence, notes = decode_frames(data)
    assert set(evidence) == {"a", "c"}
    torch.testing.assert_close(evidence["a"]["v"], torch.ones(2))
    assert any("'b'" in n and "more than once" in n for n in notes)
    assert any("malformed" in n for n in notes)


class Evil:  # a pickled arbitrary object is not plain evidence
    pass


def test_decode_frames_refuses_objects_and_oversized_frames():
    buf = io.BytesIO()
    torch.save({"name": "x", "record": {"v": Evil()}}, buf)
    data = struct.pack(">Q", len(buf.getvalue())) + buf.getvalue() + struct.pack(">Q", 1 << 40) + b"zz"
    evidence, notes = decode_frames(data)
    assert evidence == {} and any("oversized" in n for n in notes)


def test_judge_runs_repeatedly_in_one_process_and_hides_source(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_s.py").write_text(textwrap.dedent("""
        import pytest
        SECRET_CONSTANT = 12345
        CALLS = []

        @pytest.mark.points(2)
        @pytest.mark.area("a")
        def test_value(evidence):
            CALLS.append(1)
            assert len(CALLS) == 1, "module state leaked between runs"
            assert evidence.get("x") == SECRET_CONSTANT, "x is wrong"

        @pytest.mark.points(1)
        @pytest.mark.area("b")
        def test_skipped():
            pytest.skip("not counted")
    """))
    for value, passed in ((12345, True), (0, False), (12345, True)):
        results, _ = run_suite(suite_dir=suite, plan={}, evidence={"x": value}, run={})
        by_name = {r.name.split("::")[-1]: r for r in results}
        assert by_name["test_value"].passed is passed and by_name["test_value"].points == 2
        assert by_name["test_skipped"].passed is False
        if not passed:
            assert by_name["test_value"].output == "x is wrong"  # the message only: no source, no constant


def test_judge_requires_points(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    with pytest.raises(RuntimeError, match="points"):
        run_suite(suite_dir=tmp_path, plan={}, evidence={}, run={})


@pytest.mark.slow
def test_correct_submission_full_marks_wrong_one_named(tmp_path):
    good = grade(tmp_path, CORRECT)
    assert good["score"] == good["max_score"] == 3 and good["extra_data"]["run"]["status"] == "ok"
    bad = grade(tmp_path, "def add(a, b):\n    return a - b\n", "bad.py")
    assert bad["score"] == 1 - 1 and "subtraction" in json.dumps(bad["tests"])
    assert {t["tags"][0] for t in bad["tests"]} == {"values", "broadcasting"}


@pytest.mark.slow
def test_os_exit_at_import_scores_zero_with_status(tmp_path):
    result = grade(tmp_path, "import os\n" + CORRECT + "os._exit(3)\n")
    assert result["score"] == 0 and result["extra_data"]["run"]["status"] == "exited"
    assert "exit code 3" in result["output"]


@pytest.mark.slow
def test_memory_blowup_scores_zero_with_reason(tmp_path):
    result = grade(tmp_path, "x = bytearray(8 * 2**30)\n" + CORRECT.replace("a + b", "a + b + x[0]"),
                   memory_bytes=2 << 30)
    assert result["score"] == 0 and result["extra_data"]["run"]["status"] == "memory"
    assert "out of memory" in result["output"]


@pytest.mark.slow
def test_forged_duplicate_evidence_counts_as_missing(tmp_path):
    # A correct add, plus a forged second frame for one experiment: duplicates are treated as missing.
    source = CORRECT + textwrap.dedent("""
        import io, os, struct, sys, torch
        buf = io.BytesIO()
        torch.save({"name": "same_shape", "record": {"value": torch.zeros(3, 4)}}, buf)
        os.write(int(sys.argv[1]), struct.pack(">Q", len(buf.getvalue())) + buf.getvalue())
    """)
    result = grade(tmp_path, source)
    by_name = {t["name"].split("::")[-1]: t for t in result["tests"]}
    assert by_name["test_same_shape"]["status"] == "failed" and by_name["test_broadcast"]["status"] == "passed"
    assert any("more than once" in n for n in result["extra_data"]["run"]["notes"])


@pytest.mark.slow
def test_notebook_submission_with_failing_cell_and_magic(tmp_path):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "%matplotlib inline\n1/0"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": CORRECT},
    ]}
    result = grade(tmp_path, json.dumps(nb), "sub.ipynb")
    assert result["score"] == 3 and "ZeroDivisionError" in result["output"]


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


def test_read_expectation(tmp_path):
    path = tmp_path / "w.py"
    path.write_text("# expect: wrong copied table\nx = 1\n")
    exp = read_expectation(path)
    assert (exp.kind, exp.keyword) == ("wrong", "copied table")
    (tmp_path / "n.py").write_text("x = 1\n")
    assert read_expectation(tmp_path / "n.py") is None


def test_hidden_paths_cover_suites_but_never_the_kit_itself(tmp_path):
    kit = Path(__file__).resolve().parents[2]
    hidden = hidden_paths(SPEC, (kit, kit / "autograder", kit / "autograder" / "assignments", kit / "docs", tmp_path))
    assert str(SPEC.suite_dir) in hidden and str(SPEC.calibration_dir) in hidden
    for runner_code in (kit, kit / "autograder", kit / "autograder" / "assignments"):
        assert str(runner_code) not in hidden
    assert str(kit / "docs") in hidden  # e.g. a batch's --out folder inside the kit
    assert str(tmp_path) in hidden  # e.g. the folder of submissions being graded


@pytest.mark.slow
@pytest.mark.skipif(probe_isolation().mode != "namespaces", reason="needs root and util-linux unshare")
def test_submission_cannot_read_the_assignments_private_files(tmp_path):
    folder = Path(SPEC.suite_dir).parent
    source = CORRECT + textwrap.dedent(f"""
        import os
        for name in sorted(os.listdir({str(folder)!r})):
            path = os.path.join({str(folder)!r}, name)
            try:
                text = open(path).read() if os.path.isfile(path) else str(os.listdir(path))
                print("READ", name, len(text))
            except OSError as exc:
                print("DENIED", name, type(exc).__name__)
    """)
    run = grade(tmp_path, source)["extra_data"]["run"]
    read = {line.split()[1] for line in run["stdout_tail"].splitlines() if line.startswith("READ")}
    # What the runner imports is readable; the judge's side is not (empty stand-ins or permission errors).
    assert {"__init__.py", "experiments.py"} <= read
    for line in run["stdout_tail"].splitlines():
        if line.startswith("READ") and line.split()[1] not in ("__init__.py", "experiments.py", "__pycache__"):
            assert line.split()[2] in ("0", "[]"), line


def test_notebook_outputs_are_not_sent_to_the_runner(tmp_path):
    big_output = {"output_type": "stream", "name": "stdout", "text": "x" * 200_000}
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}}, "cells": [
        {"cell_type": "code", "metadata": {"tags": ["t"]}, "outputs": [big_output], "execution_count": 3,
         "source": CORRECT}]}
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(nb))
    kind, text = read_submission(path)
    assert kind == "ipynb" and len(text) < 1000
    assert json.loads(text)["cells"] == [{"cell_type": "code", "source": CORRECT, "metadata": {"tags": ["t"]}}]


def test_oversized_submission_scores_zero_and_says_how_to_fix_it(tmp_path):
    path = tmp_path / "huge.py"
    with path.open("wb") as fh:  # sparse: no real disk use
        fh.truncate(MAX_SUBMISSION_BYTES + 1)
    with pytest.raises(SubmissionTooLarge, match="Clear Outputs"):
        read_submission(path)
    result = grade_submission(spec=SPEC, path=path, seed=0, limits=Limits(wall_seconds=20))
    assert result["score"] == 0 and result["max_score"] > 0
    assert "not run" in result["output"] and "MiB" in result["output"]
