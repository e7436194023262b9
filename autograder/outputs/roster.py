"""Trusted: who is in a batch: one entry per submission, with a name people can read and a unique file id.

A student key (from ``find_submissions``) is whatever the file system gave: it may hold bytes that are not
UTF-8 (as surrogates), brackets, control characters or a full path. Every output needs two safe forms::

    key  "caf\\udce9!"      what grading uses (never written anywhere as is)
    name "caf\\xe9!"        for people: printable, UTF-8, non-UTF-8 bytes shown as \\xNN
    uid  "caf-42e618893f"   for file names: [A-Za-z0-9._-], unique in the batch, even on a
                            case-insensitive disk; a key that is already safe is its own uid ("alice")

A uid depends only on the key (a hash of its bytes when the key is not already safe), so the same student
keeps the same uid from one run to the next; the output folder's manifest records them. nbgrader's own
facts come from the layout ``<root>/<student>/<edition>/...`` (an edition: the assignment or one of its
other-language editions): the student id is the folder name, the edition is the folder below it, and the
submission time is that folder's ``timestamp.txt`` (never one in a subfolder the student made). What else
the student left in that folder (another notebook, a renamed copy) is not graded; the roster says so in
``Student.note`` for the TA. A student who handed in several editions is graded on the one
``grading.handins.choose_edition`` chooses (the later submission, else the assignment's own);
``Student.edition_note`` says which and why.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.handins import choose_edition, holds_work

__all__ = ["Student", "build_roster", "display_name", "file_id"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SAFE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,119}$")
_MAX_ID = 80  # characters before the hash: file names stay far below 255 bytes
# Names Windows refuses as files, whatever the extension (outputs get copied to laptops).
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}


@dataclass(frozen=True)
class Student:
    key: str  # the grading key from find_submissions (may hold surrogates)
    uid: str  # unique, file-safe: results/<uid>.json, feedback/<uid>.html
    name: str  # printable text for pages, CSV and terminal
    path: Path  # the submission file
    nbgrader_id: str | None  # the nbgrader student id, None when it is not valid text for the gradebook
    timestamp_file: Path | None  # <root>/<student>/<edition>/timestamp.txt in nbgrader's layout
    edition: str | None = None  # the nbgrader assignment folder the file sits in (nbgrader's layout only)
    note: str = ""  # what else was in that folder, not graded ("" when nothing)
    edition_note: str = ""  # several editions handed in: which was graded and why ("" when one)
    edition_rule: str = ""  # how: handins.BY_TIME, SAME_TIME or NO_TIME ("" when one edition)

    def matches(self, text: str) -> bool:
        """Whether `text` (from --student) names this student: its key, name, uid or nbgrader id."""
        return text in (self.key, self.name, self.uid, self.nbgrader_id)


def display_name(text: str) -> str:
    """`text` as readable UTF-8: undecodable bytes as \\xNN, control and direction-changing characters escaped."""
    decoded = _bytes(text).decode("utf-8", errors="backslashreplace")
    return "".join(_escape(ch) if _hidden(ch) else ch for ch in decoded)


def _bytes(text: str) -> bytes:
    try:  # undecodable file-name bytes arrive as surrogates (PEP 383): give them back
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:  # a surrogate that was never a byte (e.g. from a student's message)
        return text.encode("utf-8", errors="backslashreplace")


def _hidden(ch: str) -> bool:
    # Control characters move the cursor or end the line; bidi overrides make "alice\u202egnp.py" read as
    # another name. Neither belongs in a name shown to people.
    return (
        unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or "\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069"
    )


def _escape(ch: str) -> str:
    return f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}"


def file_id(key: str) -> str:
    """A file-safe id for `key`: the key itself when it is already safe, else a slug plus a hash of its bytes."""
    slug = _UNSAFE.sub("_", key).strip("._-")[:_MAX_ID] or "student"
    if slug == key and slug.upper().split(".")[0] not in _RESERVED:
        return slug
    digest = hashlib.sha256(_bytes(key)).hexdigest()
    return f"{slug}-{digest[:10]}"


def _nbgrader_parts(path: Path, roots: list[Path], editions: tuple[str, ...]) -> tuple[str, Path] | None:
    """(student folder, edition folder) when `path` sits in <root>/<student>/<edition>/."""
    for root in roots:
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            continue
        if len(parts) >= 3 and parts[1] in editions:
            return parts[0], root / parts[0] / parts[1]
    return None


_SKIP = {".ipynb_checkpoints", "__pycache__", ".git", ".pytest_cache"}
_LISTED = 10  # names in a note before "and N more"


def _folder_note(graded: Path, folder: Path, notebook: str) -> str:
    """What a TA should know about `folder` beyond the file graded: other notebooks and scripts the student
    left there (the release's own files, e.g. the self-check, are not news), or that the assignment's own
    notebook was missing. Bounded: a folder of thousands of files costs a few thousand directory entries."""
    shipped = {folder.parent.parent.parent / where / folder.name for where in ("source", "release")}
    others, pending, seen = [], [folder], 0
    while pending and seen < 5000:
        try:
            entries = sorted(os.scandir(pending.pop()), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            path = Path(entry.path)
            if entry.name.startswith(".") or entry.name in _SKIP:
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(path)
            elif path != graded and path.suffix in (".py", ".ipynb"):
                relative = path.relative_to(folder)
                if not any((release / relative).is_file() for release in shipped):
                    others.append(display_name(str(relative)))
    notes = []
    if graded.name not in (f"{notebook}.ipynb", f"{notebook}.py") or graded.parent != folder:
        notes.append(f"graded {display_name(str(graded.relative_to(folder)))}: no {notebook}.ipynb in the folder")
    if others:
        more = f" and {len(others) - _LISTED} more" if len(others) > _LISTED else ""
        notes.append("also in the folder, not graded: " + ", ".join(sorted(others)[:_LISTED]) + more)
    return "; ".join(notes)


def _valid_id(text: str) -> str | None:
    # The gradebook stores text: an id with undecodable bytes or control characters cannot round-trip
    # to the submitted/ folder nbgrader reads, so it is not written there (the CSV still has the score).
    return text if text and display_name(text) == text else None


def build_roster(
    submissions: dict[str, Path],
    *,
    roots: list[Path],
    assignment: str,
    known: dict[str, str] | None = None,
    editions: tuple[str, ...] = (),
    notebook: str | None = None,
) -> list[Student]:
    """One Student per submission, in key order; `known` maps keys to the uids a previous run recorded.
    `editions`: the assignment's other nbgrader assignments (other languages); `notebook`: the stem of the
    assignment's own notebook (default `assignment`), for the note on what else a folder held."""
    known = known or {}
    folders = [Path(r) for r in roots if Path(r).is_dir()]
    uids: dict[str, str] = {}
    taken: dict[str, str] = {}  # casefolded uid -> key
    # Recorded ids first, then plain lowercase names: "alice" keeps "alice" when "Alice" joins the class.
    for key in sorted(submissions, key=lambda k: (k not in known, k != k.lower(), _bytes(k))):
        uid = known.get(key) or file_id(key)
        if uid.casefold() in taken or not _SAFE_ID.match(uid):  # "Alice" beside "alice", or a bad manifest entry
            uid = _unique(key, taken)
        taken[uid.casefold()] = key
        uids[key] = uid
    students: list[Student] = []
    for key in sorted(submissions, key=_bytes):
        path, uid = Path(submissions[key]), uids[key]
        layout = _nbgrader_parts(path, folders, (assignment, *editions))
        edition, note, edition_note, rule = None, "", "", ""
        if layout is not None:
            nb_student, stamp, edition = layout[0], layout[1] / "timestamp.txt", layout[1].name
            note = _folder_note(path, layout[1], notebook or assignment)
            handed = [e for e in (assignment, *editions) if e == edition or holds_work(layout[1].parent / e)]
            choice = choose_edition(layout[1].parent, handed)
            edition_note, rule = choice.note, choice.rule
        else:  # a flat file ("alice"), or one of a student's notebooks ("alice/part2"); a full path is no id
            nb_student, stamp = ("" if key.startswith(("/", os.sep)) else key.split("/", 1)[0]), None
        students.append(
            Student(
                key=key,
                uid=uid,
                name=display_name(key),
                path=path,
                nbgrader_id=_valid_id(nb_student),
                timestamp_file=stamp,
                edition=edition,
                note=note,
                edition_note=edition_note,
                edition_rule=rule,
            )
        )
    return students


def _unique(key: str, taken: dict[str, str]) -> str:
    digest = hashlib.sha256(_bytes(key)).hexdigest()
    slug = _UNSAFE.sub("_", key).strip("._-")[:_MAX_ID] or "student"
    for size in (10, 16, 64):
        uid = f"{slug}-{digest[:size]}"
        if uid.casefold() not in taken:
            return uid
    raise RuntimeError(f"no unique file id for {display_name(key)!r}: two keys share a SHA-256")  # not in practice
