"""--nbgrader-course before the assignment was released: a clear error at once, nothing graded or created."""

from __future__ import annotations

from pathlib import Path

from autograder.cli.main import main
from autograder.outputs.gradebook_editions import unreleased


def _course(tmp_path: Path, *, handed_in: dict[str, str]) -> Path:
    course = tmp_path / "course"
    for name in ("weight_tying", "weight_tying_zh", "selftest"):
        (course / "source" / name).mkdir(parents=True)
    for student, edition in handed_in.items():
        folder = course / "submitted" / student / edition
        folder.mkdir(parents=True)
        (folder / f"{edition}.py").write_text("def add(a, b):\n    return a + b\n")
    return course


def _gradebook(course: Path, *assignments: str) -> Path:
    from nbgrader.api import Gradebook

    db = course / "gradebook.db"
    with Gradebook(f"sqlite:///{db}") as gb:
        for name in assignments:
            gb.add_assignment(name)
    return db


def test_grading_an_unreleased_course_stops_before_grading_and_creates_nothing(tmp_path, capsys):
    course = _course(tmp_path, handed_in={"ann": "selftest"})
    out = tmp_path / "graded"
    code = main(["grade", "--assignment", "selftest", "--nbgrader-course", str(course), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert "'selftest' is not released" in err and "nbgrader generate_assignment selftest" in err, err
    assert not (course / "gradebook.db").exists() and not out.exists()


def test_only_the_editions_handed_in_must_be_released(tmp_path):
    course = _course(tmp_path, handed_in={"ann": "weight_tying", "bo": "weight_tying_zh"})
    names, paths = ("weight_tying", "weight_tying_zh"), [course / "submitted"]
    db = course / "gradebook.db"
    assert "'weight_tying', 'weight_tying_zh' are not released" in unreleased(course, db, names, paths)
    _gradebook(course, "weight_tying")
    why = unreleased(course, db, names, paths)
    assert why.startswith("'weight_tying_zh' is not released") and "generate_assignment weight_tying_zh`" in why
    assert unreleased(course, db, names, [course / "submitted" / "ann" / "weight_tying" / "weight_tying.py"]) is None
    _gradebook(course, "weight_tying_zh")
    assert unreleased(course, db, names, paths) is None


def test_an_assignment_without_a_source_needs_no_release_and_gradebook_assignment_is_checked_whole(tmp_path):
    course = _course(tmp_path, handed_in={"ann": "weight_tying"})
    db = _gradebook(course, "weight_tying")
    assert unreleased(course, db, ("practice_only",), None) is None  # the kit makes it in the gradebook
    assert "'selftest' is not released" in unreleased(course, db, ("selftest",), None)
