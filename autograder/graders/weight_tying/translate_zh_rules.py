"""Trusted and public: how translate_zh's rules are written, the text kept verbatim, and the keywords.

A rule is ``rule(english, chinese)``. In `english`, ``{name}`` matches a value on the same line (as little as
possible before the literal text that follows it; at the very end, a number or a name) and ``{name*}`` the
rest of the line; every other character is literal. In `chinese`, ``{name}``
puts the value back and ``⟦...⟧`` marks text later rules must not touch (a keyword, a code word). Rules are
applied in order, so a sentence rule comes before the rules for the phrases it contains.
"""

from __future__ import annotations

import re

from .messages import CATALOG

__all__ = ["rule", "VERBATIM", "KEYWORDS", "KEYWORD_RULES", "PUNCTUATION_RULES", "AREAS"]

# Text that is not ours (what the student's code or torch raised): group 1 is kept as it is, between 「」.
VERBATIM = [
    r"“([^”\n]*)”",  # the self-check quotes it
    r"your code raised ([^\n]+)",  # the hidden suite appends it
    r"cell/part \d+ raised ([^\n]+)",  # the run summary lists the cells that raised
]

# The graded areas, as the grader tags them, and their Chinese names: from the message catalog.
AREAS = {m.en: m.zh for key, m in CATALOG.items() if key.startswith("area.")}


def rule(english: str, chinese: str) -> tuple[str, str]:
    """(regex, re.sub template) from a readable English pattern and its Chinese rendering."""
    parts = [p for p in re.split(r"(\{\w+\*?\})", english) if p]
    pattern = ""
    for index, part in enumerate(parts):
        match = re.fullmatch(r"\{(\w+)(\*?)\}", part)
        if not match:
            pattern += re.escape(part)
        elif match.group(2):  # the rest of the line
            pattern += f"(?P<{match.group(1)}>[^\\n]*)"
        elif index == len(parts) - 1:  # a value that ends the pattern: a number, a name, a dtype
            pattern += f"(?P<{match.group(1)}>[\\w.+\\-]+)"
        else:  # a value up to the literal text that follows it
            pattern += f"(?P<{match.group(1)}>[^\\n]*?)"
    template = re.sub(r"\{(\w+)\}", r"\\g<\1>", chinese.replace("\\", "\\\\"))
    return pattern, template


# The misconception keywords (MISCONCEPTIONS.md) wherever a sentence rule has not already placed them: the
# Chinese gloss (from the message catalog), then the keyword itself, kept in English so feedback stays
# searchable and countable. Keywords that are code (max_norm, padding_idx, ...) stay as they are.
KEYWORDS = {
    m.en: m.zh
    for key, m in CATALOG.items()
    if key.startswith("keyword.") and not re.fullmatch(r"[a-z]+(_[a-z]+)+", m.en)
}
KEYWORD_RULES = [
    (r"(?<![\w/])" + re.escape(english) + r"(?!\w)", rule("", f"{chinese}（⟦{english}⟧）")[1])
    for english, chinese in KEYWORDS.items()
]

# Last: English punctuation between Chinese sentences becomes full-width.
PUNCTUATION_RULES = [
    (r"\s*: ", "："),  # code and quoted text are out of reach here: they are still placeholders
    (r"(?<=[\u4e00-\u9fff）])\.(?=\s|$)", "。"),
]
