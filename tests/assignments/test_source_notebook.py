"""The source notebook: built from solutions/ (one source of truth), well-formed for nbgrader, and correct."""

from __future__ import annotations

import re

import nbformat
import pytest

from autograder.kit import COURSE_DIR
from dnnlpy.notebook import load_notebook

NOTEBOOK = COURSE_DIR / "source" / "weight_tying" / "weight_tying.ipynb"
REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION", re.S | re.M)


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@pytest.fixture(scope="module")
def notebook():
    return nbformat.read(NOTEBOOK, as_version=4)


def _normalized(code: str) -> list[str]:
    return [line.rstrip() for line in code.strip("\n").splitlines() if line.strip()]


def test_committed_files_equal_a_fresh_build(build_script):
    for path, text in build_script.outputs().items():
        assert text == path.read_text(encoding="utf-8"), f"{path} is out of date: run python scripts/build_notebook.py"


def test_solution_regions_match_solutions_module(notebook, solution_source):
    in_notebook = [
        region for cell in notebook.cells if _nbgrader(cell).get("solution") for region in REGION.findall(cell.source)
    ]
    in_solutions = REGION.findall(solution_source)
    assert len(in_solutions) == 6  # __init__ + forward, then __init__, forward, loss, generate
    assert [_normalized(r) for r in in_notebook] == [_normalized(r) for r in in_solutions]


def test_markers_only_in_cells_nbgrader_treats_specially(notebook):
    for index, cell in enumerate(notebook.cells):
        meta = _nbgrader(cell)
        if "BEGIN SOLUTION" in cell.source:
            assert meta.get("solution") is True, f"cell {index} has a solution region but no solution metadata"
        if "BEGIN HIDDEN TESTS" in cell.source:
            assert meta.get("grade") is True and meta.get("locked") is True, f"cell {index}"


def test_nbgrader_metadata_is_complete_and_unique(notebook):
    grade_ids = [_nbgrader(c)["grade_id"] for c in notebook.cells if _nbgrader(c)]
    assert len(grade_ids) == len(set(grade_ids))
    tests = [c for c in notebook.cells if _nbgrader(c).get("grade")]
    assert [_nbgrader(c)["grade_id"] for c in tests] == [
        "test_tied_structure",
        "test_tied_forward",
        "test_tied_gradient",
        "test_minigpt_structure",
        "test_minigpt_forward_loss",
        "test_minigpt_generate",
    ]
    assert all(_nbgrader(c)["locked"] and not _nbgrader(c)["solution"] for c in tests)
    assert sum(_nbgrader(c)["points"] for c in tests) == 13
    # Every test cell silences warnings first: a line on stderr would zero it under nbgrader.
    assert all("warnings.simplefilter('ignore')" in c.source.split("\n", 3)[2] for c in tests)
    assert notebook.metadata.kernelspec.name == "python3"


def test_every_cell_runs_on_the_reference_answer_hidden_tests_included(monkeypatch):
    monkeypatch.syspath_prepend(str(NOTEBOOK.parent))  # as a kernel started in the folder finds the diagnosis
    result = load_notebook(NOTEBOOK, skip_grade_cells=False)
    assert result.errors == []
    assert result.skipped == []


def test_self_check_loader_skips_the_test_cells(notebook):
    result = load_notebook(NOTEBOOK)
    expected = [i for i, c in enumerate(notebook.cells) if _nbgrader(c).get("grade")]
    assert result.skipped == expected and len(expected) == 6
    assert {"TiedEmbeddingLM", "MiniGPTWithWeightTying", "tokenizer"} <= set(result.namespace)
    assert result.namespace["tokenizer"].vocab_size == 300


def test_build_script_check_mode_reports_a_stale_notebook(build_script, tmp_path, capsys):
    stale = tmp_path / "weight_tying.ipynb"
    stale.write_text("{}")
    assert build_script.main(["--check", "--output", str(stale)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert build_script.main(["--output", str(stale)]) == 0
    assert build_script.main(["--check", "--output", str(stale)]) == 0


def test_solution_class_source_names_a_missing_class(build_script):
    with pytest.raises(ValueError, match="no class 'Missing'"):
        build_script.solution_class_source("Missing")
