"""How an edition's markdown loses the source's hard wrapping (scripts/build_notebook.py joins the Chinese text)."""

from __future__ import annotations

import re

__all__ = ["join_wrapped_lines"]

_FULL_WIDTH = set("，。：；、（）！？「」《》“”")
_BLOCK_START = re.compile(r"\s*(#|[-*] |\||```|\$\$|> |\d+\. )")


def join_wrapped_lines(text: str) -> str:
    """Undo the source's hard wrapping inside paragraphs and list items.

    Markdown turns a line break inside a paragraph into a space: right for English, a stray gap between two
    Chinese characters. A line that continues the one above (neither blank nor the start of a heading, list
    item, table row, fence or formula) is joined to it: with no space between two Chinese characters or next
    to full-width punctuation, with one where Latin text meets Chinese or Latin text. What a fence holds
    (commands, code) keeps its lines.
    """
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        previous = out[-1] if out else ""
        if line.lstrip().startswith("```"):
            fenced = not fenced
        continues = previous.strip() and line.strip() and not _BLOCK_START.match(line) and not fenced
        if continues and not previous.lstrip().startswith(("|", "#", "```", "$$")):
            body = line.strip()
            # Emphasis marks are transparent: what counts is the character they wrap.
            left, right = (previous.rstrip().rstrip("*_") or "*")[-1], (body.lstrip("*_") or "*")[0]
            tight = left in _FULL_WIDTH or right in _FULL_WIDTH or not (left.isascii() or right.isascii())
            glue = "" if tight else " "  # a space between Chinese and Latin text, as the source writes it
            out[-1] = previous.rstrip() + glue + body
        else:
            out.append(line)
    return "\n".join(out)
