"""The Gradescope package: what the zip holds, and its run_autograder grading in a simulated /autograder tree."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR
from autograder.grading.gradescope.package import build_package, package_files
from autograder.grading.gradescope.run import Upload, find_submission

SPEC = get_assignment("weight_tying")


def test_the_zip_holds_the_kit_without_solutions_calibration_course_or_tests(tmp_path):
    zip_path = build_package(assignment="weight_tying", out=tmp_path / "wt.zip")
    with zipfile.ZipFile(zip_path) as zf:
        names = zf.namelist()
        run = zf.read("run_autograder").decode()
        mode = zf.getinfo("run_autograder").external_attr >> 16
    kit = {"autograder/cli/main.py", "dnnlpy/__init__.py", "coursecheck/notebook.py"}
    assert {"setup.sh", "run_autograder", "pyproject.toml", *kit} <= set(names)
    assert "autograder/graders/weight_tying/judge/suite/test_identity.py" in names  # the hidden suite judges
    forbidden = ("solutions/", "assignments/", "tests/", ".git/", "calibration/", "gradebook.db", ".venv/")
    assert not [n for n in names if any(part in n for part in forbidden)]
    assert "--assignment weight_tying" in run and mode & 0o111
    assert set(names) - {"setup.sh", "run_autograder"} == {p.as_posix() for p in package_files()}


def test_package_refuses_unknown_assignments_and_non_zip_names(tmp_path):
    with pytest.raises(ValueError, match="unknown assignment"):
        build_package(assignment="nope", out=tmp_path / "x.zip")
    with pytest.raises(ValueError, match=".zip"):
        build_package(assignment="weight_tying", out=tmp_path / "x.tar")


def test_find_submission_prefers_the_assignments_notebook_and_names_the_others(tmp_path):
    (tmp_path / "notes.py").write_text("")
    assert find_submission(tmp_path, "weight_tying") == Upload(tmp_path / "notes.py")
    (tmp_path / "scratch.ipynb").write_text("{}")
    (tmp_path / "weight_tying.ipynb").write_text("{}")
    upload = find_submission(tmp_path, "weight_tying")
    assert upload.path == tmp_path / "weight_tying.ipynb"
    assert upload.words("en") == (
        "Graded weight_tying.ipynb, the file named as the assignment's; also in your upload, not graded: scratch.ipynb."
    )
    missing = find_submission(tmp_path / "missing", "weight_tying")
    assert missing.path is None and missing.words("en").startswith("No notebook found: upload weight_tying.ipynb")


def _edition(path, language: str, saved: float | None = None) -> None:
    path.write_text(json.dumps({"cells": [], "metadata": {"course_kit": {"language": language}}}))
    if saved is not None:
        os.utime(path, (saved, saved))


_NOON = 1_780_000_000.0  # a time both files are saved around


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("weight_tying.ipynb", "weight_tying_zh.ipynb"),  # the editions' own names (issue 45: zh was ignored)
        ("mine.ipynb", "mine (1).ipynb"),  # renamed: what each is comes from the file, not its name
    ],
)
def test_an_upload_of_both_editions_grades_the_later_and_names_the_other(tmp_path, english, chinese):
    _edition(tmp_path / english, "en", saved=_NOON)
    _edition(tmp_path / chinese, "zh", saved=_NOON + 60)
    upload = find_submission(tmp_path, "weight_tying")
    assert upload.path == tmp_path / chinese and upload.said["id"] == "upload.editions.later"
    words = upload.words("en")
    assert f"The one saved later is graded: {chinese}; not graded: {english}." in words
    assert "评分的是保存得更晚的那一个" in upload.words("zh")
    _edition(tmp_path / english, "en", saved=_NOON + 120)  # the English one saved again, later
    assert find_submission(tmp_path, "weight_tying").path == tmp_path / english


def test_an_upload_of_both_editions_at_one_time_grades_the_english_and_says_so(tmp_path):
    """Times less than 2 s apart (files dropped in the browser together): no later one, the assignment's own."""
    _edition(tmp_path / "weight_tying_zh.ipynb", "zh", saved=_NOON + 1)
    _edition(tmp_path / "weight_tying_en.ipynb", "en", saved=_NOON)
    upload = find_submission(tmp_path, "weight_tying")
    assert upload.path == tmp_path / "weight_tying_en.ipynb"
    words = upload.words("en")
    assert (
        "less than 2 s apart" in words and "graded: weight_tying_en.ipynb; not graded: weight_tying_zh.ipynb" in words
    )
    assert "评分的是英文版：weight_tying_en.ipynb" in upload.words("zh")
    _edition(tmp_path / "copy.ipynb", "en")  # two of one edition, neither named as the assignment's: the student's call
    several = find_submission(tmp_path, "weight_tying")
    assert several.path is None and "3 files that could be the notebook" in several.words("en")


def _python_for(source) -> str:
    """A venv whose `autograder`, `coursecheck` and `dnnlpy` are the unpacked package's, with this venv's libraries
    (torch)."""
    venv = source.parent / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    libs = next((venv / "lib").glob("python3*/site-packages"))
    (libs / "kit.pth").write_text(f"{source}\n" + "\n".join(site.getsitepackages()) + "\n")
    return str(venv / "bin" / "python")


@pytest.mark.e2e
def test_run_autograder_grades_a_correct_and_a_wrong_submission(tmp_path):
    root = tmp_path / "autograder"
    source = root / "source"
    with zipfile.ZipFile(build_package(assignment="weight_tying", out=tmp_path / "wt.zip")) as zf:
        zf.extractall(source)
    os.chmod(source / "run_autograder", 0o755)
    python = _python_for(source)
    wrong = SPEC.calibration_dir / "wrong" / "w05_head_bias.py"
    for submission, full in ((SPEC.solution_path, True), (wrong, False)):
        folder = root / "submission"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        shutil.copy(submission, folder / "weight_tying.py")
        env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": python}
        proc = subprocess.run(
            ["bash", str(source / "run_autograder")], env=env, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        results = json.loads((root / "results" / "results.json").read_text())
        assert results["max_score"] == 100 and results["tests"], results.get("output")
        assert (results["score"] == 100) is full, (submission.name, results["score"], results["output"])
        assert results["extra_data"]["run"]["status"] == "ok"
        if not full:
            assert any("bias on the head" in t["output"] for t in results["tests"] if t["status"] == "failed")
    # Both editions uploaded together: the English one is graded, and the output says so first.
    folder = root / "submission"
    shutil.rmtree(folder)
    folder.mkdir()
    for language, edition in (("en", "weight_tying"), ("zh", "weight_tying_zh")):
        copy = folder / f"weight_tying_{language}.ipynb"
        shutil.copy(COURSE_DIR / "source" / edition / "weight_tying.ipynb", copy)
        os.utime(copy, (_NOON, _NOON))
    proc = subprocess.run(
        ["bash", str(source / "run_autograder")], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 100 and results["extra_data"]["language"] == "en", results["output"]
    assert results["output"].startswith("Your upload holds one notebook per edition"), results["output"]
    assert "graded: weight_tying_en.ipynb; not graded: weight_tying_zh.ipynb" in results["output"]
