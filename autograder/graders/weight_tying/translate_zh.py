"""Trusted and public: the weight_tying grader's English feedback, rendered in natural technical Chinese.

One translation layer for every student-facing sentence of this assignment: the hidden suite's failure
messages (and the diagnosis they share), the run summary, and the self-check's messages. Messages are
written once, in English; `translate(text)` renders them in Chinese with the rules of translate_zh_rules.py
(English pattern -> Chinese template, applied in order), keeping each misconception's keyword in English in
brackets so that the feedback stays searchable and the class report can count it. Text that is not ours
(an exception message raised by the student's code or by torch, a value) is kept verbatim between 「」.
``scripts/build_notebook.py`` copies this file and its rules into each release. Imports the standard library only.

Maintaining it: when a message changes, tests/autograder/graders/weight_tying/test_translate_zh.py (suite
messages on the calibration corpus, run summaries), test_translate_zh_inputs.py (refused hand-ins) and
tests/assignments/test_selfcheck_corpus.py (the self-check) name the English words left untranslated and
the whole message. Add or adjust the rule for that sentence in the file of its source (translate_zh_suite.py,
translate_zh_suite_checks.py, translate_zh_diagnosis.py, translate_zh_selfcheck.py, translate_zh_inputs.py;
keywords and area names in translate_zh_rules.py), more specific rules before general ones, then run
``python scripts/build_notebook.py`` to refresh the release copies.
"""

from __future__ import annotations

import re

from . import translate_zh_inputs, translate_zh_selfcheck, translate_zh_suite, translate_zh_suite_checks
from .messages import CATALOG, SECTION_HEADINGS, area_name, title
from .translate_zh_rules import AREAS, KEYWORD_RULES, KEYWORDS, PUNCTUATION_RULES, VERBATIM, rule


def _catalog_rules(prefix: str) -> list[tuple[str, str]]:
    """English -> Chinese rules for the hidden suite's copies of catalog messages (the judge writes them in
    English: the marking scheme reads them), made from the catalog itself: no pattern is written by hand.
    Every keyword in the Chinese template is kept out of reach of the keyword rules."""
    kept = sorted(
        {*KEYWORDS, *(k.removeprefix("keyword.") for k in CATALOG if k.startswith("keyword.")), "log_softmax"}
    )
    protect = re.compile("|".join(re.escape(k) for k in sorted(kept, key=len, reverse=True)))
    rules = []
    for key, message in CATALOG.items():
        if key.startswith(prefix) and not key.startswith("diag.reread"):
            rules.append(rule(message.en, protect.sub(lambda m: f"⟦{m.group(0)}⟧", message.zh)))
    return rules


# diagnosis.py's sentences, then where to reread: " (reread section 7, "...")" -> "（请重读第 7 节「...」）"
_DIAGNOSIS = _catalog_rules("diag.") + [
    *(rule(f'section {n}, "{en}"', f"第 {n} 节「⟦{zh}⟧」") for n, (en, zh) in SECTION_HEADINGS.items()),
    (r" ?\(reread (第 [^()\n]*?」)\)", r"（请重读\1）"),
    (r"」 and (第 )", r"」和\1"),
]

# Whole sentences before the phrases they are built from: the self-check's and the diagnosis's sentences are
# more specific than the suite's prefixes and generic "has shape ..., expected ..." phrases; keywords last.
RULES = (
    translate_zh_selfcheck.RULES
    + _DIAGNOSIS
    + translate_zh_suite_checks.RULES
    + translate_zh_inputs.RULES
    + translate_zh_suite.RULES
    + KEYWORD_RULES
    + PUNCTUATION_RULES
)

__all__ = ["RULES", "translate", "untranslated", "KEEP_ENGLISH"]

_COMPILED = [(re.compile(pattern, re.S), template) for pattern, template in RULES]
_VERBATIM = [re.compile(pattern, re.S) for pattern in VERBATIM]
_KEEP = re.compile("⟦([^⟧]*)⟧")
# Placeholders for text no rule may touch: \x00n\x00 verbatim (shown between 「」), \x01n\x01 kept as is.
_SLOT = re.compile("([\x00\x01])(\\d+)[\x00\x01]")


# English that stays English in Chinese feedback: keywords, area names, code and values.
_KEPT_WORDS = sorted({*KEYWORDS, *AREAS, "log_softmax"}, key=len, reverse=True)
KEEP_ENGLISH = re.compile(
    "|".join(re.escape(word) for word in _KEPT_WORDS)
    + r"|`[^`]*`"  # code spans
    + r"|「[^」]*」"  # verbatim text (what the student's code or torch raised)
    + r"|[A-Za-z_][\w.]*\([^()]*\)"  # calls: loss(ids), MiniGPT(...)
    + r"|[A-Za-z_]+(?:[._][A-Za-z_\d]+)+"  # dotted or snake_case names: lm_head.weight, block_size
    + r"|\((?:\s*[\w+\-*.]{1,12}\s*,)+\s*[\w+\-*.]{1,12}\s*\)"  # tuples: (B, T, V), (3, 4)
    + r"|[A-Z]\w*(?: > [A-Z][\w ]*)+"  # menu paths: Edit > Clear Outputs of All Cells
)


def _protect(text: str, slots: list[str]) -> str:
    """Replace verbatim spans (group 1 of each VERBATIM pattern) by numbered slots."""

    def keep(match: re.Match) -> str:
        slots.append(match.group(1))
        start, end = match.start(1) - match.start(0), match.end(1) - match.start(0)
        before, after = match.group(0)[:start], match.group(0)[end:]
        if (before, after) == ("“", "”"):  # the quotes become 「」
            before = after = ""
        return before + f"\x00{len(slots) - 1}\x00" + after

    for pattern in _VERBATIM:
        text = pattern.sub(keep, text)
    return text


def _keep(text: str, slots: list[str]) -> str:
    """Turn the ⟦...⟧ a rule wrote into slots, so that later rules leave that text alone."""

    def slot(match: re.Match) -> str:
        slots.append(match.group(1))
        return f"\x01{len(slots) - 1}\x01"

    return _KEEP.sub(slot, text)


def _restore(text: str, slots: list[str]) -> str:
    def back(match: re.Match) -> str:
        value = _restore(slots[int(match.group(2))], slots)  # a kept span may hold a verbatim one
        return f"「{value}」" if match.group(1) == "\x00" else value

    return _SLOT.sub(back, text)


def translate(text: str) -> str:
    """`text` (the grader's or the self-check's English) in Chinese: a hidden-suite test's title or an area's
    name from the message catalog, else the message rules; a sentence no rule knows stays English."""
    if not text:
        return text
    named = title(text, "zh") or (area_name(text, "zh") if text in AREAS else None)
    if named is not None:
        return named
    slots: list[str] = []
    out = _protect(text, slots)
    for pattern, template in _COMPILED:
        out = _keep(pattern.sub(template, out), slots)
    return _restore(out, slots)


def untranslated(text: str) -> list[str]:
    """Runs of three or more English words left in a translated text (what a missing rule leaves behind)."""
    rest = KEEP_ENGLISH.sub(" ", text)
    return [m.group(0) for m in re.finditer(r"[A-Za-z][A-Za-z'-]*(?:[ ,]+[A-Za-z][A-Za-z'-]*){2,}", rest)]
