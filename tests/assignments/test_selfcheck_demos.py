"""The self-check leaves the notebook's demonstration cells out when it can, and reports what a whole run would.

coursecheck/demos.py: a code cell whose text is one the course released (its digest among those the
build recorded, ``released_demos.py``) and that nothing else uses is not run (the grader's rule,
``coursecheck.cells.unneeded_demos``);
the run without demos is trusted only when it is clean (no cell raised, both classes defined, no name of the
student's that a demo also defines, the student's code never raised in a check), else the whole notebook runs.
So the verdicts and messages are the whole run's, and a solution notebook is checked without matplotlib, the
tokenizer or the try-it cell.
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
from coursecheck import demos
from coursecheck.cells import unneeded_demos
from coursecheck.notebook import code_cells
from coursecheck.selfcheck import load_submission

SOURCE = COURSE_DIR / "source" / "weight_tying"
EDITIONS = {"en": "weight_tying", "zh": "weight_tying_zh"}
IDS = ("solution_TiedEmbeddingLM", "solution_MiniGPTWithWeightTying")


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


def _whole(checks, path) -> tuple[dict, list]:
    """Each check's (status, message) and the cells that raised when every cell runs, as before demos.py."""
    result = load_submission(path)
    loaded = demos._loaded(checks.SELF_CHECK, path, result, True, demos.cell_names(checks.SELF_CHECK, path), None)
    return {
        n: (loaded.session.outcome(n).status, loaded.session.outcome(n).message) for n in checks.CHECKS
    }, result.errors


def _checked(checks, path):
    loaded = checks.SELF_CHECK.settle(checks.SELF_CHECK.load(path))
    outcomes = {n: (loaded.session.outcome(n).status, loaded.session.outcome(n).message) for n in checks.CHECKS}
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
        f"loaded = SELF_CHECK.settle(SELF_CHECK.load(Path({str(path)!r})))\n"
        "statuses = {loaded.session.outcome(n).status for n in CHECKS}\n"
        "print(loaded.whole, statuses, sorted(m for m in ('matplotlib', 'dnnlpy.tokenizers') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=SOURCE, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.stdout.strip() == "False {'passed'} []", proc.stdout + proc.stderr[-2000:]


def test_the_stub_is_checked_without_its_demos_and_fails_as_a_whole_run_would(checks, tmp_path):
    def stubs(nb):
        for cell in _cells(nb):
            if _grade_id(cell) in IDS:
                name = _grade_id(cell).removeprefix("solution_")
                cell["source"] = (
                    f"class {name}(nn.Module):\n    def __init__(self, *a, **k):\n        raise NotImplementedError()\n"
                )

    path = _notebook(tmp_path, stubs)
    loaded, outcomes = _checked(checks, path)
    whole, errors = _whole(checks, path)
    assert loaded.whole is False and loaded.errors == []  # the demos that call the stubs did not run
    assert outcomes == whole
    assert [m for _, m in errors] == ["NotImplementedError: "] * 3  # gradients, savings, try-it: not shown now


def test_a_changed_demo_runs_and_one_that_needs_a_left_out_demo_makes_the_whole_notebook_run(checks, tmp_path):
    def edit(nb):
        _demo(nb, "torch.manual_seed(0)\nmodel = MiniGPTWithWeightTying")["source"] += "\nprint('my own line')\n"

    loaded, outcomes = _checked(checks, _notebook(tmp_path, edit))  # it reads `tokenizer`, a demo's
    assert loaded.whole is True and loaded.errors == []  # no NameError of a demo left out
    assert set(status for status, _ in outcomes.values()) == {"passed"}


def test_a_changed_plot_that_raises_fails_no_check_and_is_named_like_any_cell_that_raised(checks, tmp_path):
    def edit(nb):
        _demo(nb, "import matplotlib.pyplot as plt")["source"] += "\nraise RuntimeError('my plot broke')\n"

    path = _notebook(tmp_path, edit)
    loaded, outcomes = _checked(checks, path)
    assert loaded.whole is True and [m for _, m in loaded.errors] == ["RuntimeError: my plot broke"]
    assert set(status for status, _ in outcomes.values()) == {"passed"}
    assert (outcomes, loaded.errors) == _whole(checks, path)


def test_a_class_that_reads_what_a_demo_defines_has_that_demo_run(checks, tmp_path):
    def edit(nb):
        cell = next(c for c in _cells(nb) if _grade_id(c) == IDS[0])
        cell["source"] = _source(cell).replace(
            "super().__init__()", "super().__init__()\n        self.v = tokenizer.vocab_size", 1
        )

    path = _notebook(tmp_path, edit)
    nb = json.loads(path.read_text(encoding="utf-8"))
    left_out = unneeded_demos(code_cells(nb), ("TiedEmbeddingLM", "MiniGPTWithWeightTying"), DIGESTS)
    tokenizer_cell = next(i for i, c in enumerate(nb["cells"]) if "Tokenizer.train_from_iterator" in _source(c))
    assert tokenizer_cell not in left_out and left_out  # the demo it reads runs; the others are still left out
    loaded, outcomes = _checked(checks, path)
    assert outcomes == _whole(checks, path)[0] and set(s for s, _ in outcomes.values()) == {"passed"}


def test_a_class_defined_only_when_a_demo_ran_makes_the_whole_notebook_run(checks, tmp_path):
    """No cell raises and no name is shared with a demo, yet without the demos a class is missing: the whole
    run, where the class exists, is the one reported."""

    def edit(nb):
        cell = next(c for c in _cells(nb) if _grade_id(c) == IDS[0])
        cell["source"] = _source(cell).replace("class TiedEmbeddingLM(", "class _Tied(", 1) + (
            "\nif 'tokenizer' in globals():  # a demo above defines it\n    TiedEmbeddingLM = _Tied\n"
        )

    path = _notebook(tmp_path, edit)
    loaded, outcomes = _checked(checks, path)
    assert loaded.whole is True and loaded.errors == []
    assert outcomes == _whole(checks, path)[0] and set(s for s, _ in outcomes.values()) == {"passed"}


def test_a_name_of_the_students_that_a_demo_also_defines_makes_the_whole_notebook_run(checks, tmp_path):
    def edit(nb):
        imports = _cells(nb)[0]
        imports["source"] = _source(imports) + "\nD = 3  # my own constant; the plot's cell sets D too\n"

    loaded, _ = _checked(checks, _notebook(tmp_path, edit))
    assert loaded.whole is True


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


def _same_as_whole(checks, tmp_path, paths) -> dict:
    differ = {}
    for source in paths:
        path = _notebook(tmp_path, _with_exercise_code(source.read_text(encoding="utf-8")), f"{source.stem}.ipynb")
        loaded, outcomes = _checked(checks, path)
        whole, errors = _whole(checks, path)
        if outcomes != whole or (loaded.whole and loaded.errors != errors):
            differ[source.stem] = {n: (o, whole[n]) for n, o in outcomes.items() if o != whole[n]}
    return differ


def test_calibration_files_in_the_notebook_get_the_whole_runs_verdicts(checks, tmp_path):
    """Every eighth correct or wrong file of the corpus in the notebook's exercise cell; the sweep takes all."""
    assert _same_as_whole(checks, tmp_path, _corpus()[::8]) == {}


@pytest.mark.sweep
def test_every_calibration_file_in_the_notebook_gets_the_whole_runs_verdicts(checks, tmp_path):
    assert _same_as_whole(checks, tmp_path, _corpus()) == {}


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
