"""The self-check runs the cells the grader runs: every cell but the demonstrations as released that nothing needs.

coursecheck/demos.py: a code cell whose text is one the course released (its digest among those the
build recorded, ``released_demos.py``) and that no cell that runs can need is not run, by the grader's rule
(``coursecheck.cells.unneeded_demos``), which the grader's runner applies (``autograder.runner``'s
``load_submission``, given the names and the build's facts). The self-check applies it too, and nothing else:
the same cells raise in both, the checks see the same classes, and a demonstration that would fail on the
student's code (the try-it cell calling a generate that does not crop) is reported by neither. A solution
notebook is checked without matplotlib, the tokenizer or the try-it cell.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR
from autograder.graders.weight_tying.released_demos import DIGESTS
from autograder.qa.calibrate import calibration_files
from autograder.runner import __main__ as runner
from coursecheck import demos
from coursecheck.cells import unneeded_demos
from coursecheck.notebook import code_cells
from coursecheck.plugin import Run
from coursecheck.selfcheck import load_submission

SOURCE = COURSE_DIR / "source" / "weight_tying"
EDITIONS = {"en": "weight_tying", "zh": "weight_tying_zh"}
IDS = ("solution_TiedEmbeddingLM", "solution_MiniGPTWithWeightTying")
NAMES = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")


def _cells(nb) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _grade_id(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _notebook(tmp_path, edit=None, name="nb.ipynb"):
    """The English source notebook (the reference answers in its exercise cells), edited, saved under tmp_path."""
    nb = json.loads((SOURCE / "weight_tying.ipynb").read_text(encoding="utf-8"))
    if edit is not None:
        edit(nb)
    path = tmp_path / name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _demo(nb, first_line: str) -> dict:
    return next(c for c in _cells(nb) if _source(c).startswith(first_line))


def _outcomes(session, checks) -> dict:
    return {n: (session.outcome(n).status, session.outcome(n).message) for n in checks.CHECKS}


def _graded(checks, path) -> tuple[dict, list, list]:
    """What the grader's runner makes of the notebook (its own loader, with the job's names, digests and the
    build's facts): each check's (status, message) on the classes it defines, the cells that raised, and the
    cells it did not run."""
    spec = get_assignment("weight_tying")
    result = runner.load_submission(
        "ipynb",
        path.read_text(encoding="utf-8"),
        path.name,
        required=NAMES,
        released=tuple(spec.released_demos),
        facts=runner._facts(spec.released_facts),
    )
    session = checks.SELF_CHECK.session({n: result.namespace.get(n) for n in NAMES})
    return _outcomes(session, checks), result.errors, result.skipped


def _checked(checks, path):
    """The run `pytest` in a release reports (coursecheck.plugin.Run, the submission named by its setting)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(checks.SELF_CHECK.assignment.setting("SUBMISSION"), str(path))
        run = Run(checks.SELF_CHECK, path.parent)
        run.pytest_configure(None)
    loaded = run.loaded()
    return loaded, _outcomes(loaded.session, checks)


def _agrees(checks, path):
    """The self-check's run of `path` against the grader's: the same verdicts, the same cells raised, and the
    demonstrations it leaves out among the cells the grader does not run."""
    loaded, outcomes = _checked(checks, path)
    graded, errors, skipped = _graded(checks, path)
    assert outcomes == graded
    assert loaded.errors == errors
    assert loaded.left_out <= set(skipped)
    return loaded, outcomes


@pytest.mark.parametrize("language", list(EDITIONS))
def test_every_code_cell_but_the_imports_and_the_exercises_is_a_demo_as_released(checks, language):
    nb = json.loads((SOURCE.parent / EDITIONS[language] / "weight_tying.ipynb").read_text(encoding="utf-8"))
    plain = [c for c in _cells(nb) if "nbgrader" not in c["metadata"]]
    kinds = [demos.is_demo(checks.SELF_CHECK, _source(c)) for c in plain]
    assert kinds[0] is False and _source(plain[0]).startswith("import math")  # the imports always run
    assert kinds[1:] == [True] * (len(plain) - 1) and len(plain) == 10
    assert "matplotlib" not in _source(plain[0]) and "tokenizers" not in _source(plain[0])


def test_the_solution_notebook_is_checked_without_its_demos_or_their_imports(tmp_path):
    """In a fresh interpreter, as a student's pytest: neither matplotlib nor the tokenizer is imported."""
    path = _notebook(tmp_path)
    code = (
        "import sys; from pathlib import Path\n"
        "from weight_tying_checks import CHECKS, SELF_CHECK\n"
        f"loaded = SELF_CHECK.load(Path({str(path)!r}))\n"
        "statuses = {loaded.session.outcome(n).status for n in CHECKS}\n"
        "imported = sorted(m for m in ('matplotlib', 'dnnlpy.tokenizers') if m in sys.modules)\n"
        "print(len(loaded.left_out), statuses, imported)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=SOURCE, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.stdout.strip() == "9 {'passed'} []", proc.stdout + proc.stderr[-2000:]


def test_the_stub_is_checked_without_its_demos_as_graded(checks, tmp_path):
    def stubs(nb):
        for cell in _cells(nb):
            if _grade_id(cell) in IDS:
                name = _grade_id(cell).removeprefix("solution_")
                cell["source"] = (
                    f"class {name}(nn.Module):\n    def __init__(self, *a, **k):\n        raise NotImplementedError()\n"
                )

    path = _notebook(tmp_path, stubs)
    loaded, _ = _agrees(checks, path)
    assert loaded.left_out and loaded.errors == []  # the demos that call the stubs ran in neither
    assert [m for _, m in load_submission(path).errors] == ["NotImplementedError: "] * 3  # gradients, savings, try-it


def test_a_demo_that_fails_on_the_students_code_is_reported_by_neither(checks, tmp_path):
    """A generate that does not crop: the try-it cell, as released, would raise on it (it generates past
    block_size), but the grader does not run it; the self-check neither, though the student's code raised in a
    check. What the student must fix is the check's failure, not a cell."""

    def no_crop(nb):
        cell = next(c for c in _cells(nb) if _grade_id(c) == IDS[1])
        cell["source"] = _source(cell).replace("context = ids[:, -block_size:]", "context = ids", 1)

    path = _notebook(tmp_path, no_crop)
    assert "ids[:, -block_size:]" not in path.read_text(encoding="utf-8")
    try_it = next(i for i, c in enumerate(json.loads(path.read_text())["cells"]) if "max_new_tokens=20" in _source(c))
    assert [i for i, m in load_submission(path).errors] == [try_it]  # the whole notebook: the demo raises
    loaded, outcomes = _agrees(checks, path)
    assert loaded.errors == [] and try_it in loaded.left_out
    assert outcomes["test_generate_crops_past_block_size"][0] == "failed"


def test_a_changed_demo_runs_with_the_demo_it_reads_as_graded(checks, tmp_path):
    def edit(nb):
        _demo(nb, "torch.manual_seed(0)\nmodel = MiniGPTWithWeightTying")["source"] += "\nprint('my own line')\n"

    path = _notebook(tmp_path, edit)
    loaded, outcomes = _agrees(checks, path)  # it reads `tokenizer` and `model`, demos': those run too
    nb = json.loads(path.read_text(encoding="utf-8"))
    tokenizer_cell = next(i for i, c in enumerate(nb["cells"]) if "Tokenizer.train_from_iterator" in _source(c))
    try_it = next(i for i, c in enumerate(nb["cells"]) if "my own line" in _source(c))
    assert loaded.errors == [] and not {tokenizer_cell, try_it} & loaded.left_out
    assert set(status for status, _ in outcomes.values()) == {"passed"}


def test_a_changed_plot_that_raises_fails_no_check_and_is_named_like_any_cell_that_raised(checks, tmp_path):
    def edit(nb):
        _demo(nb, "import matplotlib.pyplot as plt")["source"] += "\nraise RuntimeError('my plot broke')\n"

    loaded, outcomes = _agrees(checks, _notebook(tmp_path, edit))
    assert [m for _, m in loaded.errors] == ["RuntimeError: my plot broke"]
    assert set(status for status, _ in outcomes.values()) == {"passed"}


def test_a_class_that_reads_what_a_demo_defines_has_that_demo_run(checks, tmp_path):
    def edit(nb):
        cell = next(c for c in _cells(nb) if _grade_id(c) == IDS[0])
        cell["source"] = _source(cell).replace(
            "super().__init__()", "super().__init__()\n        self.v = tokenizer.vocab_size", 1
        )

    path = _notebook(tmp_path, edit)
    nb = json.loads(path.read_text(encoding="utf-8"))
    left_out = unneeded_demos(code_cells(nb), NAMES, DIGESTS)
    tokenizer_cell = next(i for i, c in enumerate(nb["cells"]) if "Tokenizer.train_from_iterator" in _source(c))
    assert tokenizer_cell not in left_out and left_out  # the demo it reads runs; the others are still left out
    loaded, outcomes = _agrees(checks, path)
    assert loaded.left_out == left_out and set(s for s, _ in outcomes.values()) == {"passed"}


def test_a_class_defined_only_when_a_demo_ran_has_every_cell_run(checks, tmp_path):
    """No name is shared with a demo, yet the class exists only when a demo ran: a cell that reaches names
    without naming them (globals()) keeps every demo in, for the grader and the self-check alike."""

    def edit(nb):
        cell = next(c for c in _cells(nb) if _grade_id(c) == IDS[0])
        cell["source"] = _source(cell).replace("class TiedEmbeddingLM(", "class _Tied(", 1) + (
            "\nif 'tokenizer' in globals():  # a demo above defines it\n    TiedEmbeddingLM = _Tied\n"
        )

    loaded, outcomes = _agrees(checks, _notebook(tmp_path, edit))
    assert loaded.left_out == frozenset() and loaded.errors == []
    assert set(s for s, _ in outcomes.values()) == {"passed"}


def test_a_name_of_the_students_that_a_demo_also_defines_is_the_students(checks, tmp_path):
    """The plot's cell sets D too; nothing reads it, so the grader leaves the plot out, and the self-check too."""

    def edit(nb):
        imports = _cells(nb)[0]
        imports["source"] = _source(imports) + "\nD = 3  # my own constant; the plot's cell sets D too\n"

    loaded, outcomes = _agrees(checks, _notebook(tmp_path, edit))
    assert loaded.left_out and set(s for s, _ in outcomes.values()) == {"passed"}


def _corpus() -> list:
    files = calibration_files(get_assignment("weight_tying").calibration_dir)
    return sorted(
        path
        for path, expectation in files.values()
        if expectation.kind in ("correct", "wrong")
        and (expectation.kind == "correct" or expectation.names)  # a wrong file naming nothing hangs
        and path.suffix == ".py"
        and "\n# %%" not in path.read_text(encoding="utf-8")
    )


def _with_exercise_code(code: str):
    def edit(nb):
        for cell in _cells(nb):
            if _grade_id(cell) in IDS:
                cell["source"] = code if _grade_id(cell) == IDS[0] else "# (defined above)\n"

    return edit


def _disagree(checks, tmp_path, paths) -> dict:
    differ = {}
    for source in paths:
        path = _notebook(tmp_path, _with_exercise_code(source.read_text(encoding="utf-8")), f"{source.stem}.ipynb")
        loaded, outcomes = _checked(checks, path)
        graded, errors, skipped = _graded(checks, path)
        if outcomes != graded or loaded.errors != errors or not loaded.left_out <= set(skipped):
            differ[source.stem] = {n: (o, graded[n]) for n, o in outcomes.items() if o != graded[n]}
    return differ


def test_calibration_files_in_the_notebook_get_the_graders_run(checks, tmp_path):
    """Every eighth correct or wrong file of the corpus in the notebook's exercise cell; the sweep takes all."""
    assert _disagree(checks, tmp_path, _corpus()[::8]) == {}


@pytest.mark.sweep
def test_every_calibration_file_in_the_notebook_gets_the_graders_run(checks, tmp_path):
    assert _disagree(checks, tmp_path, _corpus()) == {}


def test_the_self_check_freezes_what_its_imports_made_out_of_the_collectors_passes():
    """torch's objects live to the end of the run: the collector's full passes over them were ~0.7 CPU-s of a
    self-check. The conftest pauses the collector while it imports, then freezes what the imports made."""
    code = (
        "import gc, importlib.util, sys\n"
        f"sys.path.insert(0, {str(SOURCE)!r})\n"
        f"spec = importlib.util.spec_from_file_location('selfcheck_conftest', {str(SOURCE / 'conftest.py')!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 100_000)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    assert proc.stdout.strip() == "True True", proc.stdout + proc.stderr[-2000:]
