"""Trusted: make untrusted text safe to print on the instructor's terminal.

Student text (exception messages, printed output, file and folder names) reaches the readable table, the
"Run:" line, the batch table and the progress bar. Rich does not strip escape sequences, so without this an
ANSI sequence recolours or clears the screen and an OSC 8 sequence plants a link. ``printable`` removes:

- escape sequences whole (CSI ``ESC [ ... m``, OSC ``ESC ] ... BEL``/``ESC \\``, DCS/APC/PM/SOS, their
  8-bit forms), then any other C0/C1 control character and DEL; ``\\r`` becomes a line break, so text
  cannot overwrite the line before it;
- bidirectional overrides and isolates (text that reads differently from what it is);
- lone surrogates, which become the text ``\\udXXX`` (encoding one would crash the grader).

Tabs and line breaks stay (``newlines=False`` turns breaks into spaces, for one-line cells). JSON output
needs none of this: ``json.dumps`` escapes every control character.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI: ESC [ params intermediates final
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC (window titles, OSC 8 links) up to BEL or ST
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS, SOS, PM, APC up to ST
    r"|\x1b[ -/]*[0-~]?"  # any other escape (charset switches, resets)
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # 8-bit CSI
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x9c)?"  # 8-bit DCS, SOS, OSC, PM, APC
)
_DROP = {c: None for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F)]}
_DROP.update({c: None for c in (0x061C, 0x200E, 0x200F, *range(0x2066, 0x206A))})
del _DROP[ord("\n")], _DROP[ord("\t")]
_ONE_LINE = {**_DROP, ord("\n"): " ", ord("\t"): " "}


def printable(text: object, *, newlines: bool = True, limit: int | None = None) -> str:
    """`text` without escape sequences or control characters (see the module docstring), at most `limit` chars."""
    text = text if isinstance(text, str) else str(text)
    if limit is not None:
        text = text[: limit * 2]  # cut first: the work below stays proportional to what is kept
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate becomes the text \udcff
    text = _SEQUENCES.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = text.translate(_DROP if newlines else _ONE_LINE)
    return text if limit is None else text[:limit]
