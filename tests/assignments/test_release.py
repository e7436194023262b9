"""End to end, as a course runs it: release both editions with nbgrader, work in the release, self-check,
autograde, grade with the kit.

Everything happens in a temporary copy of assignments/, with the venv's bin first on PATH (nbgrader runs
`alembic` and the `python3` kernel from PATH) and without the repo on PYTHONPATH: the release may only
depend on the installed `dnnlpy`.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.outputs.nbautograde import OVERRIDE

pytestmark = pytest.mark.e2e

CLASSES = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")
REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
ESSENTIAL = {
    "weight_tying.ipynb",
    "test_weight_tying.py",
    "conftest.py",
    "pytest.ini",
    "weight_tying_checks/__init__.py",
    "README.md",  # the student's steps: install, self-check, hand in (tests/assignments/test_student_readme.py)
}


def _run(args, cwd, env, timeout=600):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


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
        patch.delenv("WEIGHT_TYING_LANG", raising=False)
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


def _text(nb) -> str:
    return "\n".join(
        out.get("text", "") + "\n".join(out.get("traceback", [])) for c in nb.cells for out in c.get("outputs", [])
    )


@pytest.fixture(scope="module")
def source_nb(course):
    return nbformat.read(course / "source" / "weight_tying" / "weight_tying.ipynb", as_version=4)


@pytest.fixture(scope="module")
def filled(releases, source_nb) -> dict[str, nbformat.NotebookNode]:
    """Each edition's release notebook with the reference answers typed into its solution cells."""
    answers = _solution_cells(source_nb)
    out = {}
    for language, folder in releases.items():
        nb = nbformat.read(folder / "weight_tying.ipynb", as_version=4)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = answers[grade_id]
        out[language] = nb
    return out


def _self_check(folder: Path, env, submission: Path | None = None, **extra):
    # pytest as a student has it: without the plugins of the kit's dev environment (hypothesis's alone adds
    # ~2 s to every run). test_student_wheel.py runs the self-check in a student's own venv.
    env = {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **extra}
    if submission is not None:
        env["WEIGHT_TYING_SUBMISSION"] = str(submission)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = _run([sys.executable, "-m", "pytest"], folder, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds, not wall time: the machine may be busy with other work, the budget is about our code.
    return proc, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_each_release_holds_exactly_the_student_files(releases, course, language):
    folder = releases[language]
    released = _files(folder)
    assert released == _files(course / "source" / folder.name)  # the source folder is what students get
    assert ESSENTIAL <= released and {"weight_tying_checks/diagnosis.py", "weight_tying_checks/messages.py"} <= released
    assert not [name for name in released if name.startswith("autograder") or "suite" in name.split("/")[0]]
    for name in released - {"weight_tying.ipynb"}:
        imports = re.findall(r"^\s*(?:from|import) (\w+)", (folder / name).read_text(), re.M)
        assert "solutions" not in imports and "autograder" not in imports, name
    assert json.loads((folder / "weight_tying.ipynb").read_text())["metadata"]["course_kit"]["language"] == language


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_released_readme_ends_with_the_students_steps_not_the_builds_note(releases, course, language):
    """Issue 48: the source folder's README ends with a note to maintainers naming the kit's scripts; the course's
    post-convert hook leaves it out of what students get, and nothing else."""
    folder = releases[language]
    source = (course / "source" / folder.name / "README.md").read_text(encoding="utf-8")
    released = (folder / "README.md").read_text(encoding="utf-8")
    assert "scripts/build_notebook.py" in source.rstrip().rpartition("\n")[2]
    assert "<!--" not in released and "scripts/" not in released
    assert source.startswith(released.rstrip("\n")) and len(source) - len(released) < 200


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_release_holds_no_solution(releases, source_nb, language):
    released = (releases[language] / "weight_tying.ipynb").read_text()
    secret = {
        line.strip() for c in source_nb.cells for block in REGION.findall(c.source) for line in block.splitlines()
    }
    secret = {line for line in secret if len(line) > 12}
    public = "\n".join(REGION.sub("", c.source) for c in source_nb.cells)
    sources = "\n".join(c.source for c in nbformat.reads(released, as_version=4).cells)
    assert sorted(line for line in secret if line in sources and line not in public) == []
    assert len(secret) > 15  # the check really had something to look for
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "was_training = self.training"):
        assert marker not in released
    stubs = _solution_cells(nbformat.reads(released, as_version=4))
    assert len(stubs) == 2 and all(code.count("raise NotImplementedError()") >= 2 for code in stubs.values())


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_release_gives_no_answer_line_away(releases, language):
    """The release nbgrader made: no tie, crop or last-position argmax line in any file (checks, diagnosis,
    message catalog, notebook)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_answers", Path(__file__).with_name("test_no_answer_lines.py"))
    answers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(answers)
    folder = releases[language]
    found = {}
    for path in folder.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".ipynb":
                text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
            if lines := answers.answer_lines(text):
                found[path.relative_to(folder).as_posix()] = lines
    assert found == {}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_release_notebook_fails_only_in_cells_that_need_the_stubs(releases, language):
    nb = _execute(nbformat.read(releases[language] / "weight_tying.ipynb", as_version=4), releases[language])
    errors = _errors(nb)
    needs_stub = {
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and not c.metadata.get("nbgrader", {}).get("solution")
        and any(name + "(" in c.source or f"{name}={name}" in c.source for name in CLASSES)
    }
    assert set(errors) == needs_stub
    # A demo cell raises the stub's NotImplementedError; a practice cell reports it and fails.
    assert set(errors.values()) == {"NotImplementedError", "PracticeFailed"}
    assert "is not implemented yet" in _text(nb) or "还没有实现" in _text(nb)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_filled_notebook_runs_without_any_error_and_passes_its_practice_checks(releases, filled, language):
    nb = _execute(filled[language], releases[language])
    assert _errors(nb) == {}
    text = _text(nb)
    assert text.count("✓") == 16 and "✗" not in text
    assert ("全部通过" in text) == (language == "zh")
    stderr = [
        out.text
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        for out in c.get("outputs", [])
        if out.get("name") == "stderr"
    ]
    assert stderr == []  # nbgrader zeroes a test cell that writes to stderr


def test_self_check_on_the_stub_gives_one_block_per_class(release, env):
    proc, _ = _self_check(release, env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 failed, 1 passed, 14 skipped" in proc.stdout  # every cell ran in time: 1 passed
    assert proc.stdout.count("is not implemented yet: replace `raise NotImplementedError()`") == 2
    # A waiting check is listed by its title (never a function's name) under what it waits for: the starter code,
    # not a mistake to fix, and the stub says where the task is set, with nothing to reread.
    assert (
        "until TiedEmbeddingLM is implemented:\n    - lm_head.weight is token_embed.weight, from construction on"
    ) in proc.stdout, proc.stdout
    assert '(the task is in section 6, "Exercise 1' in proc.stdout and "reread" not in proc.stdout
    assert "Traceback" not in proc.stdout and "During handling" not in proc.stdout


def test_self_check_of_a_missing_file_is_one_clear_error(release, env, tmp_path):
    proc, _ = _self_check(release, env, tmp_path / "no_such.ipynb")
    assert proc.returncode == 4
    both = proc.stdout + proc.stderr
    assert both.count(f"no file at {str(tmp_path / 'no_such.ipynb')!r}, the path WEIGHT_TYING_SUBMISSION names") == 1
    assert "Traceback" not in both and "During handling" not in both


def test_a_syntax_error_in_exercise_1_leaves_exercise_2_checked(release, filled, env, tmp_path):
    nb = nbformat.from_dict(filled["en"])
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "solution_TiedEmbeddingLM")
    cell.source = cell.source.replace("def forward(self, input_ids: Tensor) -> Tensor:", "def forward(self, input_ids)")
    submission = tmp_path / "broken.ipynb"
    nbformat.write(nb, submission)
    proc, _ = _self_check(release, env, submission)
    assert "1 failed, 12 passed, 4 skipped" in proc.stdout, proc.stdout
    assert proc.stdout.count("does not define TiedEmbeddingLM") == 1 or "SyntaxError" in proc.stdout
    assert proc.stdout.count("SyntaxError: expected ':'") == 1


@pytest.mark.parametrize("language", ["en", "zh"])
def test_self_check_passes_a_filled_notebook_quickly(releases, filled, env, tmp_path, language):
    submission = tmp_path / f"my_copy_{language}.ipynb"
    nbformat.write(filled[language], submission)
    proc, seconds = _self_check(releases[language], env, submission)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "17 passed" in proc.stdout and str(submission) in proc.stdout
    assert seconds < 10, f"the self-check used {seconds:.1f} s of CPU (budget: 10 s)"


def test_each_edition_self_checks_in_its_language(releases, env, tmp_path, solution_source):
    wrong = solution_source.replace(
        "self.lm_head.weight = self.token_embed.weight",
        "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())",
    )
    submission = tmp_path / "answer.py"
    submission.write_text(wrong)
    english, _ = _self_check(releases["en"], env, submission)
    chinese, _ = _self_check(releases["zh"], env, submission)
    assert english.returncode == chinese.returncode == 1
    assert "copied table: lm_head.weight holds a copy" in english.stdout and "复制" not in english.stdout
    assert "复制了一份表：" in chinese.stdout and "自检小结" in chinese.stdout  # a check fails: counted, not listed
    switched, _ = _self_check(releases["zh"], env, submission, WEIGHT_TYING_LANG="en")
    assert "copied table: lm_head.weight holds a copy" in switched.stdout
    bad, _ = _self_check(releases["en"], env, submission, WEIGHT_TYING_LANG="fr")
    assert bad.returncode == 4 and "WEIGHT_TYING_LANG='fr' is not a language" in bad.stdout + bad.stderr


def test_the_student_env_cannot_import_the_reference_answers(release, env):
    proc = _run([sys.executable, "-c", "import solutions"], release, env)
    assert proc.returncode != 0 and "No module named 'solutions'" in proc.stderr


def test_nbgrader_autograde_runs_the_practice_checks_for_zero_points(course, releases, filled, env):
    from nbgrader.api import Gradebook

    stub = nbformat.read(releases["zh"] / "weight_tying.ipynb", 4)
    for student, assignment, nb in (("alice", "weight_tying", filled["en"]), ("bob", "weight_tying_zh", stub)):
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "weight_tying.ipynb")
    for assignment in ("weight_tying", "weight_tying_zh"):
        proc = _run(["nbgrader", "autograde", assignment, "--force", OVERRIDE], course, env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        alice = gb.find_submission_notebook("weight_tying", "weight_tying", "alice")
        bob = gb.find_submission_notebook("weight_tying", "weight_tying_zh", "bob")
        # One point system: nbgrader's max is the task cells' (the hidden suite's 100), its practice checks add 0,
        # and autograde awards nothing itself (the kit writes the task cells' scores: tests/autograder/outputs/).
        assert alice.max_score == bob.max_score == 100
        assert len(alice.grades) == 10 and alice.score == bob.score == 0
    graded = nbformat.read(course / "autograded" / "alice" / "weight_tying" / "weight_tying.ipynb", 4)
    assert _errors(graded) == {} and _text(graded).count("✓") == 16
    graded = nbformat.read(course / "autograded" / "bob" / "weight_tying_zh" / "weight_tying.ipynb", 4)
    assert "还没有实现" in _text(graded)
    proc = _run(["nbgrader", "generate_feedback", "weight_tying", "--force"], course, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (course / "feedback" / "alice" / "weight_tying" / "weight_tying.html").is_file()


def test_the_kit_grades_the_chinese_edition_in_chinese(releases, filled, env, tmp_path):
    nb = nbformat.from_dict(filled["zh"])
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "solution_TiedEmbeddingLM")
    cell.source = cell.source.replace(
        "self.lm_head.weight = self.token_embed.weight",
        "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())",
    )
    submission = tmp_path / "weight_tying.ipynb"
    nbformat.write(nb, submission)
    proc = _run(
        # Not told which edition: the grader reads it from the notebook's metadata.
        [sys.executable, "-m", "autograder", "grade", "--assignment", "weight_tying", str(submission), "--json"],
        tmp_path,
        {**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (
        result["extra_data"]["language"] == "zh"
        and result["output"] == "notebook 的各单元格从头到尾运行完毕，没有出错。"
    )
    failed = [t for t in result["tests"] if t["status"] == "failed"]
    areas = ("parameter identity", "parameter counts", "gradient accumulation", "shape flow")
    assert failed and all(set(t["tags"]) <= set(areas) for t in failed)
    # One charge, the copied table, titled and explained in Chinese: no English keyword left in it.
    named = [t for t in failed if "复制了一份表" in t["name"] + t["output"]]  # the title names it, the body explains
    assert named and all("copied" not in t["name"] + t["output"] for t in named), failed
    assert 0 < result["score"] < 100
