"""Trusted: what of a Chinese message is still English, measured against the message catalog (a test's check).

`untranslated(text)` lists the runs of three or more English words left in `text` once everything that stays
English in the Chinese edition is set aside: the book's own English terms (token, LM head, token embedding,
positional embedding, weight tying: ``BOOK_TERMS``), code (spans in backquotes, calls, dotted or snake_case
names, tuples of sizes), and what the student's code or torch raised (verbatim, between 「」). A message
rendered from a Chinese template leaves nothing; an English sentence left in it is listed.
"""

from __future__ import annotations

import re

__all__ = ["untranslated", "KEPT", "BOOK_TERMS"]

# The terms the chapter itself keeps in English in its Chinese text.
BOOK_TERMS = ("LM head", "token embedding", "positional embedding", "weight tying", "token", "logits", "loss")
# English a Chinese message keeps: the book's terms, then the shapes of code and values.
_WORDS = sorted({*BOOK_TERMS, "log_softmax"}, key=len, reverse=True)
KEPT = re.compile(
    "|".join(re.escape(word) for word in _WORDS)
    + r"|`[^`]*`"  # code spans
    + r"|「[^」]*」"  # verbatim text (what the student's code or torch raised)
    + r"|[A-Za-z_][\w.]*\([^()]*\)"  # calls: loss(ids), MiniGPT(...)
    + r"|[A-Za-z_]+(?:[._][A-Za-z_\d]+)+"  # dotted or snake_case names: lm_head.weight, block_size
    + r"|\((?:\s*[\w+\-*.]{1,12}\s*,)+\s*[\w+\-*.]{1,12}\s*\)"  # tuples: (B, T, V), (3, 4)
    + r"|[A-Z]\w*(?: > [A-Z][\w ]*)+"  # menu paths: Edit > Clear Outputs of All Cells
)
_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?:[ ,]+[A-Za-z][A-Za-z'-]*){2,}")


def untranslated(text: str) -> list[str]:
    """Runs of three or more English words in `text` outside keywords, areas, code and verbatim text."""
    return [m.group(0) for m in _RUN.finditer(KEPT.sub(" ", text))]
