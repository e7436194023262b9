"""Trusted: the rich console the command line prints with: the terminal's width in a terminal, else $COLUMNS or a
log's width, plain text never wrapped outside a terminal (a pipe, a CI log, a file), so a sentence is never cut in
the middle of a phrase; and text that wraps as Chinese does (``Words``).

Rich breaks a line only at a space, which Chinese has few of: a table cell would end a line early, or between a
number and its unit ("本项 2 / 分"). ``Words`` breaks it between any two characters where one is Chinese (or a
full-width mark), at a space, never inside a run of Latin letters or digits, never before a closing mark (，。）”)
or after an opening one (（“), and never at the space between a number and the Chinese word after it ("2 分").
"""

from __future__ import annotations

import os
import unicodedata

from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.measure import Measurement
from rich.text import Text

__all__ = ["make_console", "LOG_WIDTH", "Words", "break_points"]

LOG_WIDTH = 120  # columns a table may use when the output is not a terminal and $COLUMNS says nothing
_OPENING = "（“‘《「【"
_CLOSING = "，。、：；！？）”’》」】…"


def _columns() -> int | None:
    """$COLUMNS when it is a width (a terminal's own wins inside a terminal: rich reads it there)."""
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and 20 <= int(value) <= 1000 else None


def make_console(*, stderr: bool = False, file=None) -> Console:
    """A rich Console for stdout (or stderr, or `file`)."""
    console = Console(stderr=stderr, file=file)
    if console.is_terminal:
        return console
    return Console(stderr=stderr, file=file, width=_columns() or LOG_WIDTH, soft_wrap=True)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


def _breakable(text: str, i: int) -> bool:
    """Whether a line may end between text[i - 1] and text[i]."""
    before, after = text[i - 1], text[i]
    if after in _CLOSING or before in _OPENING or after.isspace():
        return False
    if before.isspace():  # after a space, unless it sits between a number and the Chinese after it: "2 分"
        return not (i >= 2 and text[i - 2].isdigit() and _wide(after))
    return _wide(before) or _wide(after)


def break_points(text: str, width: int) -> list[int]:
    """Offsets at which to break `text` (one line, no newline) so that each line fits `width` cells; a piece that
    cannot break and is wider than `width` is cut where the width ends."""
    from rich.cells import cell_len

    out: list[int] = []
    start, used, last = 0, 0, None  # the line's first offset, its cells so far, its last place to break
    for i, char in enumerate(text):
        if i > start and _breakable(text, i):
            last = i
        cells = cell_len(char)
        if used + cells > width and i > start and not char.isspace():
            cut = last if last is not None and last > start else i
            out.append(cut)
            start, last = cut, None
            used = cell_len(text[cut:i])
        used += cells
    return out


class Words(Text):
    """Rich text that wraps as Chinese does (see the module); Latin-only text wraps as rich's own."""

    def wrap(self, console: Console, width: int, **options) -> Lines:
        if options.get("no_wrap") or self.no_wrap or not any(_wide(c) for c in self.plain):
            return super().wrap(console, width, **options)
        lines = Lines()
        for line in self.split(allow_blank=True):  # a line of its own keeps its indent; a broken one starts at a word
            for n, piece in enumerate(line.divide(break_points(line.plain, width))):
                piece.rstrip()
                lines.append(piece if n == 0 else piece[len(piece.plain) - len(piece.plain.lstrip(" ")) :])
        return lines

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        measured = super().__rich_measure__(console, options)
        if not any(_wide(c) for c in self.plain):
            return measured
        from rich.cells import cell_len

        pieces = [piece for line in self.plain.splitlines() for piece in _pieces(line)]
        shortest = max((cell_len(piece.strip()) for piece in pieces), default=0)
        return Measurement(min(shortest, measured.maximum), measured.maximum)


def _pieces(line: str) -> list[str]:
    """`line` cut at every place it may break."""
    cuts = [i for i in range(1, len(line)) if _breakable(line, i)]
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)], strict=True)]
