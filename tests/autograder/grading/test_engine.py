"""The engine end to end on the toy `selftest` grader: sandbox, evidence, judge, one Result."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.grading.fresh import grade_submission
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.pipeline import facts
from autograder.grading.rendering import rendered
from autograder.grading.result import JUDGE_LIMIT, Result
from autograder.grading.submissions import MAX_SUBMISSION_BYTES
from autograder.sandbox import Limits, SandboxResult, probe_isolation
from autograder.sandbox.limits import isolation_for

SPEC = get_assignment("selftest")
CORRECT = "def add(a, b):\n    return a + b\n"


def grade(tmp_path: Path, source: str, name: str = "sub.py", **limits) -> Result:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return grade_submission(spec=SPEC, path=path, seed=0, limits=Limits(**{"wall_seconds": 20, **limits}))


def test_correct_submission_full_marks_wrong_one_named(tmp_path):
    good = grade(tmp_path, CORRECT)
    assert good.score == good.max_score == 3 and good.status == "ok"
    bad = grade(tmp_path, "def add(a, b):\n    return a - b\n", "bad.py")
    assert bad.score == 1 - 1 and any(t.finding and t.finding.names == "subtraction" for t in bad.tests)
    assert any("subtraction" in t.message() for t in bad.tests)
    assert {t.area for t in bad.tests} == {"values", "broadcasting"}


def test_os_exit_at_import_scores_zero_with_status(tmp_path):
    result = grade(tmp_path, "import os\n" + CORRECT + "os._exit(3)\n")
    assert result.score == 0 and result.status == "exited"
    assert "exit code 3" in result.output


def test_memory_blowup_scores_zero_with_reason(tmp_path):
    result = grade(
        tmp_path, "x = bytearray(8 * 2**30)\n" + CORRECT.replace("a + b", "a + b + x[0]"), memory_bytes=2 << 30
    )
    assert result.score == 0 and result.status == "memory"
    assert "out of memory" in result.output


def test_forged_duplicate_evidence_counts_as_missing(tmp_path):
    # A correct add, plus a forged second frame for one experiment: duplicates are treated as missing.
    source = CORRECT + textwrap.dedent("""
        import os, sys, torch
        from autograder.protocol.frames import encode_frame  # the runner's own writer: the format is no secret
        os.write(int(sys.argv[1]), encode_frame("same_shape", {"value": torch.zeros(3, 4)}))
    """)
    result = grade(tmp_path, source)
    by_name = {t.name.split("::")[-1]: t for t in result.tests}
    assert not by_name["test_same_shape"].passed and by_name["test_broadcast"].passed
    assert any("more than once" in n for n in result.run.notes)


def test_notebook_submission_with_failing_cell_and_magic(tmp_path):
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
        for source in ("%matplotlib inline\n1/0", CORRECT)
    ]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    result = grade(tmp_path, json.dumps(nb), "sub.ipynb")
    assert result.score == 3 and "ZeroDivisionError" in result.output


@pytest.mark.skipif(probe_isolation().mode != "namespaces", reason="needs root and util-linux unshare")
def test_submission_sees_its_graders_runner_folder_but_nothing_of_its_judge(tmp_path):
    runner_dir = SPEC.suite_dir.parents[1] / "runner"
    source = CORRECT + textwrap.dedent(f"""
        import os
        for folder in ({str(runner_dir)!r}, {str(SPEC.judge_dir)!r}, {str(SPEC.suite_dir)!r}):
            try:
                names = sorted(os.listdir(folder))
                print("LIST", folder, ",".join(n for n in names if n != "__pycache__"))
            except OSError as exc:
                print("DENIED", folder, type(exc).__name__)
    """)
    out = grade(tmp_path, source).run.stdout_tail.splitlines()
    listed = {
        line.split()[1]: line.split()[2] if len(line.split()) > 2 else "" for line in out if line.startswith("LIST")
    }
    assert set(listed.get(str(runner_dir), "").split(",")) >= {"__init__.py", "experiments.py"}
    assert str(SPEC.judge_dir) not in listed or listed[str(SPEC.judge_dir)] == ""
    assert str(SPEC.suite_dir) not in listed


def test_oversized_submission_scores_zero_and_says_how_to_fix_it(tmp_path):
    path = tmp_path / "huge.py"
    with path.open("wb") as fh:  # sparse: no real disk use
        fh.truncate(MAX_SUBMISSION_BYTES + 1)
    result = grade_submission(spec=SPEC, path=path, seed=0, limits=Limits(wall_seconds=20))
    assert result.score == 0 and result.max_score > 0
    assert "not run" in result.output and "MiB" in result.output


def _box(**fields) -> SandboxResult:
    base = dict(exit_code=0, signal=None, timed_out=False, wall_seconds=1.0, stdout="", stderr="", evidence=b"")
    return SandboxResult(**{**base, "evidence_overflow": False, "isolation": isolation_for("rlimits"), **fields})


def test_a_malformed_load_record_is_a_note_not_a_grader_error():
    # The review's record: a 3-item error entry and `defined: 5` made the run facts raise (exit 1, no JSON).
    evidence = {
        "__load__": {"errors": [[0, "NameError: x"], [1, "a", "b"]], "defined": 5},
        "__done__": {},
        "same_shape": {"error": [["nested"] * 3] * 1000},
    }
    run = facts(_box(), evidence, [], SPEC, Limits())
    assert run.load_errors == [[0, "NameError: x"]] and run.defined == [] and run.status == "ok"
    assert any("malformed __load__ error entries" in n for n in run.notes)
    assert any("defined is not a list (int)" in n for n in run.notes)
    gradescope_results(rendered(Result(tests=[], run=run), SPEC))  # and it serialises


def test_a_symlinked_submission_is_refused_and_its_target_never_read(tmp_path):
    target = tmp_path / "solution.py"
    target.write_text(CORRECT)  # what the link points at would score full marks
    (tmp_path / "hand-in").mkdir()
    link = tmp_path / "hand-in" / "alice.py"
    link.symlink_to(target)
    result = grade_submission(spec=SPEC, path=link, seed=0, limits=Limits(wall_seconds=20), roots=(tmp_path,))
    assert result.score == 0 and result.max_score > 0 and result.grader_error is None
    assert "symbolic link" in result.output and "a copy, not a link" in result.output


def test_the_fresh_path_holds_the_judge_to_its_time_limit(tmp_path):
    path = tmp_path / "sub.py"
    path.write_text(CORRECT)
    # A microsecond: no judgement is done by then, however fast the judge (10 ms raced a fast one under load).
    result = grade_submission(spec=SPEC, path=path, seed=0, limits=Limits(wall_seconds=60, judge_seconds=1e-6))
    assert result.status == JUDGE_LIMIT and result.grader_error is None
    assert result.max_score == 3 and all(
        "not judged: the judge stopped at its time limit" in t.message() for t in result.tests
    )


def test_a_fresh_batchs_workers_judge_within_the_judges_limits(tmp_path):
    """--executor fresh: judging ran in the batch's long-lived worker processes, with no limit at all."""
    from autograder.grading.executors import grade_batch

    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(CORRECT)
    results = grade_batch(
        assignment="selftest",
        submissions={name: tmp_path / f"{name}.py" for name in ("a", "b")},
        seed=0,
        limits=Limits(wall_seconds=60, judge_seconds=1e-6),
        workers=1,
        progress=False,
        executor="fresh",
    )
    assert [(r.status, r.grader_error) for r in results.values()] == [(JUDGE_LIMIT, None)] * 2
