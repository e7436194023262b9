"""Trusted: a failure message made ready to read, wherever it is shown (Gradescope JSON, pages, terminal).

Student text and the suite's words arrive with escape sequences, repeated phrases, 0-based cell references
("weight_tying.ipynb [cell 3]:2") and bare exception names followed by stray spaces; ``clean_message``
fixes all of them and is idempotent, so a result read back and written again is the same.
"""

from __future__ import annotations

import re

from autograder.grading.terminal import printable

__all__ = ["clean_message", "SYNTAX_ERRORS", "CELL_STOPPED", "syntax_parts"]

_CELL_REF = re.compile(r"(?:<[^>\n]*>|[^\s()\[\];]+) \[cell (\d+)\]:(\d+)(?: in ([\w<>.]+))?")
_EMPTY_EXC = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning)):[ \t]*(?=\(at |;|\n|$)")
_REPEATED = re.compile(r"\b(?:your )?code raised (?:your )?code raised\b")
_SPACES = re.compile(r"[ \t]{2,}")
_NO_EVIDENCE = re.compile(r"no evidence for experiment '([^'\n]{1,80})'")


def _cell_ref(match: re.Match) -> str:
    cell, line, func = int(match.group(1)) + 1, match.group(2), match.group(3)
    func = (func or "").rpartition(".")[2]  # the runner names a method with its class: the cell already says it
    return f"cell {cell}, line {line}" + (f", in {func}" if func and func != "<module>" else "")


def clean_message(text: str) -> str:
    """A failure message ready to read: one space between words, cells counted from 1, no echoes."""
    # Escape sequences go whole (an OSC 8 link with its address), not just their ESC byte.
    text = printable(str(text or "").replace("\r\n", "\n"))
    text = _REPEATED.sub("your code raised", text)
    text = _NO_EVIDENCE.sub(r"no result for the check '\1'", text)  # the grader's word, not the student's
    text = _CELL_REF.sub(_cell_ref, text)
    text = _EMPTY_EXC.sub(r"\1 ", text)
    text = _SPACES.sub(" ", text)
    return "\n".join(line.strip() for line in text.strip().splitlines())


SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")  # how the runner names a cell Python could not compile
CELL_STOPPED = "TimeBudgetExceeded:"  # how the runner records a cell it stopped at its time budget (runner/budget.py)
# "SyntaxError: invalid syntax (line 13: def f(:)": how the loader names a cell Python could not compile
# (coursecheck.notebook.syntax_message), read back into its parts to say them in the reader's words
_SYNTAX = re.compile(r"^(?P<error>[A-Za-z]+Error: .*?)(?: \(line (?P<line>\d{1,7})(?:: (?P<code>.*))?\))?$", re.S)


def syntax_parts(message: str) -> tuple[str, int, str] | None:
    """A syntax error as the loader records it, in its parts: ("SyntaxError: invalid syntax", 13, "def f(:"), the
    line 0 and the code "" when it names none; None for a message that is not a syntax error."""
    message = str(message)
    if not message.startswith(SYNTAX_ERRORS):
        return None
    match = _SYNTAX.match(message)
    if match is None:
        return message, 0, ""
    return match["error"], int(match["line"] or 0), (match["code"] or "").strip()
