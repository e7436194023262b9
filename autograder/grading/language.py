"""Trusted: which language a submission is written in, read from the file itself.

Never from anything the runner reports: a notebook built by scripts/build_notebook.py says
``metadata.course_kit.language``; a .py file may say ``# language: zh`` on one of its first lines. Anything
else (an unreadable or refused file too) is English. The result is then rendered in that language
(``grading.rendering``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["DEFAULT_LANGUAGE", "submission_language", "text_language"]

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
    if kind == "ipynb":
        try:
            kit = json.loads(text).get("metadata", {}).get("course_kit", {})
            language = kit.get("language") if isinstance(kit, dict) else None
        except (ValueError, AttributeError, RecursionError):  # not a notebook, or one nested deep: English
            return DEFAULT_LANGUAGE
        return language.lower() if isinstance(language, str) and language.strip() else DEFAULT_LANGUAGE
    for line in text.splitlines()[:_PY_LINES]:
        match = _PY_MARK.match(line.strip())
        if match:
            return match.group(1).lower()
    return DEFAULT_LANGUAGE
