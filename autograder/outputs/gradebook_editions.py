"""Trusted: an assignment's editions in nbgrader's gradebook: each student's scores go into the edition
(nbgrader assignment) they handed in, e.g. ``weight_tying`` or ``weight_tying_zh``.

The editions of one assignment are nbgrader assignments of their own, graded by one grader
(``autograder.graders.editions_of``); one batch grades them all. The writing itself is
``autograder.outputs.gradebook.record_in_gradebook``, once per edition. ``unreleased`` checks before
grading starts that each edition handed in was released (is in the gradebook), so that a forgotten
``nbgrader generate_assignment`` stops the command at once rather than after the whole class is graded.
"""

from __future__ import annotations

from pathlib import Path

from autograder.outputs.gradebook import record_in_gradebook

__all__ = ["record_by_edition", "unreleased"]


def record_by_edition(
    roster: list,
    results: dict,
    gradebook: Path,
    *,
    assignment: str,
    course: Path | None,
    editions: tuple[str, ...],
    late: dict | None = None,
    due=None,
    extensions: dict | None = None,
) -> int:
    """record_in_gradebook for each edition: a student whose file sits in ``<root>/<student>/<edition>/`` (an
    edition in `editions`, as the roster found it) is written there, everyone else into `assignment`; 0 when
    every write succeeded, else 1. The folder names come from the roster only, never from the file's own
    folder: a student's nested ``weight_tying_zh/`` folder or ``timestamp.txt`` changes neither the edition
    nor the submission time (nbgrader's ``<root>/<student>/<edition>/timestamp.txt``). `late` (uid ->
    ``lateness.Late``), `due` (``--due``) and `extensions` (uid -> the kit's extension) go with them."""
    groups: dict[str, list] = {}
    for student in roster:
        groups.setdefault(student.edition if student.edition in editions else assignment, []).append(student)
    status = 0
    for name, students in groups.items():
        status |= record_in_gradebook(
            students, results, gradebook, assignment=name, course=course, late=late, due=due, extensions=extensions
        )
    return status


def unreleased(course: Path, gradebook: Path, names: tuple[str, ...], paths: list[Path] | None) -> str | None:
    """Why grading into `gradebook` must not start: an assignment of `names` that students handed in (a
    ``<student>/<name>/`` folder under `paths`, or a file in a ``<name>/`` folder; every one of `names` when
    `paths` is None) and that nbgrader keeps a source of (``COURSE/source/<name>/``) is not in the gradebook
    yet, i.e. was never released with ``nbgrader generate_assignment``. None when every one is there. Reads
    the gradebook only: creates nothing."""
    import contextlib
    import glob
    import sqlite3

    def handed_in(name: str) -> bool:
        return paths is None or any(
            p.parent.name == name if p.is_file() else (p.name == name or any(p.glob(f"*/{glob.escape(name)}/")))
            for p in paths
        )

    needed = [n for n in names if (course / "source" / n).is_dir() and handed_in(n)]
    if not needed:
        return None
    known: set[str] = set()
    if gradebook.is_file():
        try:
            with contextlib.closing(sqlite3.connect(f"file:{gradebook.resolve()}?mode=ro", uri=True)) as db:
                known = {row[0] for row in db.execute("SELECT name FROM assignment")}
        except sqlite3.Error:  # not nbgrader's (yet): the gradebook's own writer says what is wrong
            return None
    missing = [n for n in needed if n not in known]
    if not missing:
        return None
    run = " && ".join(f"nbgrader generate_assignment {n}" for n in missing)
    return (
        f"{', '.join(map(repr, missing))} {'is' if len(missing) == 1 else 'are'} not released: the course "
        f"{str(course)!r} has the source but its gradebook {str(gradebook)!r} does not know "
        f"{'it' if len(missing) == 1 else 'them'}. Run `{run}` in the course folder first, then grade again "
        "(nothing was graded or written)"
    )
