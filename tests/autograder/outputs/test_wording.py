"""The words on the pages: readable test names, messages cleaned (not rewritten), the run in sentences."""

from __future__ import annotations

import json

from autograder.graders import get_assignment
from autograder.grading.result import Result, RunFacts
from autograder.outputs.wording import (
    cell_starts,
    clean_message,
    readable_test,
    run_lines,
    stopped_at,
)

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


def test_the_run_is_told_in_sentences_with_the_cells_that_raised(tmp_path):
    notebook = tmp_path / "nb.ipynb"
    cells = [{"cell_type": "markdown", "source": "# Title", "metadata": {}}]
    cells += [{"cell_type": "code", "source": ["\n", "model = TiedEmbeddingLM(4, 2)\n"], "metadata": {}}]
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    run = RunFacts(status="ok", load_errors=[[1, "NotImplementedError: "]], required_names=["A", "B"], defined=["A"])
    lines = run_lines(Result(tests=[], run=run), starts=cell_starts(notebook))
    assert lines[0] == "Your code ran to the end, but 1 of its cells did not finish normally:"
    assert lines[1].startswith(
        "cell 2 (in “Title”, starting “model = TiedEmbeddingLM(4, 2)”) raised NotImplementedError: it uses"
    )
    assert "  " not in lines[1] and "cell/part" not in " ".join(lines)
    assert lines[2] == "Not defined by your submission: B (check the exact class names)."  # the summary's words
    py = run_lines(Result(tests=[], run=RunFacts(status="ok", load_errors=[[0, "ValueError: x"]])), kind="py")
    assert py[1] == "part 1 raised ValueError: x"
    assert "grader could not grade" in run_lines(Result.grader_failure("boom"))[0]
    assert cell_starts(tmp_path / "missing.ipynb") == {} and cell_starts(None) == {}


def test_a_run_stopped_in_a_check_names_it_by_its_title_in_the_students_language():
    spec = get_assignment("weight_tying")
    run = RunFacts(status="timeout", limit=60, running={"check": "gpt_generate"}, required_names=["A"])
    assert stopped_at(run, spec=spec) == (
        "while the grader was calling your code for the check 'MiniGPTWithWeightTying.generate'"
    )
    assert (
        stopped_at(run, spec=spec, language="zh")
        == "：当时评分程序正在为检查“MiniGPTWithWeightTying.generate 的生成”调用你的代码"
    )
    assert "gpt_generate" in stopped_at(run)  # no grader to ask: the runner's word as it came
    forged = RunFacts(status="timeout", limit=60, running={"check": "page.score"}, required_names=["A"])
    assert "page.score" in stopped_at(forged, spec=spec, language="zh")  # never read as an id
    result = Result(tests=[], run=run)
    assert "the check 'MiniGPTWithWeightTying.generate'" in " ".join(run_lines(result, spec=spec))


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
