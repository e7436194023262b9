"""End to end, as a course runs it: release with nbgrader, work in the release, self-check, autograde.

Everything happens in a temporary copy of assignments/, with the venv's bin first on PATH (nbgrader runs
`alembic` and the `python3` kernel from PATH) and without the repo on PYTHONPATH: the release may only
depend on the installed `dnnlpy`.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow

CLASSES = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")
REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
EXPECTED_RELEASE = {
    "weight_tying.ipynb",
    "test_weight_tying.py",
    "conftest.py",
    "pytest.ini",
    "weight_tying_diagnosis.py",
}


def _run(args, cwd, env, timeout=600):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _solution_cells(nb) -> dict[str, str]:
    return {
        c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")
    }


def _execute(nb, cwd: Path):
    """Run every cell in a python3 kernel, errors allowed; returns the executed notebook."""
    nb = nbformat.from_dict(nb)
    with pytest.MonkeyPatch.context() as patch:
        # The python3 kernelspec starts `python` from PATH: make that the venv's.
        patch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        patch.setenv("MPLBACKEND", "Agg")
        NotebookClient(
            nb, kernel_name="python3", timeout=300, allow_errors=True, resources={"metadata": {"path": str(cwd)}}
        ).execute()
    return nb


def _errors(nb) -> dict[int, str]:
    return {
        i: out.ename
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for out in c.get("outputs", [])
        if out.output_type == "error"
    }


@pytest.fixture(scope="module")
def source_nb(course):
    return nbformat.read(course / "source" / "weight_tying" / "weight_tying.ipynb", as_version=4)


@pytest.fixture(scope="module")
def filled_nb(release, source_nb):
    """The release notebook with the reference answers typed into its solution cells, as a student would."""
    nb = nbformat.read(release / "weight_tying.ipynb", as_version=4)
    answers = _solution_cells(source_nb)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def test_release_holds_exactly_the_student_files(release):
    assert {p.name for p in release.iterdir()} == EXPECTED_RELEASE
    for name in EXPECTED_RELEASE - {"weight_tying.ipynb"}:
        text = (release / name).read_text()
        assert "solutions" not in re.findall(r"^\s*(?:from|import) (\w+)", text, re.M), name
        assert "autograder" not in re.findall(r"^\s*(?:from|import) (\w+)", text, re.M), name


def test_release_holds_no_solution_and_no_hidden_test(release, source_nb):
    released = (release / "weight_tying.ipynb").read_text()
    released_sources = "\n".join(c.source for c in nbformat.reads(released, as_version=4).cells)
    secret_lines, public_text = set(), []
    for cell in source_nb.cells:
        for pattern in (REGION, HIDDEN):
            for block in pattern.findall(cell.source):
                secret_lines |= {line.strip() for line in block.splitlines() if len(line.strip()) > 12}
        public_text.append(HIDDEN.sub("", REGION.sub("", cell.source)))
    public = "\n".join(public_text)
    # A secret line may reach the release only where the instructor's notebook also shows it in public text.
    leaked = sorted(line for line in secret_lines if line in released_sources and line not in public)
    assert leaked == []
    assert len(secret_lines) > 40  # the check really had something to look for
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in released
    for distinctive in (
        "TiedEmbeddingLM(vocab_size=37)",
        "_p.mul_(30)",
        "the tie must survive load_state_dict",
        "was_training = self.training",
        "weight_tying=True,\n",
    ):
        assert distinctive not in released_sources
    stubs = _solution_cells(nbformat.reads(released, as_version=4))
    assert len(stubs) == 2
    assert all(code.count("raise NotImplementedError()") >= 2 for code in stubs.values())


def test_release_notebook_fails_only_in_cells_that_need_the_stubs(release):
    nb = _execute(nbformat.read(release / "weight_tying.ipynb", as_version=4), release)
    errors = _errors(nb)
    needs_stub = {
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and not c.metadata.get("nbgrader", {}).get("solution")
        and any(name + "(" in c.source for name in CLASSES)
    }
    assert set(errors) == needs_stub
    assert set(errors.values()) == {"NotImplementedError"}
    graded = {i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade")}
    assert graded <= set(errors)


def test_filled_notebook_runs_without_any_error(release, filled_nb):
    nb = _execute(filled_nb, release)
    assert _errors(nb) == {}
    stderr = [
        out.text
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        for out in c.get("outputs", [])
        if out.get("name") == "stderr"
    ]
    assert stderr == []  # nbgrader would zero a test cell that writes to stderr


def _self_check(folder: Path, env, submission: Path | None = None):
    env = dict(env)
    if submission is not None:
        env["WEIGHT_TYING_SUBMISSION"] = str(submission)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], folder, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds, not wall time: the machine may be busy with other work, the budget is about our code.
    return proc, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_self_check_on_the_stub_fails_with_named_messages(release, env):
    proc, _ = _self_check(release, env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "10 failed" in proc.stdout
    assert proc.stdout.count("is not implemented yet: replace `raise NotImplementedError()`") >= 10
    assert "what this self-check covers" in proc.stdout
    assert "The graded (hidden) suite checks more" in proc.stdout


def test_self_check_passes_the_filled_notebook_quickly(release, filled_nb, env, tmp_path):
    submission = tmp_path / "my_copy.ipynb"
    nbformat.write(filled_nb, submission)
    proc, seconds = _self_check(release, env, submission)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "10 passed" in proc.stdout and str(submission) in proc.stdout
    assert seconds < 10, f"the self-check used {seconds:.1f} s of CPU (budget: 10 s)"


def test_self_check_accepts_a_py_file_and_names_a_copied_table(release, env, tmp_path, solution_source):
    wrong = solution_source.replace(
        "self.lm_head.weight = self.token_embed.weight",
        "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())",
    )
    submission = tmp_path / "answer.py"
    submission.write_text(wrong)
    proc, _ = _self_check(release, env, submission)
    assert proc.returncode == 1
    # The tie test names the mistake; the gradient test, which needs a tie first, fails with the same words.
    assert "copied table" in proc.stdout and "8 passed" in proc.stdout


def test_the_student_env_cannot_import_the_reference_answers(release, env):
    proc = _run([sys.executable, "-c", "import solutions"], release, env)
    assert proc.returncode != 0 and "No module named 'solutions'" in proc.stderr


def test_nbgrader_autograde_gives_full_marks_to_the_solution_and_zero_to_the_stub(course, release, filled_nb, env):
    from nbgrader.api import Gradebook

    for student, nb in (("alice", filled_nb), ("bob", nbformat.read(release / "weight_tying.ipynb", 4))):
        folder = course / "submitted" / student / "weight_tying"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "weight_tying.ipynb")
    proc = _run(["nbgrader", "autograde", "weight_tying", "--force"], course, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        alice = gb.find_submission_notebook("weight_tying", "weight_tying", "alice")
        bob = gb.find_submission_notebook("weight_tying", "weight_tying", "bob")
        assert alice.max_score == 13
        per_cell = {grade.name: (grade.score, grade.max_score) for grade in alice.grades}
        assert all(score == maximum for score, maximum in per_cell.values()), per_cell
        assert alice.score == 13
        assert bob.score == 0
    # The hidden tests were put back and ran for the graded copy.
    assert (
        "TiedEmbeddingLM(vocab_size=37)"
        in (course / "autograded" / "alice" / "weight_tying" / "weight_tying.ipynb").read_text()
    )
    # Feedback keeps the scores but not the hidden tests' code (nbgrader_config strips it).
    proc = _run(["nbgrader", "generate_feedback", "weight_tying", "--force"], course, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    feedback = (course / "feedback" / "alice" / "weight_tying" / "weight_tying.html").read_text()
    assert "Score: 13.0 / 13.0" in feedback and "TiedEmbeddingLM(vocab_size=37)" not in feedback
