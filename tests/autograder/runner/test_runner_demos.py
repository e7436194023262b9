"""A graded notebook runs without the course's demonstration cells that nothing in it uses (the self-check's
rule, ``dnnlpy.cells.unneeded_demos``): the plot, the tokenizer and the try-it cell cost every run ~50 ms."""

from __future__ import annotations

import json

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR
from autograder.runner.__main__ import load_submission
from dnnlpy.cells import is_released_demo
from dnnlpy.notebook import code_cells

NOTEBOOK = COURSE_DIR / "source" / "weight_tying" / "weight_tying.ipynb"
REQUIRED = get_assignment("weight_tying").required_names


def _demos(nb) -> list[int]:
    return [i for i, source, metadata in code_cells(nb) if is_released_demo(source, metadata)]


def test_the_solution_notebook_defines_its_classes_without_running_a_demo():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    result = load_submission("ipynb", json.dumps(nb), "weight_tying.ipynb", required=REQUIRED)
    assert result.errors == [] and all(name in result.namespace for name in REQUIRED)
    assert len(_demos(nb)) >= 5 and set(_demos(nb)) <= set(result.skipped)
    assert "tokenizer" not in result.namespace and "plt" not in result.namespace  # their cells did not run
    everything = load_submission("ipynb", json.dumps(nb), "weight_tying.ipynb")  # nothing required: all run
    assert "tokenizer" in everything.namespace and not set(_demos(nb)) & set(everything.skipped)


def test_a_demo_the_students_class_reads_runs_with_what_it_needs():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cell = next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "solution_TiedEmbeddingLM"
    )
    cell["source"] = "".join(cell["source"]).replace(
        "super().__init__()", "super().__init__()\n        self.words = tokenizer.vocab_size", 1
    )
    result = load_submission("ipynb", json.dumps(nb), "weight_tying.ipynb", required=REQUIRED)
    assert result.errors == []
    model = result.namespace["TiedEmbeddingLM"](vocab_size=7, embed_dim=3)
    assert model.words == result.namespace["tokenizer"].vocab_size  # the tokenizer's demo cell ran
