"""The starter code: each edition's released cells, with solution regions stubbed exactly as nbgrader stubs them;
a missing release is said, with the fix, never an error; the code alike by nature is the reference and the corpus."""

from __future__ import annotations

import copy
import json
import shutil

import nbformat
from nbgrader.preprocessors import ClearSolutions

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR
from autograder.outputs.similarity.starter import CODE_STUB, cleared, code_cells, expected_code, released_cells

EDITIONS = ("weight_tying", "weight_tying_zh")


def test_solution_regions_are_stubbed_as_nbgraders_clear_solutions_does():
    for edition in EDITIONS:
        source = nbformat.read(COURSE_DIR / "source" / edition / "weight_tying.ipynb", as_version=4)
        theirs, _ = ClearSolutions().preprocess(copy.deepcopy(source), {})
        ours = [cleared(c.source, solution=bool(c.metadata.get("nbgrader", {}).get("solution"))) for c in source.cells]
        assert ours == [c.source for c in theirs.cells]
        stubs = [
            t.count(CODE_STUB.split("\n")[0]) for t, c in zip(ours, source.cells, strict=True) if c.cell_type == "code"
        ]
        assert sum(stubs) == 6  # the six methods a student writes


def test_a_solution_cell_without_a_region_is_the_stub_whole():
    assert cleared("x = 1\n", solution=True) == CODE_STUB
    assert cleared("x = 1\n", solution=False) == "x = 1\n"


def test_both_editions_are_read_and_their_cells_differ_only_in_words():
    starter = released_cells(EDITIONS, "weight_tying", [COURSE_DIR])
    assert starter.problems == [] and [p.parent.name for p in starter.found] == list(EDITIONS)
    english = [t for _, t, _ in code_cells(json.loads(starter.found[0].read_text(encoding="utf-8")))]
    assert len(starter.cells) > len(set(english))  # the Chinese edition prints its own words: cells of its own
    assert any("YOUR CODE HERE" in cell for cell in starter.cells)


def test_a_release_nbgrader_wrote_is_read_as_it_is(tmp_path):
    course = tmp_path / "course"
    (course / "release" / "weight_tying").mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('as released')")])
    nbformat.write(nb, course / "release" / "weight_tying" / "weight_tying.ipynb")
    starter = released_cells(EDITIONS, "weight_tying", [course, COURSE_DIR])
    assert "print('as released')" in starter.cells
    assert [p.parent.parent.name for p in starter.found] == ["release", "source"]  # zh from the kit's own course


def test_a_missing_release_is_said_with_the_fix(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(COURSE_DIR / "source" / "weight_tying", course / "source" / "weight_tying")
    starter = released_cells(EDITIONS, "weight_tying", [course])
    assert len(starter.problems) == 1
    assert "weight_tying_zh" in starter.problems[0] and "build_notebook.py" in starter.problems[0]


def test_the_code_alike_by_nature_is_the_reference_and_the_corpus():
    spec = get_assignment("weight_tying")
    texts = expected_code(spec)
    assert texts[0] == spec.solution_path.read_text(encoding="utf-8")
    assert len(texts) > 70 and all("class MiniGPTWithWeightTying" in t or "TiedEmbeddingLM" in t for t in texts)


def test_the_course_whose_submitted_folder_is_read_gives_its_release(tmp_path, corpus, hand_ins_of):
    """A course released with a cell of its own: that cell, handed in unchanged, is starter code, not a match."""
    from autograder.outputs.similarity.detect import run_similarity

    course = tmp_path / "course"
    (course / "release" / "weight_tying").mkdir(parents=True)
    extra = "def helper_given_to_everyone(model):\n" + "".join(
        f"    model.layer{i} = {i} * model.width\n" for i in range(9)
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(extra)])
    nbformat.write(nb, course / "release" / "weight_tying" / "weight_tying.ipynb")
    for student in ("ann", "ben"):
        folder = course / "submitted" / student / "weight_tying"
        folder.mkdir(parents=True)
        mine = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell(extra), nbformat.v4.new_code_cell(f"{student} = 1")]
        )
        nbformat.write(mine, folder / "weight_tying.ipynb")
    outcome = run_similarity("weight_tying", tmp_path / "out", hand_ins_of(course / "submitted"))
    assert outcome.pairs == [] and {e["name"] for e in outcome.not_compared} == {"ann", "ben"}
