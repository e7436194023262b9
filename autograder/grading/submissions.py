"""Trusted: find the submissions to grade and read one, without running any of it, whatever the files hold.

``find_submissions`` understands nbgrader's ``submitted/<student>/<assignment>/*.ipynb`` layout, a flat
folder of ``.py``/``.ipynb`` files, or any mix (the student id is the first folder under the root, else the
file's name). Links and special files are listed too, so that their student gets a result saying why the
file was not graded, rather than no result at all.

``read_submission`` returns a file's text for the runner: a notebook keeps only its cells' sources and
metadata, never its outputs. Anything that makes a file ungradable raises ``SubmissionRefused`` (graded as
an empty submission, with the message): a link or a file outside the folder given (see ``safe_files``),
over ``MAX_SUBMISSION_BYTES``, a notebook that is not JSON, nested over ``MAX_JSON_DEPTH`` or holding over
``MAX_JSON_VALUES`` values. Text is decoded as Python and Jupyter do (BOM, PEP 263 coding line for a .py,
UTF-16/32 with a BOM); undecodable bytes become U+FFFD.
"""

from __future__ import annotations

import codecs
import errno
import io
import json
import os
import re
import tokenize
from pathlib import Path

from autograder.grading.catalog import CatalogError
from autograder.grading.handins import choose_edition
from autograder.grading.safe_files import NotBeneath, read_beneath

__all__ = [
    "find_submissions",
    "read_submission",
    "text_of_name",
    "holds_code",
    "py_parts",
    "submission_root",
    "SubmissionRefused",
    "SubmissionTooLarge",
    "MAX_SUBMISSION_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_VALUES",
]

MAX_SUBMISSION_BYTES = 64 << 20  # a notebook with its outputs cleared is far smaller
MAX_JSON_DEPTH = 100  # of the cells kept (source, metadata); nbformat nests them ~5 deep
MAX_JSON_VALUES = 2_000_000  # parsed values (a 64 MiB notebook of "[]," would be ~1 GB of Python lists)
_SKIP_PARTS = {".ipynb_checkpoints", "__pycache__", ".git"}
_SUFFIXES = (".py", ".ipynb")
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"))
_BOMS += ((codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))  # after UTF-32: same first bytes
# A JSON string, or an unterminated one up to the end: a match never fails once started, so the scan is
# linear; possessive quantifiers keep no backtracking state (64 MiB of escapes: 2 s and no memory, not 2.6 GB).
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)


class SubmissionRefused(CatalogError):
    """The file is not run: it is graded as an empty submission, with this message saying why and the fix (an
    engine catalog id and its parameters, rendered in the student's language where it is shown)."""


class SubmissionTooLarge(SubmissionRefused):
    """The file is over MAX_SUBMISSION_BYTES."""


class SubmissionMissing(SubmissionRefused, FileNotFoundError):
    """No file at that path (it may have been removed after the folder was listed)."""


def submission_root(path: str | Path, roots: tuple[str | Path, ...]) -> Path | None:
    """The folder given on the command line that holds `path` (the deepest one), or None."""
    path = os.path.abspath(path)
    holding = [os.path.abspath(r) for r in roots if path.startswith(os.path.join(os.path.abspath(r), ""))]
    return Path(max(holding, key=len)) if holding else None


def read_submission(path: Path, *, root: str | Path | None = None) -> tuple[str, str]:
    """(kind, text) of a .py or .ipynb file under `root` (default: its own folder), never through a link."""
    path = Path(path)
    try:
        data = read_beneath(path, root, MAX_SUBMISSION_BYTES)
    except NotBeneath as exc:
        raise SubmissionRefused(exc.key, **{k: text_of_name(str(v)) for k, v in exc.params.items()}) from None
    except FileNotFoundError:
        raise SubmissionMissing("input.missing", path=repr(text_of_name(str(path)))) from None
    except OSError as exc:
        if exc.errno == errno.EFBIG:  # over the bound: refused unread
            raise SubmissionTooLarge(
                "input.too_large", name=text_of_name(path.name), limit=MAX_SUBMISSION_BYTES >> 20
            ) from None
        raise SubmissionRefused("input.unreadable", name=text_of_name(path.name), why=str(exc.strerror)) from None
    name = text_of_name(path.name)
    if path.suffix not in _SUFFIXES:
        raise SubmissionRefused("input.not_py_or_ipynb", name=repr(text_of_name(str(path))))
    if len(data) > MAX_SUBMISSION_BYTES:
        raise SubmissionTooLarge("input.too_large", name=name, limit=MAX_SUBMISSION_BYTES >> 20)
    if path.suffix == ".py":
        return "py", _python_text(data)
    return "ipynb", _without_outputs(_notebook(name, _bom_text(data)))


def _bom_text(data: bytes) -> str:
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8")
    return data.decode(encoding, "replace").lstrip("\ufeff")


def _python_text(data: bytes) -> str:
    """Decoded as Python would: a BOM, else the PEP 263 coding line, else UTF-8; bad bytes become U+FFFD."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _bom_text(data)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding, "replace").lstrip("\ufeff")
    except (SyntaxError, LookupError):  # an unknown or lying coding line: the runner will report the text
        return data.decode("utf-8", "replace").lstrip("\ufeff")


def _notebook(name: str, text: str) -> dict:
    """The parsed notebook, outputs dropped; SubmissionRefused if it is not one, or too deep or too big."""
    # Commas and brackets bound the number of values json.loads would build; strings may hold some, so
    # only a file over the bound pays for the exact count (strings removed first).
    if _values(text) > MAX_JSON_VALUES and _values(_JSON_STRING.sub("", text)) > MAX_JSON_VALUES:
        raise SubmissionRefused("input.too_many_values", name=name, n=MAX_JSON_VALUES)
    try:
        nb = json.loads(text)  # C parser: a file nested ~1000 deep stops it with RecursionError, cheaply
    except RecursionError:
        raise SubmissionRefused("input.nested_too_deeply", name=name) from None
    except ValueError as exc:
        raise SubmissionRefused("input.not_json", name=name, why=str(exc)[:120]) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise SubmissionRefused("input.no_cells", name=name)
    keep = ("cell_type", "source", "metadata")
    nb["cells"] = [{k: c[k] for k in keep if k in c} if isinstance(c, dict) else c for c in nb["cells"]]
    if _depth(nb["cells"]) > MAX_JSON_DEPTH:
        raise SubmissionRefused("input.cells_nested", name=name, n=MAX_JSON_DEPTH)
    return nb


def _values(text: str) -> int:
    return text.count(",") + text.count("[") + text.count("{")


def _depth(value: object) -> int:
    """How deep lists and dicts nest in `value` (iterative: no recursion limit to hit)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
            children = item.values() if isinstance(item, dict) else item
            pending += [(child, depth + 1) for child in children if isinstance(child, (list, dict))]
    return deepest


def _without_outputs(nb: dict) -> str:
    # Outputs (plots, long logs) are never part of a submission (_notebook dropped them): the job stays
    # small. A malformed cell goes through as it is, for the runner to report.
    version, minor = nb.get("nbformat", 4), nb.get("nbformat_minor", 5)
    return json.dumps(
        {
            "cells": nb["cells"],
            "metadata": _edition(nb.get("metadata")),
            "nbformat": version if type(version) is int else 4,
            "nbformat_minor": minor if type(minor) is int else 5,
        }
    )


def _edition(metadata: object) -> dict:
    # The one piece of metadata kept: the edition's language, which the trusted side reads for the feedback.
    kit = metadata.get("course_kit") if isinstance(metadata, dict) else None
    language = kit.get("language") if isinstance(kit, dict) else None
    return {"course_kit": {"language": language[:16]}} if isinstance(language, str) else {}


def find_submissions(
    paths: list[Path], *, assignment: str, also: tuple[str, ...] = (), notebook: str | None = None
) -> dict[str, Path]:
    """student id -> submission file, for files and folders given on the command line.

    `also`: other nbgrader assignments graded by the same grader (the assignment's editions in other
    languages): their folders count too, so one batch grades the whole class; a student who handed in
    several editions is graded on one, by ``handins.choose_edition``'s rule (the later submission by nbgrader's
    timestamp, else `assignment`'s). In nbgrader's layout a student has **one** submission,
    as in nbgrader: the assignment's own notebook ``<notebook>.ipynb`` (default: `assignment`; a ``.py`` of
    that name next), else the one ``_own_file`` prefers (a notebook first); other files in the folder are never
    graded (``outputs.roster`` lists them for the TA). Outside that layout, each of a student's notebooks is
    a submission of its own (``alice/part1``, ``alice/part2``).
    """
    folders = (assignment, *also)
    stem = notebook or assignment
    found: dict[str, Path] = {}
    for root in map(Path, paths):
        if root.is_file():
            _add(found, root.stem, root)
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"{str(root)!r} is neither a submission file nor a folder of submissions")
        files = _candidates(root)
        # nbgrader layout (<student>/<assignment>/<file>): other assignments' folders are not this one's work.
        if any(len(p.relative_to(root).parts) >= 3 and p.relative_to(root).parts[1] in folders for p in files):
            files = [p for p in files if len(p.relative_to(root).parts) < 3 or p.relative_to(root).parts[1] in folders]
        per_student: dict[str, list[Path]] = {}
        for path in files:
            parts = path.relative_to(root).parts
            per_student.setdefault(parts[0] if len(parts) > 1 else path.stem, []).append(path)
        for student, group in per_student.items():
            own = _own_file(group, root, folders, stem)
            if own is not None or len(group) == 1:
                _add(found, student, own or group[0])
                continue
            notebooks = [p for p in group if p.suffix == ".ipynb"] or group
            for path in notebooks:
                key = student if len(notebooks) == 1 else f"{student}/{path.stem}"
                _add(found, key, path)
    return found


def _own_file(group: list[Path], root: Path, folders: tuple[str, ...], stem: str) -> Path | None:
    """The one file nbgrader would grade among a student's files in <student>/<edition>/ (None: not that
    layout). Of the editions in `folders` the student handed in, the one ``handins.choose_edition`` chooses
    counts; in it, ``<stem>.ipynb``, then ``<stem>.py``, then a file of that name deeper down, then any
    notebook (the release ships .py files too: its self-check), shallowest first, then by name."""
    by_edition: dict[str, list[Path]] = {}
    for path in group:
        parts = path.relative_to(root).parts
        if len(parts) >= 3 and parts[1] in folders:
            by_edition.setdefault(parts[1], []).append(path)
    if not by_edition:
        return None
    student = root / group[0].relative_to(root).parts[0]
    edition = choose_edition(student, [e for e in folders if e in by_edition]).graded
    return min(by_edition[edition], key=lambda p: _preference(p.relative_to(root).parts[2:], stem))


def _preference(rest: tuple[str, ...], stem: str) -> tuple:
    named = rest[-1] in (f"{stem}.ipynb", f"{stem}.py")
    return (not (named and len(rest) == 1), not named, not rest[-1].endswith(".ipynb"), len(rest), rest)


def _candidates(root: Path) -> list[Path]:
    """Every .py/.ipynb entry under root, whatever its type, plus every link to a folder (never followed):
    a student whose hand-in is a link gets a refusal with its reason instead of no result. Iterative, so a
    folder nested thousands deep (an archive can hold one) costs no recursion."""
    found, pending = [], [str(root)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:  # vanished or unreadable: nothing to list there
            continue
        for entry in entries:
            name, hidden = entry.name, entry.name.startswith(".")
            if entry.is_symlink():
                if not hidden and (name.endswith(_SUFFIXES) or entry.is_dir()):
                    found.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                if name not in _SKIP_PARTS:
                    pending.append(entry.path)
            elif name.endswith(_SUFFIXES) and not hidden:
                found.append(Path(entry.path))
    return sorted(found)


def _add(found: dict[str, Path], key: str, path: Path) -> None:
    if key in found and found[key] != path:
        key = str(path.with_suffix(""))
    found[text_of_name(key)] = path


def text_of_name(name: str) -> str:
    """A file name as text any output can encode: undecodable bytes (os.fsdecode keeps them as lone
    surrogates, which no CSV, JSON file or page could write) become ``\\xNN``, as the roster shows them, so
    that two names differing only in such a byte stay two students."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def holds_code(kind: str, source: str) -> bool:
    """Whether a hand-in read by ``read_submission`` holds any code: a line of a code cell (or of a .py file) that
    is neither blank nor a comment. A file with none is blank, whatever else it says (markdown, a header comment)."""
    if kind == "ipynb":
        try:
            cells = json.loads(source).get("cells", [])
        except (ValueError, AttributeError, RecursionError):
            return bool(source.strip())
        code = [c.get("source", "") for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
        source = "\n".join("".join(s) if isinstance(s, list) else str(s) for s in code)
    return any(line.strip() and not line.lstrip().startswith("#") for line in source.splitlines())


_PY_PART = re.compile(r"^# %%")  # a .py file's part starts at such a line (coursecheck.notebook.exec_source)


def py_parts(source: str) -> int:
    """How many parts a .py hand-in runs as: ``# %%`` lines split it, as ``coursecheck.notebook.exec_source``
    does (a mark on the first line starts no new part)."""
    return 1 + sum(1 for n, line in enumerate(source.splitlines()) if n and _PY_PART.match(line))
