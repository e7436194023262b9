"""A cell is named alike by the self-check and the grader: numbered from 1 (text cells included), with its
section's heading and its first line (JupyterLab shows no numbers), in the student's language; both word it
with ``coursecheck.notebook.name_cell`` over the same templates."""

from __future__ import annotations

import html
import json

import pytest
import torch

from autograder.graders.weight_tying.runner.tools import error_text
from autograder.grading import pipeline
from autograder.grading.catalog import MESSAGES
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.readable import clean_message
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts
from autograder.outputs.feedback import feedback_html
from coursecheck.messages import MESSAGES as SELF_CHECK_WORDS
from coursecheck.notebook import load_notebook

EDITIONS = {"en": "weight_tying", "zh": "weight_tying_zh"}

TRY_IT = "torch.manual_seed(0)\nmodel = MiniGPTWithWeightTying"
TRY_IT_NAME = {
    "en": "cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)",
    "zh": "第 30 个单元格（“10. 动手试试”一节，以“torch.manual_seed(0)”开头）",
}
EXERCISE_1 = {
    "en": "cell 15 (in “6. Exercise 1: TiedEmbeddingLM (31 points)”, starting “class TiedEmbeddingLM(nn.Module):”)",
    "zh": "第 15 个单元格（“6. 练习 1：TiedEmbeddingLM（31 分）”一节，以“class TiedEmbeddingLM(nn.Module):”开头）",
}


def _notebook(tmp_path, language: str, edit) -> object:
    from autograder.graders.kit import COURSE_DIR

    nb = json.loads((COURSE_DIR / "source" / EDITIONS[language] / "weight_tying.ipynb").read_text(encoding="utf-8"))
    edit([c for c in nb["cells"] if c["cell_type"] == "code"])
    path = tmp_path / "weight_tying.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _starting(cells, start: str) -> dict:
    return next(c for c in cells if "".join(c["source"]).startswith(start))


def test_the_grader_and_the_self_check_word_a_cell_with_the_same_templates():
    for form in ("full", "no_heading", "no_first", "bare"):
        assert MESSAGES[f"cell.place.{form}"] == SELF_CHECK_WORDS[f"check.place.{form}"]


@pytest.mark.parametrize("language", list(EDITIONS))
def test_a_cell_that_raised_while_loading_is_named_alike_by_the_self_check_the_page_and_gradescope(
    checks, tmp_path, monkeypatch, language
):
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)

    def edit(cells):
        _starting(cells, TRY_IT)["source"] = "raise ValueError('boom')\n"

    path = _notebook(tmp_path, language, edit)
    loaded = checks.SELF_CHECK.load(path)
    assert loaded.errors == [(29, "ValueError: boom")]
    self_check = checks.tell("check.cell", place=loaded.cell(29), message="ValueError: boom")
    name = TRY_IT_NAME[language].replace("torch.manual_seed(0)", "raise ValueError('boom')")
    assert name in self_check

    submission = pipeline.read(path)
    run = RunFacts(status="ok", load_errors=[[29, "ValueError: boom"]], required_names=["A"], defined=["A"])
    run.cells = pipeline.named_cells(submission, run)
    result = rendered(Result(tests=[], run=run, language=language), None)  # step 8: rendered once, in each language
    assert name in gradescope_results(result)["output"]  # what Gradescope shows
    assert name in html.unescape(feedback_html(result, student="s"))  # the page
    again = Result.from_wire(json.loads(json.dumps(result.to_wire())))  # as results/<id>.json keeps it
    assert name in again.run.summary(language)


@pytest.mark.parametrize("language", list(EDITIONS))
def test_a_raise_inside_a_check_is_at_the_cell_the_grader_numbers(checks, tmp_path, monkeypatch, language):
    """The self-check names the cell (number from 1, section, first line); the grader's message for the same
    traceback (the runner's error_text, cleaned) gives the same number: "cell 24" against "cell 25" no more."""
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)

    def edit(cells):
        cell = _starting(cells, "class TiedEmbeddingLM")
        source = "".join(cell["source"])
        raising = "    def forward(self, input_ids=None, *_):\n        raise ValueError('oops')\n\n"
        cell["source"] = source.replace("    def forward(self, input_ids", raising + "    def _old(self, input_ids", 1)

    path = _notebook(tmp_path, language, edit)
    outcome = checks.SELF_CHECK.load(path).session.outcome("test_tied_forward_returns_logits")
    assert EXERCISE_1[language] in outcome.message, outcome.message
    # issue 48: a cell's number comes with how cells are counted, here as in the list of cells that raised (round 24:
    # on a line of its own, as the grader's terminal says it, not a second bracket after the cell's)
    counted = {"en": "”", "zh": "行"}[language] + "\n  " + checks.tell("check.cells_counted")
    assert counted in outcome.message, outcome.message
    line = next(n for n in (int(w) for w in outcome.message.replace("，", " ").split() if w.isdigit()) if n < 15)

    namespace = load_notebook(path).namespace  # as the runner loads it
    with pytest.raises(ValueError) as raised:
        namespace["TiedEmbeddingLM"](5, 3)(torch.zeros(1, 2, dtype=torch.long))
    assert f"cell 15, line {line}, in forward" in clean_message(error_text(raised.value))


_KERNEL = """
import sys
sys.path.insert(0, {source!r})
from ipykernel.compiler import XCachingCompiler
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
shell.compile = XCachingCompiler()  # a Jupyter kernel's: each cell's file is /tmp/ipykernel_<pid>/<hash>.py
for cell in {cells!r}:
    shell.run_cell(cell, store_history=True)
"""


@pytest.mark.parametrize("language", list(EDITIONS))
def test_a_practice_cells_error_names_the_cell_jupyter_shows_never_ipythons_file(checks, answers, language):
    """Issue 45: a practice cell said "at 2576366449.py, line 19" (the kernel's file for a cell); it names the
    cell by the number Jupyter shows beside it and its first line, and the line in it."""
    import subprocess
    import sys

    from autograder.graders.kit import COURSE_DIR

    solution = answers["solution_TiedEmbeddingLM"]
    raising = "    def forward(self, input_ids=None, *_):\n        raise ValueError('oops')\n\n"
    broken = solution.replace("    def forward(self, input_ids", raising + "    def _old(self, input_ids", 1)
    line = broken.splitlines().index("        raise ValueError('oops')") + 1
    nb = json.loads((COURSE_DIR / "source" / EDITIONS[language] / "weight_tying.ipynb").read_text(encoding="utf-8"))
    imports = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    cells = [
        imports,
        broken,
        'from weight_tying_checks import practice\npractice("exercise 1", TiedEmbeddingLM=TiedEmbeddingLM)',
    ]
    source = str(COURSE_DIR / "source" / EDITIONS[language])
    proc = subprocess.run(
        [sys.executable, "-c", _KERNEL.format(source=source, cells=cells)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "WEIGHT_TYING_LANG": language},
    )
    out = proc.stdout + proc.stderr
    named = {
        "en": f"line {line} of the cell marked [2] (starting “class TiedEmbeddingLM(nn.Module):”)",
        "zh": f"出错的位置：左侧标着 [2] 的单元格（以“class TiedEmbeddingLM(nn.Module):”开头），第 {line} 行",
    }[language]
    assert named in out, out[-3000:]
    assert SELF_CHECK_WORDS["check.raised.note"][language == "zh"] not in out  # Jupyter's [2]: no count to explain
    assert "ipykernel" not in out and ".py, line" not in out and "位于" not in out, out[-3000:]
