"""What the code cells print, draw and say in each edition: the words the build puts into them.

A code cell leaves a string literal to the edition as ``"{{key}}"``, or ``f"{{key}}"`` when the words use the
cell's own names (``PRINTED[key]`` in text_en.py, text_zh.py: an f-string's body, its `{name}`s the cell's
expressions, the same ones in every edition); a practice cell's first line is ``# {{practice_check}}``, the
edition's ``PRACTICE_CHECK`` with its group's name from the grader's catalog (its self-check's ``group.<group>``,
rendered by the ``group_name`` the build gives). ``check`` holds the editions to that; ``code`` fills one cell.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from . import comments

__all__ = ["WORDS", "PRACTICE_LINE", "fields", "check", "code"]

WORDS = re.compile(r'(f?)"\{\{(\w+)\}\}"')  # a whole string literal left to the edition: "{{key}}"
PRACTICE_LINE = "# {{practice_check}}"


def fields(template: str) -> list[str]:
    """The {fields} of a printed template (the cell's expressions, their format), in a comparable order."""
    return sorted(
        f"{name}!{conversion}:{spec}" for _, name, spec, conversion in string.Formatter().parse(template) if name
    )


def check(editions: dict, cells: list) -> None:
    """Every edition prints the same things: the same keys, each with the same {fields}, each printed by a cell
    of `cells`; words that fit in a string literal. ValueError naming the edition, the key and the fix."""
    english = editions["en"].PRINTED
    printed = {m.group(2) for c in cells if c.kind in ("code", "demo") for m in WORDS.finditer(c.source)}
    for edition in editions.values():
        if set(edition.PRINTED) != set(english):
            differ = sorted(set(edition.PRINTED) ^ set(english))
            raise ValueError(f"{edition.__name__}.PRINTED and text_en's differ in keys {differ}: give both the same")
        for key, words in edition.PRINTED.items():
            if fields(words) != fields(english[key]):
                raise ValueError(
                    f"{edition.__name__}.PRINTED[{key!r}] uses {fields(words)}, the English {fields(english[key])}: "
                    "an edition changes the words, never what the cell prints"
                )
            if re.search(r'["\\\n]', words):
                raise ValueError(
                    f"{edition.__name__}.PRINTED[{key!r}] = {words!r}: no double quote, backslash or newline"
                )
        if cells and set(edition.PRINTED) - printed:
            unused = sorted(set(edition.PRINTED) - printed)
            raise ValueError(f"{edition.__name__}.PRINTED has words no cell prints: {unused}")


def code(cell, edition, group_name: Callable[[str, str], str] | None = None) -> str:
    """`cell`'s code in the edition's words: each "{{key}}" literal filled from ``PRINTED``, a practice cell's
    first lines from ``PRACTICE_CHECK`` (its group named by ``group_name(group, language)``: the grader's
    catalog; ``{key}`` the group's key as the cell passes it; each line a comment), its comments and
    docstrings from ``COMMENTS`` (comments.py)."""
    source = cell.source
    if cell.group:
        if group_name is None:
            raise ValueError(f"a practice cell of group {cell.group!r} needs group_name: the build gives it")
        group = group_name(cell.group, edition.LANGUAGE)
        # {key}: the group's key as the cell passes it to practice(), for an edition whose name differs from it
        lines = edition.PRACTICE_CHECK.format(group=group, key=cell.group).splitlines()
        source = source.replace(PRACTICE_LINE, "\n".join("# " + line for line in lines), 1)

    def words(match: re.Match) -> str:
        f, key = match.groups()
        if key not in edition.PRINTED:
            raise ValueError(f"a code cell prints {{{{{key}}}}}: add {key!r} to every edition's PRINTED")
        if fields(edition.PRINTED[key]) and not f:
            raise ValueError(f'PRINTED[{key!r}] uses the cell\'s names: write it as f"{{{{{key}}}}}" in the cell')
        return f'{f}"{edition.PRINTED[key]}"'

    source = WORDS.sub(words, source)
    left = re.findall(r"\{\{\w+\}\}", source)
    if left:
        raise ValueError(f'a code cell leaves {left} unfilled: write each as a whole string literal, "{left[0]}"')
    return comments.translate(source, edition)
