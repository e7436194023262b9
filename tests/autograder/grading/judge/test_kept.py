"""A hand-in's kept evidence: its folder checked before grading (new or empty; a file, an unwritable folder or
one holding anything refused by name, nothing touched), its files read back as written, a foreign or damaged
folder refused naming the file and the fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autograder.grading.judge.kept import FILES, Kept, folder_problem, read_kept
from autograder.sandbox.limits import Isolation, Limits
from autograder.sandbox.runs import SandboxResult


def _kept() -> Kept:
    box = SandboxResult(
        exit_code=0,
        signal=None,
        timed_out=False,
        wall_seconds=0.5,
        stdout="printed \udcff by the hand-in",  # a lone surrogate, as a hand-in's bytes can make
        stderr="",
        evidence=b"\x00\x01 the channel's bytes, as read",
        evidence_overflow=False,
        isolation=Isolation("rlimits", ("rlimits",), ("namespaces",)),
        notes=["a note"],
    )
    outcome = {"name": "test_add.py::test_same_shape", "points": 1.0, "area": "a", "passed": True, "finding": None}
    return Kept("selftest", 7, Limits(wall_seconds=9), b"job bytes", box, (outcome,), {"status": "ok"}, None)


def test_a_new_folder_is_made_and_an_empty_one_taken(tmp_path):
    new = tmp_path / "a" / "b"
    assert folder_problem(new) is None and new.is_dir() and list(new.iterdir()) == []
    assert folder_problem(new) is None  # still empty: taken again


def test_what_is_written_reads_back(tmp_path):
    kept = _kept()
    kept.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES)  # no temporary file left
    assert read_kept(tmp_path) == kept


@pytest.mark.parametrize("what", ["a file", "another file", "evidence kept before"])
def test_a_folder_that_holds_anything_or_a_file_is_refused_and_left_alone(tmp_path, what):
    target = tmp_path / "dir"
    if what == "a file":
        target.write_text("notes")
        contents = {target: "notes"}
        said = "is a file: give a folder"
    elif what == "another file":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
        contents = {target / "notes.txt": "mine"}
        said = "already holds notes.txt: give a new or empty folder"
    else:
        target.mkdir()
        _kept().write(target)
        contents = {target / name: (target / name).read_bytes() for name in FILES}
        said = "already holds evidence kept before: give a new or empty folder"
    problem = folder_problem(target)
    assert problem is not None and problem.startswith(f"--keep-evidence {str(target)!r}") and said in problem
    for path, data in contents.items():  # nothing lost
        assert (path.read_text() if isinstance(data, str) else path.read_bytes()) == data
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted({"dir", *(p.name for p in contents)})


def test_a_folder_that_cannot_be_written_is_refused_by_name(tmp_path):
    if os.geteuid() == 0:  # root writes through any mode: a folder under /proc cannot be made by anyone
        target = Path("/proc/kept-evidence-test")
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = locked / "dir"
    problem = folder_problem(target)
    assert problem is not None and problem.startswith(f"--keep-evidence {str(target)!r} cannot be written")
    assert "give a folder you can write" in problem and not target.exists()


def test_a_folder_without_kept_evidence_is_refused_naming_what_is_missing(tmp_path):
    with pytest.raises(ValueError, match="'.*' is not a folder: keep a hand-in's evidence there first"):
        read_kept(tmp_path / "absent")
    (tmp_path / "kept.json").write_text("{}")
    with pytest.raises(ValueError, match="holds no evidence.frames, job.frame: keep a hand-in's evidence there"):
        read_kept(tmp_path)


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda facts: facts.update(format=0), "format 0, this kit reads format 1"),
        (lambda facts: facts["limits"].update(wall_seconds=-1), "wall_seconds=-1"),
        (lambda facts: facts["box"].update(timed_out="no"), "'timed_out'"),
        (lambda facts: facts["judge"].update(outcomes="all passed"), "not a list of outcomes"),
        (lambda facts: facts["judge"]["outcomes"][0].update(passed="yes"), "'passed'"),
        (lambda facts: facts.pop("seed"), "'seed'"),
    ],
)
def test_a_damaged_kept_json_is_refused_naming_the_file_and_the_fix(tmp_path, change, said):
    _kept().write(tmp_path)
    facts = json.loads((tmp_path / "kept.json").read_text())
    change(facts)
    (tmp_path / "kept.json").write_text(json.dumps(facts))
    with pytest.raises(ValueError) as caught:
        read_kept(tmp_path)
    assert str(caught.value).startswith(f"{str(tmp_path / 'kept.json')!r} is not what the kit keeps")
    assert said in str(caught.value) and "keep it again: python -m autograder grade FILE" in str(caught.value)
