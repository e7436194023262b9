"""A graded notebook runs without the course's demonstration cells that nothing in it uses (the self-check's
rule, ``coursecheck.cells.unneeded_demos``): the plot, the tokenizer and the try-it cell cost every run ~50 ms."""

from __future__ import annotations

import json

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR
from autograder.runner.__main__ import _facts, load_submission
from coursecheck.cells import cell_facts, demo_digest, is_released_demo, is_test_cell, unneeded_demos
from coursecheck.notebook import code_cells

NOTEBOOK = COURSE_DIR / "source" / "weight_tying" / "weight_tying.ipynb"
SPEC = get_assignment("weight_tying")
REQUIRED, RELEASED = SPEC.required_names, tuple(SPEC.released_demos)
FACTS = _facts(SPEC.released_facts)  # as the runner reads the job's


def _demos(nb) -> list[int]:
    return [i for i, source, _ in code_cells(nb) if is_released_demo(source, RELEASED)]


def _run(nb, **options):
    return load_submission("ipynb", json.dumps(nb), "weight_tying.ipynb", **options)


def test_the_solution_notebook_defines_its_classes_without_running_a_demo():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    result = _run(nb, required=REQUIRED, released=RELEASED)
    assert result.errors == [] and all(name in result.namespace for name in REQUIRED)
    assert len(_demos(nb)) >= 5 and set(_demos(nb)) <= set(result.skipped)
    assert "tokenizer" not in result.namespace and "plt" not in result.namespace  # their cells did not run
    everything = _run(nb)  # nothing required: all run
    assert "tokenizer" in everything.namespace and not set(_demos(nb)) & set(everything.skipped)
    # the build's record is what decides: without it every demonstration runs
    assert not set(_demos(nb)) & set(_run(nb, required=REQUIRED).skipped)


@pytest.mark.parametrize(
    "reads",
    [
        "tokenizer.vocab_size",  # by its name
        # without naming it, in a form the former list of spellings missed ("import os, gc"): issue 45
        # (the type is asked first: dir() of every object of a test process holding a dask cluster's threads can
        # abort the interpreter)
        "next(o for o in gc.get_objects() if type(o).__name__ == 'Tokenizer' and 'vocab_size' in dir(o)).vocab_size",
    ],
)
@pytest.mark.parametrize("facts", [None, FACTS], ids=["read here", "the build's facts"])
def test_a_demo_the_students_class_reads_runs_with_what_it_needs(reads, facts):
    """A correct student whose class reads what a demonstration made loses nothing to the elision."""
    nb = _reading(reads)
    result = _run(nb, required=REQUIRED, released=RELEASED, facts=facts)
    assert result.errors == []
    model = result.namespace["TiedEmbeddingLM"](vocab_size=7, embed_dim=3)
    assert model.words == result.namespace["tokenizer"].vocab_size  # the tokenizer's demo cell ran


def _reading(reads: str) -> dict:
    """The solution notebook whose first class reads `reads` when built."""
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cell = next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "solution_TiedEmbeddingLM"
    )
    cell["source"] = "import os, gc\n" + "".join(cell["source"]).replace(
        "super().__init__()", f"super().__init__()\n        self.words = {reads}", 1
    )
    return nb


def test_the_builds_facts_leave_out_what_reading_every_cell_leaves_out():
    """The facts the build records of the released cells (released_facts.json) are what reading them gives, and
    with them a run leaves out the very cells it leaves out reading every cell, for notebooks that need a demo
    by name, without naming it, and that need none."""
    for edition in ("weight_tying", "weight_tying_zh"):
        nb = json.loads((COURSE_DIR / "source" / edition / "weight_tying.ipynb").read_text(encoding="utf-8"))
        cells = code_cells(nb)
        for _, source, metadata in cells:
            if not metadata.get("nbgrader", {}).get("solution") and not is_test_cell(metadata):
                assert FACTS[demo_digest(source)] == cell_facts(source)
    variants = [json.loads(NOTEBOOK.read_text(encoding="utf-8")), _reading("tokenizer.vocab_size"), _reading("0")]
    variants.append(_reading("globals()['tokenizer'].vocab_size"))
    for nb in variants:
        cells = code_cells(nb)
        live = unneeded_demos(cells, REQUIRED, RELEASED)
        assert unneeded_demos(cells, REQUIRED, RELEASED, FACTS) == live
    assert unneeded_demos(code_cells(variants[0]), REQUIRED, RELEASED, FACTS)  # something is left out at all
    # a fact is taken as it is: a released cell recorded as reaching names unnamed leaves no demo out
    reaching = {d: (*f[:3], True) for d, f in FACTS.items() if d not in RELEASED}
    assert unneeded_demos(code_cells(variants[0]), REQUIRED, RELEASED, reaching) == set()


def test_both_editions_demos_are_the_ones_the_build_recorded():
    """released_demos.py is the notebooks' own: every demonstration of either edition is in it (a stale record
    would make the grader run them all, and scripts/build_notebook.py --check fails on it)."""
    for edition in ("weight_tying", "weight_tying_zh"):
        nb = json.loads((COURSE_DIR / "source" / edition / "weight_tying.ipynb").read_text(encoding="utf-8"))
        tagged = [i for i, _, metadata in code_cells(nb) if "demo" in metadata.get("tags", [])]
        assert tagged and _demos(nb) == tagged


def test_a_students_cell_tagged_as_a_demo_runs_and_its_failure_is_recorded():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    own = "raise RuntimeError('my own cell')"
    nb["cells"].append(
        {
            "cell_type": "code",
            "metadata": {"tags": ["demo"], "course_kit": {"demo_sha256": demo_digest(own)}},
            "source": own,
            "outputs": [],
            "execution_count": None,
        }
    )
    result = _run(nb, required=REQUIRED, released=RELEASED)
    assert [(i, m.split(":")[0]) for i, m in result.errors] == [(len(nb["cells"]) - 1, "RuntimeError")]
