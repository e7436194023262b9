"""Trusted: which language a submission is written in, read from the file itself.

Never from anything the runner reports: a notebook built by scripts/build_notebook.py says
``metadata.course_kit.language``; a .py file may say ``# language: zh`` on one of its first lines. A file that
says nothing (an unreadable or refused file, a .py file without the line) has no edition to read: its result is
English (``text_language``), and the outputs of a run show it in the run's language instead (``grade --language``,
``Result.read_in``). The result is then rendered in that language (``grading.rendering``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["DEFAULT_LANGUAGE", "declared_language", "submission_language", "text_language"]

DEFAULT_LANGUAGE = "en"
_PY_MARK = re.compile(r"^#\s*language:\s*([A-Za-z-]+)\s*$")
_PY_LINES = 5  # the mark counts only near the top, where a header belongs


def submission_language(path: str | Path) -> str:
    """'en', or the language the file declares (lower case); unreadable or unmarked files are English."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return DEFAULT_LANGUAGE
    return text_language("ipynb" if path.suffix == ".ipynb" else "py", text)


def text_language(kind: str, text: str) -> str:
    """The same, for a submission already read (``kind`` "py" or "ipynb", as submissions.read_submission gives)."""
    return declared_language(kind, text) or DEFAULT_LANGUAGE


def declared_language(kind: str, text: str) -> str | None:
    """The language the text declares (lower case), or None when it declares none: not a notebook, a notebook
    without the kit's metadata, a .py file without a ``# language:`` line near its top."""
    if kind == "ipynb":
        try:
            kit = json.loads(text).get("metadata", {}).get("course_kit", {})
            language = kit.get("language") if isinstance(kit, dict) else None
        except (ValueError, AttributeError, RecursionError):  # not a notebook, or one nested deep: none
            return None
        return language.lower() if isinstance(language, str) and language.strip() else None
    for line in text.splitlines()[:_PY_LINES]:
        match = _PY_MARK.match(line.strip())
        if match:
            return match.group(1).lower()
    return None
