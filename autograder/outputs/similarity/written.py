"""Trusted: what a student wrote, as text: the code of their hand-in without the cells they were given.

Read with the grader's own reader (``grading.submissions.read_submission``: beneath the folder given, never
through a link, at most 64 MiB, outputs dropped), never run. A notebook's code cells count (markdown is not
code); a ``.py`` counts whole, split at its ``# %%`` / ``# In[ ]:`` cell marks. A cell whose text is one the
release holds (``starter.same_cell``: line endings and trailing spaces aside) is left out whole; what is left
keeps a ``# cell N`` line above each cell, in the report's language (a comment: the comparison never sees it; the
side-by-side page does), and the first of each kind as a value (``Written.places``).
A line that is only a ``print(...)`` call is shown but not compared (``Written.code``): prints after every statement
would otherwise break every run of shared code into pieces shorter than copydetect's k-grams.

What cannot be compared is said, never an error: a refused file (``unreadable``), nothing beyond the starter
code (``empty``; ``nothing of its own`` when what is left is only comments or code set aside as common, which
``detect`` finds); a file with more than ``MAX_WRITTEN`` characters of code is compared on its first ones
(``huge``), and bytes that are not UTF-8 (``non-UTF-8``, shown as U+FFFD) are compared as decoded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading.submissions import SubmissionRefused, holds_code, read_submission
from autograder.outputs.messages_report import report_words
from autograder.outputs.similarity.starter import code_cells, same_cell
from autograder.protocol.said import Said

__all__ = [
    "Written",
    "read_written",
    "MAX_WRITTEN",
    "UNREADABLE",
    "EMPTY",
    "HUGE",
    "NOT_UTF8",
    "COMMON_ONLY",
    "SYNTAX_ERROR",
]

# Characters of code compared: the solution is ~3 K, a long hand-in ~20 K. copydetect's tokenizer takes up to ~20 us a
# character on hostile text (64 K of "a+a+...": 1.3 s), so this bounds what one file can cost the pass.
MAX_WRITTEN = 64 << 10
UNREADABLE, EMPTY, HUGE, NOT_UTF8 = "unreadable", "empty", "huge", "non-UTF-8"
COMMON_ONLY = "nothing of its own"  # all it holds is comments, the starter, the reference or what many share
# the same for a hand-in that did not compile when graded (HandIn.compile_failed): said so, not "nothing of its own"
SYNTAX_ERROR = "syntax error"
# A .py exported from a notebook, or written in cells: "# %%" (VS Code, Spyder, jupytext), "# In[3]:" (nbconvert).
_CELL_MARK = re.compile(r"^# ?(?:%%|In\[[ 0-9]*\]:?)", re.M)
# A line that is one print call whose parentheses close on it (a string holding a bracket aside): a copier's padding.
_PRINT_LINE = re.compile(r"^[ \t]*print\((?:[^()\n]|\([^()\n]*\))*\)[ \t]*;?[ \t]*(?:#[^\n]*)?$", re.M)


@dataclass(frozen=True)
class Written:
    text: str  # the code as written, shown on the side-by-side page ("" when there is none)
    problem: str = ""  # UNREADABLE or EMPTY: not compared
    # for the instructor: why, or what was done (a refusal's reason, a size), as a message's wire form (its words
    # in the report's language: outputs.messages_similarity, or the engine's for a refusal); {} when nothing is said
    detail: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # HUGE, NOT_UTF8: compared, with this said
    places: dict = field(default_factory=dict)  # "cell" or "part" -> the first place line of that kind in `text`

    @property
    def compared(self) -> bool:
        return not self.problem

    @property
    def code(self) -> str:
        """The text compared: ``text`` with each line that is only a ``print(...)`` call made blank, character for
        character (output changes nothing a copier copied; a match still falls where it is in ``text``)."""
        return _PRINT_LINE.sub(lambda line: " " * len(line.group()), self.text)


def _chunks(kind: str, text: str) -> list[tuple[int, str]]:
    if kind == "py":  # each part without its mark line, as the notebook's cell it came from
        marks = [m.start() for m in _CELL_MARK.finditer(text)]
        bounds = [0, *[m for m in marks if m > 0], len(text)]
        parts = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        return [
            (n, _CELL_MARK.sub("", part, count=1).partition("\n")[2] if _CELL_MARK.match(part) else part)
            for n, part in enumerate(parts, start=1)
        ]
    try:
        return [(number, source) for number, source, _ in code_cells(json.loads(text))]
    except ValueError:  # read_submission wrote this JSON itself: not reached
        return []


def read_written(path: Path, *, root: Path | None, released: set[str], language: str = "en") -> Written:
    """What the student wrote in the file at `path` (beneath `root`); `released`: ``same_cell`` forms of every
    released cell, left out; the place lines in `language`."""
    try:
        kind, text = read_submission(path, root=root)
    except SubmissionRefused as exc:
        return Written("", UNREADABLE, Said(exc.key, **exc.params).to_wire())
    except OSError as exc:
        return Written("", UNREADABLE, Said("report.similar.detail.unreadable", error=type(exc).__name__).to_wire())
    parts, marker, places = [], "cell" if kind == "ipynb" else "part", {}
    for number, source in _chunks(kind, text):
        if not holds_code("py", source) or same_cell(source) in released:  # comments alone are nothing written
            continue
        place = report_words(language)[f"similar.place.{marker}"].format(n=number)
        places.setdefault(marker, place)
        parts.append(f"{place}\n{source.rstrip()}\n")
    code = "\n".join(parts)
    if not code:
        return Written("", EMPTY, Said("report.similar.detail.empty").to_wire())
    notes = []
    if len(code) > MAX_WRITTEN:
        notes.append(HUGE)
        detail = Said("report.similar.detail.huge", n=f"{len(code):,}", m=f"{MAX_WRITTEN:,}").to_wire()
        code = code[:MAX_WRITTEN]
    else:
        detail = {}
    if "\ufffd" in code:
        notes.append(NOT_UTF8)
    return Written(code, "", detail, tuple(notes), places)
