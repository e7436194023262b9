"""Fixtures for the tests of the weight-tying assignment (course directory, solutions, self-check)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.graders.kit import COURSE_DIR, KIT_ROOT, SOLUTIONS_DIR

ROOT = KIT_ROOT
SOURCE = COURSE_DIR / "source" / "weight_tying"
EDITIONS = {"en": "weight_tying", "zh": "weight_tying_zh"}  # language -> nbgrader assignment
SOLUTIONS = SOLUTIONS_DIR / "weight_tying.py"


def load_module(path: Path, name: str):
    """Import a file that is not on sys.path (the self-check, the build script) under a unique name."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def solution_source() -> str:
    return SOLUTIONS.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def checks():
    """The public checks package exactly as it ships in the English release (weight_tying_checks/)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(SOURCE))
        patch.delenv("WEIGHT_TYING_LANG", raising=False)
        import weight_tying_checks

        yield weight_tying_checks


@pytest.fixture(scope="session")
def answers() -> dict[str, str]:
    """grade_id -> the reference answer of each solution cell, as the source notebook holds it: what a test's
    student types into the release (both editions have the same solution cells)."""
    import nbformat

    source = nbformat.read(SOURCE / "weight_tying.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


@pytest.fixture(scope="session")
def build_script():
    return load_module(ROOT / "scripts" / "build_notebook.py", "build_notebook_under_test")


# A fresh nbgrader release, shared by the end-to-end tests (test_student_path, test_student_package); each
# module gets its own temporary course directory, so that one module's autograding cannot disturb another.
@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A temporary copy of assignments/ without any generated folder."""
    course = tmp_path_factory.mktemp("course") / "assignments"
    shutil.copytree(
        COURSE_DIR,
        course,
        ignore=shutil.ignore_patterns(
            "release",
            "submitted",
            "autograded",
            "feedback",
            "gradebook.db",
            ".nbgrader.log",
            "__pycache__",
            ".pytest_cache",
        ),
    )
    return course


@pytest.fixture(scope="module")
def env():
    """The environment for subprocesses: the venv's bin first on PATH (nbgrader runs `alembic` and the
    `python3` kernel from it), no PYTHONPATH, no submission override, and not CI's: with CI or BUILD_NUMBER
    set, pytest prints whole messages in its summary too, which a student's self-check never shows."""
    dropped = ("PYTHONPATH", "WEIGHT_TYING_SUBMISSION", "WEIGHT_TYING_LANG", "CI", "BUILD_NUMBER")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.fixture(scope="module")
def releases(course, env) -> dict[str, Path]:
    """`nbgrader generate_assignment` of both editions in the temporary course: language -> students' folder."""
    out = {}
    for language, assignment in EDITIONS.items():
        proc = subprocess.run(
            ["nbgrader", "generate_assignment", assignment, "--force"],
            cwd=course,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out[language] = course / "release" / assignment
    return out


@pytest.fixture(scope="module")
def release(releases) -> Path:
    """The English edition's release folder."""
    return releases["en"]


@pytest.fixture(scope="session")
def run_ok():
    """``run_ok(args, cwd, env)``: a command of the course's (nbgrader, the kit's CLI) that must succeed; its
    output's tails in the failure message."""

    def run(args, cwd, env) -> subprocess.CompletedProcess:
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1500)
        assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]}{proc.stderr[-3000:]}"
        return proc

    return run
