"""A second assignment through the shared student side, end to end: the toy selftest, built by
``scripts/build_notebook.py --assignment selftest`` (scripts/test.sh builds it), released by nbgrader's
``generate_assignment`` past the course's guard, self-checked with ``pytest`` in the released folder (its checks
over coursecheck), and graded by the kit with the same verdicts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.graders.kit import KIT_ROOT

pytestmark = pytest.mark.e2e

STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()"


def _run(args, cwd, env, timeout=600):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def release(course, env) -> Path:
    proc = _run(["nbgrader", "generate_assignment", "selftest", "--force"], course, env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return course / "release" / "selftest"


@pytest.fixture(scope="module")
def folder(release, tmp_path_factory) -> Path:
    """The release as a student downloads it, outside the course."""
    folder = tmp_path_factory.mktemp("student") / "selftest"
    shutil.copytree(release, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _answered(folder: Path, body: str) -> Path:
    """The released notebook with `body` in place of the stub, saved beside it, as a student's."""
    nb = nbformat.read(folder / "selftest.ipynb", as_version=4)
    cell = next(c for c in nb.cells if STUB in c.source)
    cell.source = cell.source.replace(STUB, body)
    path = folder / f"answer_{abs(hash(body)) % 1000}.ipynb"
    nbformat.write(nb, path)
    return path


def _self_check(folder: Path, env, **settings) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "pytest"], folder, {**env, **settings})


def test_the_release_holds_the_stub_the_self_check_and_no_answer(release):
    files = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    assert {"selftest.ipynb", "conftest.py", "test_selftest.py", "pytest.ini", "README.md"} <= files
    assert {f"selftest_checks/{name}" for name in ("messages.py", "said.py", "self_check.py", "checks.py")} <= files
    code = "\n".join(c.source for c in nbformat.read(release / "selftest.ipynb", as_version=4).cells)
    assert STUB in code and "return a + b" not in code and "BEGIN SOLUTION" not in code
    hidden = (KIT_ROOT / "autograder" / "graders" / "selftest" / "judge" / "suite" / "test_add.py").read_text()
    assert (
        "selftest.no_evidence" in hidden
        and "selftest.no_evidence" not in (release / "selftest_checks" / "messages.py").read_text()
    )


def test_the_self_check_runs_the_stub_a_mistake_and_an_answer(folder, env):
    stub = _self_check(folder, env)
    assert stub.returncode == 1, stub.stdout + stub.stderr
    assert "1 failed, 1 passed, 2 skipped" in stub.stdout and "add is not implemented yet" in stub.stdout
    assert "selftest self-check of" in stub.stdout and "SELFTEST_SUBMISSION=path pytest" in stub.stdout
    wrong = _self_check(folder, env, SELFTEST_SUBMISSION=str(_answered(folder, "    return a - b")))
    assert wrong.returncode == 1 and "subtraction instead of addition" in wrong.stdout, wrong.stdout
    right = _self_check(folder, env, SELFTEST_SUBMISSION=str(_answered(folder, "    return torch.add(a, b)")))
    assert right.returncode == 0 and "4 passed" in right.stdout, right.stdout + right.stderr
    chinese = _self_check(folder, env, SELFTEST_LANG="zh")
    assert "还没有实现" in chinese.stdout and "selftest 作业自检" in chinese.stdout


def test_the_grader_gives_the_self_checks_verdicts(folder, env):
    """The kit grades the same notebooks: full marks for the answer, the misconception the self-check named."""
    kit = [sys.executable, "-m", "autograder", "grade", "--assignment", "selftest", "--seed", "7", "--json"]
    scores = {}
    for name, body in {"right": "    return torch.add(a, b)", "wrong": "    return a - b"}.items():
        proc = _run([*kit, str(_answered(folder, body))], KIT_ROOT, env)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        scores[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert scores["right"]["score"] == 3
    assert scores["wrong"]["score"] < 3 and "subtraction instead of addition" in json.dumps(scores["wrong"])


def test_a_stale_source_is_not_released_and_the_refusal_names_the_build(course, env, release):
    """Last in this module: it leaves the course's selftest source edited. nbgrader's own command stops on it."""
    notebook = course / "source" / "selftest" / "selftest.ipynb"
    notebook.write_text(notebook.read_text(encoding="utf-8").replace("toy assignment", "small assignment"))
    proc = _run(["nbgrader", "generate_assignment", "selftest", "--force"], course, env)
    said = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "'selftest' is not released" in said, said[-2000:]
    assert "python scripts/build_notebook.py --assignment selftest" in said and "selftest.ipynb" in said
