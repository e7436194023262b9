"""Trusted: the kit's feedback pages where nbgrader's ``release_feedback`` hands them out.

nbgrader's exchange returns feedback as HTML files: ``nbgrader release_feedback ASSIGNMENT`` copies every
``COURSE/feedback/<student>/<assignment>/<notebook>.html`` to the exchange under a name made from the
notebook's name and the submission's secret (``submission_secret.txt``, which it reads beside the page with
``timestamp.txt``), and the student's ``fetch_feedback`` finds it by the same name. So, with
``--nbgrader-course``, each student whose submission is ``COURSE/submitted/<student>/<assignment>/<nb>.ipynb``
gets the kit's page there as ``<nb>.html``, with the two files copied from the submission, and the course
sends the kit's explanations without running ``nbgrader autograde`` (student code outside the sandbox) or
``generate_feedback``. A submission without a secret was not handed in through the exchange: its page stays
in the output folder only (release_feedback would stop at the missing file).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from autograder.outputs.atomic import write_text
from autograder.outputs.classview import ClassView

__all__ = ["place_feedback", "SIDE_FILES"]

SIDE_FILES = ("timestamp.txt", "submission_secret.txt")  # what release_feedback reads beside each page
_SIDE_BYTES = 4096  # both are one short line


def _side_file(path: Path) -> str | None:
    """The text of a small regular file (not a link), else None."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _SIDE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def place_feedback(view: ClassView, out: Path, course: Path) -> tuple[list[Path], list[str]]:
    """Copy each student's page from `out` into ``course/feedback``; (pages placed, why others were not)."""
    submitted = (Path(course) / "submitted").resolve()
    placed, skipped = [], []
    for row in view.rows:
        page = Path(out) / row.feedback_href
        try:
            parts = Path(row.submission).resolve().relative_to(submitted).parts
        except (OSError, ValueError):
            continue  # not from the course's submitted/ folder: nothing of nbgrader's to place it beside
        if len(parts) != 3 or not parts[2].endswith(".ipynb") or not page.is_file():
            continue
        student, assignment, notebook = parts
        source = submitted / student / assignment
        side = {name: _side_file(source / name) for name in SIDE_FILES}
        if side["submission_secret.txt"] is None or side["timestamp.txt"] is None:
            skipped.append(f"{row.name}: no {' or '.join(n for n, t in side.items() if t is None)} beside the "
                           "submission (not handed in through nbgrader's exchange)")  # fmt: skip
            continue
        dest = Path(course) / "feedback" / student / assignment
        for name, text in side.items():
            write_text(dest / name, text)
        target = dest / (notebook[: -len(".ipynb")] + ".html")
        shutil.copyfile(page, target.with_suffix(".html.tmp"))
        target.with_suffix(".html.tmp").replace(target)
        placed.append(target)
    return placed, skipped
