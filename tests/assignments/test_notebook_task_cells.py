"""The source notebooks carry the gradebook's task cells: one per graded area of the hidden suite, with the
suite's points and the grade_ids autograder.outputs.gradebook looks for (one point system with nbgrader)."""

from __future__ import annotations

import nbformat
import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR
from autograder.outputs.gradebook import kit_cells

SOURCES = {"en": COURSE_DIR / "source" / "weight_tying", "zh": COURSE_DIR / "source" / "weight_tying_zh"}
# What the outputs engineer's gradebook expects today (the brief's list); the suite markers must agree.
EXPECTED = {
    "autograder_parameter_identity": 24,
    "autograder_shape_flow": 26,
    "autograder_parameter_counts": 16,
    "autograder_gradient_accumulation": 16,
    "autograder_argmax_generation": 18,
}


def _suite_areas() -> dict[str, float]:
    """area -> points of the hidden suite, from the marking scheme the suite's runner reads them from
    (tests/autograder/grading/test_marking.py checks that the suite is the scheme)."""
    scheme = get_assignment("weight_tying").scheme
    areas: dict[str, float] = {}
    for test in scheme.tests.values():
        areas[test.area] = areas.get(test.area, 0.0) + test.points
    return areas


def _task_cells(language: str) -> dict[str, dict]:
    notebook = nbformat.read(SOURCES[language] / "weight_tying.ipynb", as_version=4)
    cells = {}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("task"):
            assert cell.cell_type == "markdown", meta
            cells[meta["grade_id"]] = meta
    return cells


def test_the_scheme_gives_the_areas_the_gradebook_expects():
    areas = _suite_areas()
    assert {c.grade_id: c.points for c in kit_cells(areas)} == EXPECTED
    assert sum(areas.values()) == 100


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_each_edition_has_one_task_cell_per_graded_area_with_the_suites_points(language):
    cells = _task_cells(language)
    expected = {c.grade_id: c.metadata() for c in kit_cells(_suite_areas())}
    assert sorted(cells) == sorted(expected)
    for grade_id, meta in cells.items():
        want = expected[grade_id]
        assert meta == {**want, "points": meta["points"]}  # every flag exactly as the gradebook writes it
        assert float(meta["points"]) == want["points"], grade_id
        assert meta["task"] is True and meta["grade"] is False and meta["locked"] is True


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_nbgraders_own_points_are_the_suites_and_nothing_more(language):
    """nbgrader's max for the notebook = task cells (the suite's 100) + grade cells (practice checks, 0)."""
    notebook = nbformat.read(SOURCES[language] / "weight_tying.ipynb", as_version=4)
    metas = [c.metadata["nbgrader"] for c in notebook.cells if "nbgrader" in c.metadata]
    graded = [m for m in metas if m.get("grade") or m.get("task")]
    assert [m["points"] for m in graded if m.get("grade")] == [0] * sum(1 for m in graded if m.get("grade"))
    assert sum(float(m["points"]) for m in graded) == sum(_suite_areas().values())
