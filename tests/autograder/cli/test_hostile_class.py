"""A whole class of hostile hand-ins graded through the documented command line, as root in the real sandbox.

`python -m autograder grade --assignment weight_tying FOLDER --out DIR --json` over an nbgrader-style folder
holding correct files (one of them UTF-16, one Latin-1 with a coding line), the evidence and text attacks
of the calibration corpus (a30-a35), and hand-ins no runner can produce: links to the solution, to a
classmate's file, a student folder and an assignment folder that are links, a FIFO, a notebook nested
100,000 deep, one too wide to parse, one with undecodable bytes, a student folder whose name holds
escapes. Every student gets a result; correct files 100, everything else 0; no process is left behind;
nothing printed for the instructor carries an escape sequence.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT as KIT
from autograder.outputs.roster import display_name
from autograder.sandbox.slots import stray_processes

SPEC = get_assignment("weight_tying")
ATTACKS = SPEC.calibration_dir / "attacks"
CORRECT = SPEC.calibration_dir / "correct"
HOSTILE_ATTACKS = sorted(p for p in ATTACKS.glob("a3*.py"))
STUB = "class TiedEmbeddingLM:\n    pass\n\n\nclass MiniGPTWithWeightTying:\n    pass\n"
SHOWN_ESCAPES = ("\x1b]", "\x07", "\x9b", "\x9d", "\x1b[2J", "\r")  # OSC (titles, links), bell, 8-bit CSI/OSC


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]})


def _hand_in(root: Path, student: str, name: str = "weight_tying.py") -> Path:
    folder = root / student / "weight_tying"
    folder.mkdir(parents=True)
    return folder / name


def _build_class(root: Path) -> tuple[set[str], set[str]]:
    """The class folder; returns (students who must get 100, students who must get 0)."""
    full = {"good_chapter", "good_notebook", "good_utf16", "good_latin1"}
    _hand_in(root, "good_chapter").write_text((CORRECT / "c01_chapter_way.py").read_text())
    _hand_in(root, "good_notebook", "weight_tying.ipynb").write_text(
        (CORRECT / "c08_notebook_with_magics.ipynb").read_text()
    )
    chapter = (CORRECT / "c01_chapter_way.py").read_text()
    _hand_in(root, "good_utf16", "weight_tying.ipynb").write_bytes(_notebook(chapter).encode("utf-16"))
    latin = "# -*- coding: latin-1 -*-\n# élève: ça marche\n" + chapter
    _hand_in(root, "good_latin1").write_bytes(latin.encode("latin-1"))
    zero = set()
    for attack in HOSTILE_ATTACKS:
        student = attack.stem.split("_", 1)[0] + "_attack"
        _hand_in(root, student).write_text(attack.read_text())
        zero.add(student)
    os.symlink(KIT / "solutions" / "weight_tying.py", _hand_in(root, "link_solution"))
    os.symlink(root / "good_chapter" / "weight_tying" / "weight_tying.py", _hand_in(root, "link_classmate"))
    os.symlink(root / "good_notebook", root / "link_folder")  # the student's whole folder is a link
    (root / "link_assignment").mkdir()
    os.symlink(KIT / "solutions", root / "link_assignment" / "weight_tying")
    os.mkfifo(_hand_in(root, "fifo"))  # reading it would block the grader for ever
    _hand_in(root, "deep_notebook", "weight_tying.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    _hand_in(root, "wide_notebook", "weight_tying.ipynb").write_text("[" + "[]," * 3_000_000 + "[]]")
    raw = _notebook("x = '@@'\n" + STUB).encode().replace(b"@@", b"\xff\xfe\xc3\x28")
    _hand_in(root, "bad_bytes", "weight_tying.ipynb").write_bytes(raw)
    _hand_in(root, "esc\x1b]8;;wtcal.invalid\x07name\x1b[31m").write_bytes(codecs.BOM_UTF8 + STUB.encode())
    zero |= {"link_solution", "link_classmate", "link_folder", "link_assignment", "fifo"}
    zero |= {"deep_notebook", "wide_notebook", "bad_bytes", "esc\x1b]8;;wtcal.invalid\x07name\x1b[31m"}
    return full, zero


def _survivors() -> list[str]:
    return stray_processes("wtcal")


def _grade(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    command = [sys.executable, "-m", "autograder", "grade", "--assignment", "weight_tying", "--seed", "11", *args]
    return subprocess.run(command, cwd=KIT, env=env, capture_output=True, text=True, timeout=1500)


@pytest.mark.e2e
@pytest.mark.skipif(os.geteuid() != 0, reason="links to root-only files and sandbox uids need a root grader")
def test_a_hostile_class_gets_a_result_per_student_and_nothing_it_should_not(tmp_path):
    root = tmp_path / "submitted"
    root.mkdir()
    full, zero = _build_class(root)
    out = tmp_path / "graded"
    proc = _grade(str(root), "--out", str(out), "--json", "--timeout", "60")
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = json.loads(proc.stdout.strip().splitlines()[-1])["students"]
    summary = {raw: shown[display_name(raw)] for raw in full | zero if display_name(raw) in shown}  # names as shown
    assert set(summary) == full | zero, f"students without a result: {sorted((full | zero) - set(summary))}"
    results = list((out / "results").glob("*.json"))
    assert len(results) == len(summary), "one result JSON per student"
    by_output = {}
    for path in results:
        data = json.loads(path.read_text())["result"]
        assert data["tests"] and data["grader_error"] is None, f"{path.name}: {data['output']}"
        by_output[path.stem] = data["output"]
    lost = {s: r for s, r in summary.items() if s in full and r["score"] != r["max_score"]}
    assert not lost, f"correct hand-ins lost points: {lost}"
    earned = {s: r for s, r in summary.items() if s in zero and r["score"] != 0}
    assert not earned, f"hostile hand-ins earned points: {earned}"
    assert not _survivors(), f"processes outlived grading: {_survivors()}"
    why = "\n".join(by_output.values())
    assert why.count("symbolic link") >= 4 and "special file" in why and "nested too deeply" in why
    # The readable output for the instructor: a34's escapes and the escaped student name never reach it.
    readable = _grade(str(ATTACKS / "a34_terminal_escapes.py"), "--timeout", "60")
    batch = _grade(str(root / "esc\x1b]8;;wtcal.invalid\x07name\x1b[31m"), str(root / "fifo"), "--out", str(out))
    for shown in (readable, batch):
        assert shown.returncode == 0, shown.stderr[-2000:]
        printed = shown.stdout + shown.stderr
        assert not [e for e in SHOWN_ESCAPES if e in printed], repr(printed[-3000:])
    assert "ALL TESTS PASSED" in readable.stdout  # the text is shown, only its escapes are gone
