"""``grade FILE --keep-evidence DIR`` (and ``calibrate --keep-evidence``): a folder that cannot take the evidence is
refused before anything is graded, naming it and the fix, and loses nothing; end to end, the kept folder is what
pytest runs the hidden suite on (``-k``, ``-x``, ``-v``, ``--pdb``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import autograder.grading.executors
from autograder.cli.main import main
from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT as KIT
from autograder.grading.result import Result


@pytest.fixture
def hand_in(tmp_path, monkeypatch) -> Path:
    """A hand-in whose grading would fail the test: every refusal below comes before any grading."""

    def graded(**kwargs):
        raise AssertionError("graded although --keep-evidence was refused")

    monkeypatch.setattr(autograder.grading.executors, "grade_file", graded)
    path = tmp_path / "hand-in.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    return path


@pytest.mark.parametrize(
    "case, needle",
    [
        ("a file", "is a file: give a folder (it is made if it does not exist)"),
        ("a folder with notes", "already holds notes.txt: give a new or empty folder (nothing in it is overwritten)"),
        ("--out", "--keep-evidence keeps one hand-in's evidence: grade one FILE, without --out"),
        ("two files", "--keep-evidence keeps one hand-in's evidence: grade one FILE, without --out"),
        ("dask", "--keep-evidence needs the judge on this machine: drop --executor dask"),
    ],
)
def test_a_folder_or_a_run_that_cannot_keep_is_refused_before_grading(case, needle, hand_in, tmp_path, capsys):
    target = tmp_path / "kept"
    args = ["grade", "--assignment", "selftest", str(hand_in), "--keep-evidence", str(target)]
    if case == "a file":
        target.write_text("mine")
    elif case == "a folder with notes":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    elif case == "--out":
        args += ["--out", str(tmp_path / "out")]
    elif case == "two files":
        args.insert(3, str(hand_in))
    else:
        args += ["--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--insecure-plain-tcp"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err, err
    assert (target.read_text() if target.is_file() else None) in (None, "mine")  # a file stays what it was
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"] if target.is_dir() else True


def test_calibrate_keeps_one_plan_through_the_pool(tmp_path, capsys):
    assert main(["calibrate", "--assignment", "selftest", "--seeds", "2", "--keep-evidence", str(tmp_path)]) == 2
    assert "--keep-evidence keeps one plan's evidence: drop it or --seeds" in capsys.readouterr().err
    assert main(["calibrate", "--assignment", "selftest", "--executor", "fresh", "--keep-evidence", str(tmp_path)]) == 2
    assert "--keep-evidence keeps what the pool's judges read: drop --executor fresh" in capsys.readouterr().err


def test_a_grade_that_stops_before_the_judge_keeps_nothing_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(autograder.grading.executors, "grade_file", lambda **kw: Result.grader_failure("no judge"))
    hand_in = tmp_path / "hand-in.py"
    hand_in.write_text("x = 1\n")
    assert main(["grade", "--assignment", "selftest", str(hand_in), "--keep-evidence", str(tmp_path / "k")]) == 1
    assert f"no evidence kept in {str(tmp_path / 'k')!r}: the grade stopped before the judge answered" in (
        capsys.readouterr().err
    )
    assert list((tmp_path / "k").iterdir()) == []


@pytest.mark.e2e
def test_one_verdict_debugged_with_pytest_on_the_kept_evidence(tmp_path):
    """The README's recipe, as an instructor types it."""
    suite = get_assignment("weight_tying").suite_dir.relative_to(KIT)
    hand_in = get_assignment("weight_tying").calibration_dir / "wrong" / "w01_deepcopy_head.py"
    kept = tmp_path / "kept"
    graded = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--assignment", "weight_tying", "--seed", "7", str(hand_in)]
        + ["--keep-evidence", str(kept)],
        capture_output=True,
        text=True,
        cwd=KIT,
        timeout=300,
    )
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert f"with pytest {suite} --evidence {kept} (-k TEST, -x, --pdb, -v" in graded.stderr

    def pytest_run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pytest", str(suite), "--evidence", str(kept), "-p", "no:cacheprovider"]
        return subprocess.run(command + list(args), input=stdin, capture_output=True, text=True, cwd=KIT, timeout=300)

    one = pytest_run("-k", "test_tied_lm_counts_one_table", "-x", "-v")
    assert one.returncode == 1, one.stdout[-3000:]
    assert "test_counts.py::test_tied_lm_counts_one_table FAILED" in one.stdout
    assert "the kit's finding" in one.stdout and "names two_tables" in one.stdout
    assert "1 failed, 26 deselected" in one.stdout
    first = pytest_run("-x", "-q")
    assert "stopping after 1 failures" in first.stdout and first.stdout.count("FAILED") <= 1
    debugged = pytest_run("-k", "test_tied_lm_counts_one_table", "--pdb", stdin="p 6 * 7\nq\n")
    assert "PDB post_mortem" in debugged.stdout and "(Pdb) 42" in debugged.stdout, debugged.stdout[-2000:]
