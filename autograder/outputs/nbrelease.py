"""Trusted: the kit's feedback pages where nbgrader keeps feedback, for ``release_feedback`` or for handing out.

nbgrader keeps each student's feedback as ``COURSE/feedback/<student>/<assignment>/<notebook>.html``
(``generate_feedback`` writes it there). Its exchange hands it out: ``nbgrader release_feedback ASSIGNMENT``
copies each page under a name made from the notebook's name and the submission's secret
(``submission_secret.txt``, read beside the page with ``timestamp.txt``), and the student's ``fetch_feedback``
finds it by the same name. So, with ``--nbgrader-course``, each student of ``COURSE/submitted/<student>/
<assignment>/<nb>.ipynb`` gets the kit's page there as ``<nb>.html``, with those two files copied from the
submission, and the course sends the kit's explanations without running ``nbgrader autograde`` (student code
outside the sandbox) or ``generate_feedback``.

A course without the exchange (``nbgrader zip_collect``, or folders made by hand) has no secrets: its pages are
placed all the same, for the instructor to hand out (``release_feedback`` cannot send them, and says so by
stopping at the first missing secret). In a class where some submissions came through the exchange and some did
not, only those with a secret are placed, so that ``release_feedback`` still works for them; the others keep
their page in the output folder. ``Placement`` says which, for one line of the command's output, not one per
student.

Where a page goes comes from the roster (the student's nbgrader id and edition, as the folders are named),
never from where a link points: a hand-in that is a link to a classmate's notebook cannot put its page in the
classmate's folder, and a student folder or edition folder that is itself a link gets no page.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from autograder.outputs.atomic import write_text
from autograder.outputs.classview import ClassView, Row

__all__ = ["place_feedback", "place_for_release", "Placement", "SIDE_FILES"]

SIDE_FILES = ("timestamp.txt", "submission_secret.txt")  # what release_feedback reads beside each page
SECRET = "submission_secret.txt"
_SIDE_BYTES = 4096  # both are one short line


@dataclass
class Placement:
    """What ``place_feedback`` did."""

    released: list[Path] = field(default_factory=list)  # pages release_feedback can send (a secret beside them)
    by_hand: list[Path] = field(default_factory=list)  # pages placed without a secret: no exchange in this course
    outside: list[str] = field(default_factory=list)  # students handed in outside the exchange, page not placed
    refused: list[str] = field(default_factory=list)  # "<student>: why" (a folder that is a link, ...)
    how: dict[str, str] = field(default_factory=dict)  # uid -> "exchange" or "by hand", for each page placed


def _side_file(path: Path) -> str | None:
    """The text of a small regular file (not a link), else None."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _SIDE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _own_folder(row: Row, submitted: Path) -> Path | str:
    """``submitted/<student>/<edition>`` for the row, as the roster names it, or why there is none to use."""
    if not row.nbgrader_id or not row.edition:
        return ""  # not from nbgrader's layout: nothing of nbgrader's to place it beside
    student = submitted / row.nbgrader_id
    folder = student / row.edition
    if student.is_symlink() or folder.is_symlink() or not folder.is_dir():
        return f"{row.name}: {row.nbgrader_id}/{row.edition} is a link or not a folder in submitted/: no page placed"
    return folder


def place_feedback(view: ClassView, out: Path, course: Path) -> Placement:
    """Copy each student's page from `out` into ``course/feedback`` (see the module's docstring)."""
    submitted = Path(course) / "submitted"
    done = Placement()
    found: list[tuple[Row, Path, dict[str, str | None]]] = []
    for row in view.rows:
        page, notebook = Path(out) / row.feedback_href, Path(row.submission).name
        folder = _own_folder(row, submitted)
        if isinstance(folder, str):
            if folder:
                done.refused.append(folder)
            continue
        if not notebook.endswith(".ipynb") or not page.is_file():
            continue
        found.append((row, page, {name: _side_file(folder / name) for name in SIDE_FILES}))
    exchange = any(side[SECRET] is not None for *_, side in found)
    for row, page, side in found:
        if exchange and (side[SECRET] is None or side["timestamp.txt"] is None):
            done.outside.append(row.name)  # release_feedback would stop at its missing file, for everyone
            continue
        dest = Path(course) / "feedback" / row.nbgrader_id / row.edition
        for name, text in side.items():
            if text is not None:
                write_text(dest / name, text)
        target = dest / (Path(row.submission).stem + ".html")
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, target.with_suffix(".html.tmp"))
        target.with_suffix(".html.tmp").replace(target)
        (done.released if exchange else done.by_hand).append(target)
        done.how[row.uid] = "exchange" if exchange else "by hand"
    return done


def place_for_release(out: Path, course: Path, entries: list[dict]) -> Placement:
    """``place_feedback`` for the class in `out`, and each page placed remembered in its manifest entry (what it
    shows: ``regrades.placed_record``), so that a later run that changes it lists it as stale."""
    from autograder.outputs.classview import load_class
    from autograder.outputs.regrades import placed_record

    placement = place_feedback(load_class(out), out, course)
    for entry in entries:
        how = placement.how.get(entry["uid"])
        if how and (record := placed_record(entry, how)) is not None:
            entry["placed"] = record
    return placement
