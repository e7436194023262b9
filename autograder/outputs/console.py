"""Trusted: the rich console the command line prints with: the terminal's width in a terminal, else $COLUMNS or a
log's width, plain text never wrapped outside a terminal (a pipe, a CI log, a file), so a sentence is never cut in
the middle of a phrase; and text that wraps as Chinese does (``Words``).

Rich breaks a line only at a space, which Chinese has few of: a table cell would end a line early, or between a
number and its unit ("本项 2 / 分"). ``Words`` breaks it between any two characters where one is Chinese (or a
full-width mark), at a space, never inside a run of Latin letters or digits, never before a closing mark (，。）”)
or after an opening one (（“), never at the space between a number and the Chinese word after it ("2 分"), and
never inside a short Latin phrase set in Chinese ("LM head", "token embedding": up to 24 characters between two
Chinese ones), nor inside a word the caller names (``Words(keep=...)``: the graded areas' names and the kit's own
words, "其他评分项", where a line ended as "已在其│他评分项").
A line is filled to the width, as a browser fills a Chinese paragraph: it ends early only where a reader pauses
(after a mark (，；：）), at a space or before an opening bracket) within the last few columns (``_SLACK``), so a
sentence a little wider than its cell is not cut after its first clause as if by hand. A bulleted line
("  · ...") goes on under its text, not under its bullet.
"""

from __future__ import annotations

import os
import unicodedata

from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.measure import Measurement
from rich.text import Text

__all__ = ["make_console", "LOG_WIDTH", "Words", "break_points", "say"]

LOG_WIDTH = 120  # columns a table may use when the output is not a terminal and $COLUMNS says nothing
_OPENING = "（“‘《「【"
_CLOSING = "，。、：；！？）”’》」】…"
_TERM = 24  # characters of a Latin phrase set in Chinese kept on one line ("positional embedding")
_SCRAP = 4  # columns of a last line too short to stand alone (two Chinese characters): "分。"
_SLACK = 12  # columns a line may leave empty to end where a reader pauses (six Chinese characters)


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


def say(console: Console, text: str, style: str = "", *, keep: tuple[str, ...] = ()) -> None:
    """Print `text` as a line of its own that wraps as Chinese does (``Words``; `keep`: pieces a line never ends
    inside). Console.print joins the Text it is handed into a plain one, which would wrap as rich's own: a group
    keeps it as it is."""
    from rich.console import Group

    console.print(Group(Words(text, style=style, keep=keep)), highlight=False)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


def _breakable(text: str, i: int) -> bool:
    """Whether a line may end between text[i - 1] and text[i]."""
    before, after = text[i - 1], text[i]
    if after in _CLOSING or before in _OPENING or after.isspace():
        return False
    if before.isspace():  # after a space, unless it keeps a number with its words: "2 分", "扣 4", "9. 练习 2"
        if i >= 2 and ((text[i - 2].isdigit() and _wide(after)) or (_wide(text[i - 2]) and after.isdigit())):
            return False
        if i >= 3 and text[i - 2] == "." and text[i - 3].isdigit():  # a section's number stays with its name
            return False
        return not _inside_term(text, i)
    return _wide(before) or _wide(after)


def _inside_term(text: str, i: int) -> bool:
    """Whether the space before text[i] joins two words of a short Latin phrase set in Chinese ("LM head", "token
    embedding", "(B, T, V)"): one term, kept on one line. A longer run (a quoted English error) breaks at spaces."""
    j = i - 1
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j == 0 or _wide(text[j - 1]) or _wide(text[i]):  # a space after Chinese, or before it: no term
        return False
    start = max(0, i - _TERM - 1)
    left = next((k + 1 for k in range(i - 1, start - 1, -1) if _wide(text[k])), 0 if start == 0 else None)
    right = next((k for k in range(i, min(len(text), i + _TERM + 1)) if _wide(text[k])), None)
    right = len(text) if right is None and len(text) <= i + _TERM else right
    return left is not None and right is not None and len(text[left:right].strip()) <= _TERM


def _pause(text: str, i: int) -> bool:
    """Whether a line that may end between text[i - 1] and text[i] ends where a reader pauses: after a mark, at a
    space, or before an opening bracket or quote."""
    return text[i - 1].isspace() or text[i - 1] in _CLOSING or text[i] in _OPENING


def _kept(text: str, keep: tuple[str, ...], width: int) -> frozenset[int]:
    """The offsets inside a word of `keep` (an area's name, a word of the kit's own: "评分项") where `text` holds
    one: a line never ends there, unless the word is wider than a line."""
    from rich.cells import cell_len

    inside: set[int] = set()
    for word in keep:
        if len(word) < 2 or cell_len(word) > width:
            continue
        at = text.find(word)
        while at >= 0:
            inside.update(range(at + 1, at + len(word)))
            at = text.find(word, at + 1)
    return frozenset(inside)


def break_points(text: str, width: int, hang: int = 0, keep: tuple[str, ...] = ()) -> list[int]:
    """Offsets at which to break `text` (one line, no newline) so that each line fits `width` cells (the lines
    after the first `hang` cells fewer: they are indented); a piece that cannot break and is wider than the line
    is cut where the width ends. A pause (``_pause``) is preferred when it leaves at most ``_SLACK`` columns empty.
    A word of `keep` is never cut (``_kept``): the line ends before it."""
    from rich.cells import cell_len

    inside = _kept(text, keep, width - hang)
    out: list[int] = []
    start, used, last, pause = 0, 0, None, None  # the line's first offset, its cells, where it may end, may pause
    earlier = None  # where it may end before `last`: a last line of a scrap ("分。") ends the one above there
    for i, char in enumerate(text):
        if i > start and i not in inside and _breakable(text, i):
            earlier, last = last, i
            pause = i if _pause(text, i) else pause
        cells = cell_len(char)
        room = width - (hang if out else 0)
        if used + cells > room and i > start and not char.isspace():
            cut = last if last is not None and last > start else i
            if pause is not None and pause > start and cell_len(text[start:pause]) + _SLACK >= room:
                cut = pause
            elif cell_len(text[cut:].strip()) <= _SCRAP and earlier is not None and earlier > start:
                cut = earlier
            out.append(cut)
            start, last, pause, earlier = cut, None, None, None
            used = cell_len(text[cut:i])
        used += cells
    return out


class Words(Text):
    """Rich text that wraps as Chinese does (see the module); Latin-only text wraps as rich's own. `keep`: words
    a line never ends inside (``break_points``), such as the names of the graded areas."""

    def __init__(self, *args, keep: tuple[str, ...] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.keep = tuple(keep)

    def wrap(self, console: Console, width: int, **options) -> Lines:
        if options.get("no_wrap") or self.no_wrap or not any(_wide(c) for c in self.plain):
            return super().wrap(console, width, **options)
        lines = Lines()
        for line in self.split(allow_blank=True):  # a line of its own keeps its indent; a broken one starts at a word
            plain = line.plain
            indent = len(plain) - len(plain.lstrip(" "))
            hang = indent + 2 if plain[indent : indent + 2] == "· " else indent  # under the text, not the bullet
            hang = hang if hang < width // 2 else 0
            for n, piece in enumerate(line.divide(break_points(plain, width, hang, self.keep))):
                piece.rstrip()
                if n:
                    piece = Text(" " * hang) + piece[len(piece.plain) - len(piece.plain.lstrip(" ")) :]
                lines.append(piece)
        return lines

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        measured = super().__rich_measure__(console, options)
        if not any(_wide(c) for c in self.plain):
            return measured
        from rich.cells import cell_len

        pieces = [piece for line in self.plain.splitlines() for piece in _pieces(line, self.keep)]
        shortest = max((cell_len(piece.strip()) for piece in pieces), default=0)
        return Measurement(min(shortest, measured.maximum), measured.maximum)


def _pieces(line: str, keep: tuple[str, ...] = ()) -> list[str]:
    """`line` cut at every place it may break."""
    inside = _kept(line, keep, len(line) * 2)
    cuts = [i for i in range(1, len(line)) if i not in inside and _breakable(line, i)]
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)], strict=True)]
