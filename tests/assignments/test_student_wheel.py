"""The students' wheel (scripts/build_student_package.py) holds dnnlpy and coursecheck alone, and with the release
folder it is all a student needs.

The venv has the whole kit installed editable, so a plain `python` would import dnnlpy, autograder and
solutions from the repo. The student run here uses `python -S` (no site hook: the editable finder and its
.pth are not loaded) with PYTHONPATH = the folder the wheel was pip-installed into, then the venv's
site-packages for torch and friends. That is a student's interpreter: third-party packages plus our wheel.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT

pytestmark = pytest.mark.e2e

MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
ROOT = KIT_ROOT


def _build_script():
    """scripts/build_student_package.py, loaded by path (scripts/ is not a package on sys.path)."""
    spec = importlib.util.spec_from_file_location(
        "build_student_package_under_test", ROOT / "scripts" / "build_student_package.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(args, cwd, env, timeout=600):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return _build_script().build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory, env) -> Path:
    """The wheel pip-installed (no dependencies, no index) into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
    proc = _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
        target,
        env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


@pytest.fixture(scope="module")
def student_env(env, installed) -> dict:
    site = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    return {**env, "PYTHONPATH": ":".join([str(installed), *site])}


@pytest.fixture(scope="module")
def folder(release, tmp_path_factory) -> Path:
    """A copy of the release outside the repo and outside the course directory, as a student downloads it."""
    folder = tmp_path_factory.mktemp("student") / "weight_tying"
    shutil.copytree(release, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _student_python(args, cwd, env):
    return _run([sys.executable, "-S", *args], cwd, env)


def test_wheel_holds_dnnlpy_with_its_data_and_coursecheck_and_nothing_else(wheel):
    assert wheel.name.startswith("dnnlpy-") and wheel.suffix == ".whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert {name.split("/")[0] for name in names} == {
        "dnnlpy",
        "coursecheck",
        next(n.split("/")[0] for n in names if ".dist-info/" in n),
    }
    assert not [n for n in names if "autograder" in n or "solutions" in n]
    assert "dnnlpy/data/corpus.txt" in names
    shipped = {
        p.relative_to(ROOT).as_posix() for package in ("dnnlpy", "coursecheck") for p in (ROOT / package).rglob("*.py")
    }
    assert shipped <= set(names)
    assert "Name: dnnlpy\n" in metadata and "Requires-Dist: torch<=2.13.0,>=2.4" in metadata


def test_wheel_holds_no_hidden_test_and_no_solution_text(wheel):
    # The hidden tests are the grader's suite; the wheel is dnnlpy alone. Its distinctive lines (the long
    # ones that are not imports or blank structure) must not be in any shipped .py file.
    suite = get_assignment("weight_tying").suite_dir
    secret = {
        line.strip()
        for path in suite.glob("*.py")
        for line in path.read_text("utf-8").splitlines()
        if len(line.strip()) > 30 and not line.strip().startswith(("import ", "from ", "#", '"""', "@pytest"))
    }
    with zipfile.ZipFile(wheel) as archive:
        text = "\n".join(archive.read(n).decode("utf-8", "replace") for n in archive.namelist() if n.endswith(".py"))
    assert len(secret) > 100  # the check really had something to look for
    assert sorted(line for line in secret if line in text) == []
    # dnnlpy's MiniGPT ties weights itself (the chapter's library does), so shared lines are expected; the
    # answer's classes are not.
    assert [name for name in ("class TiedEmbeddingLM", "class MiniGPTWithWeightTying") if name in text] == []
    assert [marker for marker in MARKERS if marker in text] == []
    assert "test_tied_lm_" not in text and "class TiedEmbeddingLM" not in text


def test_student_python_imports_dnnlpy_from_the_wheel_only(folder, installed, student_env):
    probe = (
        "import importlib.util, dnnlpy, dnnlpy.tokenizers, coursecheck.selfcheck\n"
        "print(dnnlpy.__file__, coursecheck.selfcheck.__file__)\n"
        "print(len(dnnlpy.tokenizers.load_corpus()) > 1000)\n"
        "print([m for m in ('autograder', 'solutions') if importlib.util.find_spec(m)])\n"
    )
    proc = _student_python(["-c", probe], folder, student_env)
    assert proc.returncode == 0, proc.stderr
    where, corpus, leaked = proc.stdout.split("\n")[:3]
    assert all(Path(file).is_relative_to(installed) for file in where.split()), where
    assert corpus == "True" and leaked == "[]"
    assert not Path(folder).is_relative_to(ROOT)


def test_release_self_check_runs_on_the_wheel_alone(folder, student_env, tmp_path, solution_source):
    stub = _student_python(["-m", "pytest", "-p", "no:cacheprovider"], folder, student_env)
    assert stub.returncode == 1, stub.stdout + stub.stderr
    assert "2 failed, 1 passed, 14 skipped" in stub.stdout and "is not implemented yet" in stub.stdout
    answer = tmp_path / "answer.py"
    answer.write_text(solution_source)
    solved = _student_python(
        ["-m", "pytest", "-p", "no:cacheprovider"], folder, {**student_env, "WEIGHT_TYING_SUBMISSION": str(answer)}
    )
    assert solved.returncode == 0, solved.stdout + solved.stderr
    assert "17 passed" in solved.stdout


def test_build_script_refuses_a_non_empty_project_dir_and_a_non_package(tmp_path):
    script = _build_script()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        script.write_project(tmp_path / "busy")
    with pytest.raises(ValueError, match="no __init__.py"):
        script.write_project(tmp_path / "new", package=tmp_path)
