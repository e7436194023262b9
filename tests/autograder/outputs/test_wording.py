"""The words on the pages: readable test names, messages cleaned (not rewritten), a notebook's cells read once."""

from __future__ import annotations

import json
import re

import pytest

from autograder.graders import get_assignment
from autograder.grading.marking import apply_marking
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.feedback import feedback_html
from autograder.outputs.wording import cell_starts, clean_message, readable_test

STUB = (
    "TiedEmbeddingLM (SGD step) failed: your code raised NotImplementedError:   (at <notebook> [cell 14]:7 in __init__)"
)


def test_readable_test_drops_the_file_and_the_prefix():
    assert readable_test("test_generation.py::test_generate_respects_block_size") == "generate respects block size"
    assert readable_test("test_x.py::test_shape[2-3]") == "shape [2-3]"
    assert readable_test("check_me") == "check me"


def test_a_stub_message_reads_cleanly_with_cells_counted_from_one():
    message = clean_message(STUB)
    assert (
        message
        == "TiedEmbeddingLM (SGD step) failed: your code raised NotImplementedError (at cell 15, line 7, in __init__)"
    )
    assert (
        clean_message("x failed: your code raised code raised KeyError: 'a'")
        == "x failed: your code raised KeyError: 'a'"
    )
    assert clean_message("a\x1b[31m red\r\n  b  ") == "a red\nb"  # the whole escape sequence goes
    assert (
        clean_message("no evidence for experiment 'generate': stopped") == "no result for the check 'generate': stopped"
    )


def test_a_missing_or_absent_notebook_names_no_cell(tmp_path):
    assert cell_starts(tmp_path / "missing.ipynb") == {} and cell_starts(None) == {}


def test_a_notebooks_cells_are_read_only_when_a_cell_is_named(tmp_path, monkeypatch):
    """A page that names no cell never reads the notebook (a class's report named every notebook twice)."""
    from autograder.grading import submissions

    reads = []
    real = submissions.read_submission
    monkeypatch.setattr(submissions, "read_submission", lambda path: reads.append(path) or real(path))
    notebook = tmp_path / "hw.ipynb"
    cells = [{"cell_type": "markdown", "source": "## 1. Setup", "metadata": {}}]
    cells += [{"cell_type": "code", "source": "x = 1\n", "metadata": {}}]
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    starts = cell_starts(notebook)
    assert (starts or {}) is starts and reads == []  # asked whether there are any: not read yet
    assert starts.get(1) is not None and starts.get(5) is None and len(reads) == 1  # read once, on first lookup
    assert dict(starts) == dict(cell_starts(notebook)) and len(reads) == 2


@pytest.mark.parametrize(
    ("language", "parts", "said", "not_said"),
    [
        ("en", 0, "The cell that raised above does not change the mark, but it is worth fixing", "nothing to fix"),
        ("zh", 0, "全部通过。上面出错的单元格不影响成绩，但最好改掉。", "没有需要修改的地方"),
        ("en", 1, "The error above does not change the mark, but it is worth fixing", "The cell"),
        ("zh", 1, "全部通过。上面这个错误不影响成绩，但最好改掉。", "出错的单元格"),
    ],
)
def test_full_marks_with_a_cell_that_raised_do_not_say_nothing_to_fix(language, parts, said, not_said):
    """Issue 48 (round 21): a page showing a raising cell above "nothing to fix" contradicted itself; round 22:
    a .py file (``parts`` 1) has no cells to name."""
    from rich.console import Console

    from autograder.outputs.table import render

    run = RunFacts(status="ok", load_errors=[[3, "NameError: name 'x' is not defined"]], parts=parts)
    spec = get_assignment("weight_tying")
    every = [TestOutcome(f"x.py::{t.name}", t.points, t.area, True) for t in spec.scheme.tests.values()]
    full = rendered(apply_marking(Result(tests=every, run=run, language=language), spec.scheme), spec)
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", feedback_html(full, student="dara", spec=spec)))
    assert said in page and not_said not in page, page
    console = Console(width=200, record=True, color_system=None)
    render(full, console=console)
    assert said in console.export_text() and not_said not in console.export_text()
