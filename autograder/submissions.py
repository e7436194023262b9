"""Trusted: find the submissions to grade and read one, without running any of it.

``find_submissions`` understands nbgrader's ``submitted/<student>/<assignment>/*.ipynb`` layout, a flat
folder of ``.py``/``.ipynb`` files, or any mix (the student id is the first folder under the root, else the
file's name). ``read_submission`` returns a file's text for the runner: a notebook keeps only its cells'
sources and metadata, never its outputs.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["find_submissions", "read_submission", "SubmissionTooLarge", "MAX_SUBMISSION_BYTES"]

MAX_SUBMISSION_BYTES = 64 << 20  # a notebook with its outputs cleared is far smaller
_SKIP_PARTS = {".ipynb_checkpoints", "__pycache__", ".git"}


class SubmissionTooLarge(ValueError):
    """The file is over MAX_SUBMISSION_BYTES: it is graded as an empty submission, with this message."""


def read_submission(path: Path) -> tuple[str, str]:
    """(kind, text) of a .py or .ipynb file; a notebook keeps only its cells' sources and metadata."""
    path = Path(path)
    if path.suffix not in (".py", ".ipynb"):
        raise ValueError(f"{str(path)!r} is neither a .py nor an .ipynb file: pass the student's notebook or script")
    if not path.is_file():
        raise FileNotFoundError(f"no submission file at {str(path)!r}")
    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise SubmissionTooLarge(
            f"{path.name} is {size / 2**20:.0f} MiB, over the {MAX_SUBMISSION_BYTES >> 20} MiB limit: clear the "
            "notebook's outputs (Edit > Clear Outputs of All Cells), save, and hand it in again"
        )
    text = path.read_text(encoding="utf-8", errors="replace")
    return path.suffix[1:], (_without_outputs(text) if path.suffix == ".ipynb" else text)


def _without_outputs(text: str) -> str:
    # Outputs (plots, long logs) are never part of a submission; dropping them keeps the job small.
    # Text that is not a notebook goes through unchanged, for the runner to report.
    try:
        nb = json.loads(text)
        cells = [{key: cell[key] for key in ("cell_type", "source", "metadata") if key in cell} for cell in nb["cells"]]
    except (ValueError, KeyError, TypeError):
        return text
    return json.dumps(
        {
            "cells": cells,
            "metadata": {},
            "nbformat": nb.get("nbformat", 4),
            "nbformat_minor": nb.get("nbformat_minor", 5),
        }
    )


def find_submissions(paths: list[Path], *, assignment: str, also: tuple[str, ...] = ()) -> dict[str, Path]:
    """student id -> submission file, for files and folders given on the command line.

    `also`: other nbgrader assignments graded by the same grader (the assignment's editions in other
    languages): their folders count too, so one batch grades the whole class; a student who handed in
    several editions is graded on `assignment`'s.
    """
    folders = (assignment, *also)
    found: dict[str, Path] = {}
    for root in map(Path, paths):
        if root.is_file():
            _add(found, root.stem, root)
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"{str(root)!r} is neither a submission file nor a folder of submissions")
        files = sorted(
            p
            for p in root.rglob("*")
            if p.suffix in (".py", ".ipynb")
            and p.is_file()
            and not _SKIP_PARTS & set(p.relative_to(root).parts)
            and not p.name.startswith(".")
        )
        # nbgrader layout (<student>/<assignment>/<file>): other assignments' folders are not this one's work.
        if any(len(p.relative_to(root).parts) >= 3 and p.relative_to(root).parts[1] in folders for p in files):
            files = [p for p in files if len(p.relative_to(root).parts) < 3 or p.relative_to(root).parts[1] in folders]
        per_student: dict[str, list[Path]] = {}
        for path in files:
            parts = path.relative_to(root).parts
            per_student.setdefault(parts[0] if len(parts) > 1 else path.stem, []).append(path)
        for student, group in per_student.items():
            if len(group) == 1:
                _add(found, student, group[0])
                continue
            # nbgrader layout: prefer the files inside <student>/<assignment>/ (then an edition's), notebooks first.
            inside = group
            for name in reversed(folders):
                inside = [p for p in group if name in p.relative_to(root).parts[1:-1]] or inside
            notebooks = [p for p in inside if p.suffix == ".ipynb"] or inside
            for path in notebooks:
                key = student if len(notebooks) == 1 else f"{student}/{path.stem}"
                _add(found, key, path)
    return found


def _add(found: dict[str, Path], key: str, path: Path) -> None:
    if key in found and found[key] != path:
        key = str(path.with_suffix(""))
    found[key] = path
