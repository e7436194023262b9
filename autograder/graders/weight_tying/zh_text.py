"""Trusted: what of a Chinese text is still English, and which words break the edition's glossary (tests' checks).

`english(text)` lists every English word left in `text` once everything that stays English in the Chinese
edition is set aside: the book's own English terms and the short allow-list (``glossary.py``), code (spans in
backquotes, calls, dotted or snake_case names, CamelCase class and exception names, tuples of sizes, menu paths,
names with digits such as float64), a template's parameters and quoted text (what the student's code or torch
raised, verbatim between “”).
`untranslated(text)` is the older, looser check: runs of three or more such words. `rejected(text)` names each
glossary variant in `text` with the term to use.
"""

from __future__ import annotations

import re

from .glossary import BOOK_TERMS, ENGLISH_ALLOWED, rejected_in

__all__ = ["untranslated", "english", "rejected", "KEPT", "BOOK_TERMS"]

_WORDS = sorted({*BOOK_TERMS, "log_softmax"}, key=len, reverse=True)
KEPT = re.compile(
    "|".join(r"\b" + re.escape(word) + r"\b" for word in _WORDS)  # first: "LM head" is a term, not an acronym
    + r"|\{\w*\}"  # a template's parameters
    + r"|“[^”]*”"  # quoted text: what the student's code or torch raised, verbatim
    + r"|`[^`]*`"  # code spans
    + r"|[A-Za-z_][\w.]*\([^()]*(?:\([^()]*\)[^()]*)*\)"  # calls: loss(ids), MiniGPT(...), with one level nested
    + r"|[A-Za-z_]+(?:[._][A-Za-z_\d]+)+|\.[A-Za-z_]\w*"  # dotted or snake_case names: lm_head.weight, .grad
    + r"|\((?:\s*[\w+\-*.]{1,12}\s*,)+\s*[\w+\-*.]{1,12}\s*\)"  # tuples: (B, T, V), (3, 4)
    + r"|[A-Z]\w*(?: (?:>|→) [A-Z][\w &]*)+"  # menu paths: Edit > Clear Outputs of All Cells, Kernel → Restart
    + r"|\b[A-Za-z]*\d[\w.+-]*|\b\w+-\d+"  # names with digits: float64, int64, UTF-8, GPT-2, U+FFFD
    + r"|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z0-9]+[A-Z]\w*|\b[A-Z]{2,}\w*"  # camelCase, CamelCase, NaN... acronyms
    + r"|\b[A-Za-z]*(?:Error|Exception)\b"
    + r"|[A-Za-z_]\w*=[\w.\-]+"  # arguments: weight_tying=True, dropout=0.5
    + r"|[\w.$]*/[\w./<>]+"  # paths: path/to/your.ipynb, results/<id>.json
    + r"|--[a-z][\w-]*(?: [A-Z]+\b)?"  # a command's options: --student NAME
    + r"|\b[a-z]+-[A-Z]\w*|\bCtrl\+\w+"  # pre-LayerNorm, Ctrl+S
    + r"|<(sub|sup)>.*?</\1>|</?\w+>"  # markdown's HTML: subscripts (W_out) and tags
)
_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?:[ ,]+[A-Za-z][A-Za-z'-]*){2,}")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")


def untranslated(text: str) -> list[str]:
    """Runs of three or more English words in `text` outside keywords, areas, code and verbatim text."""
    return [m.group(0) for m in _RUN.finditer(KEPT.sub(" ", text))]


def english(text: str) -> list[str]:
    """Every English word of two or more letters in `text` outside the book's terms, the allow-list, code and
    verbatim text (single letters are the notation's: B, T, V, D, E)."""
    rest = KEPT.sub(" ", text)
    return [
        w for w in _WORD.findall(rest) if len(w) > 1 and w not in ENGLISH_ALLOWED and w.lower() not in ENGLISH_ALLOWED
    ]


def rejected(text: str) -> list[tuple[str, str]]:
    """(variant, the term to use) for each of the glossary's rejected variants in `text`."""
    return rejected_in(text)
