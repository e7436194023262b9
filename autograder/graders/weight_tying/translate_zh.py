"""Trusted and public: the hidden suite's English messages and the run summary, in Chinese, from the catalog.

The judge writes its failure messages in English (the marking scheme reads their keywords before anything is
translated; the judge does not know the student's language), and the engine writes the run summary in
English. For a Chinese edition, `translate(text)` renders them from the message catalog (messages.py and its
parts, messages_*.py: every message's id, English and Chinese side by side): each catalog message's English
template, read as a pattern (``{name}`` a value, ``{name*}`` the rest of the line), gives way to its Chinese
template with the same values. No sentence is written here: a message is added or reworded in the catalog
only. What is not the catalog's (an exception raised by the student's code or by torch) is kept verbatim
between 「」. The self-check renders its own words from the catalog directly. ``scripts/build_notebook.py``
copies this file into each release. Imports the standard library only.

Maintaining it: tests/autograder/graders/weight_tying/test_translate_zh.py (suite messages on the calibration
corpus, run summaries), test_translate_zh_inputs.py (refused hand-ins) and tests/assignments/
test_selfcheck_corpus.py (the self-check) name the English words left untranslated and the whole message:
add or reword that message in the catalog (more specific messages before general ones in their part), then
run ``python scripts/build_notebook.py`` to refresh the release copies.
"""

from __future__ import annotations

import re

from .messages import CATALOG, SECTION_HEADINGS, area_name, title
from .translate_zh_rules import AREAS, KEYWORD_RULES, KEYWORDS, PUNCTUATION_RULES, VERBATIM, rule

# A file name as the refused-input messages give it: quoted by repr, or one word up to the sentence's colon.
_NAME = r"(?P<name>'[^'\n]*'|[^\s：:'「」]+)"
# Text whose shape a template cannot state: what the self-check says the student's code raised, and where.
_RAISED = r"(?P<what>(?:TiedEmbeddingLM|MiniGPTWithWeightTying|loss\.backward)\S*(?: [^\n:]*?)?) raised (?P<exc>\w+)"
_PATTERNS = {
    "checkfail.": [
        (
            _RAISED + r" \(at cell (?P<cell>\d+), line (?P<line>\d+)\): ",
            r"\g<what> 抛出了 \g<exc>（位于第 \g<cell> 个单元格第 \g<line> 行）：",
        ),
        (
            _RAISED + r" \(at (?P<file>[^,\n]+), line (?P<line>\d+)\): ",
            r"\g<what> 抛出了 \g<exc>（位于 ⟦\g<file>⟧ 第 \g<line> 行）：",
        ),
        (_RAISED + r": ", r"\g<what> 抛出了 \g<exc>："),
    ],
    "suite.": [
        (r" on input_ids of shape (\([\d, ]*\))", r"，input_ids 形状为 \1"),
    ],
}
_PROTECT = re.compile(
    "|".join(
        re.escape(k)
        for k in sorted(
            {*KEYWORDS, *(k.removeprefix("keyword.") for k in CATALOG if k.startswith("keyword.")), "log_softmax"},
            key=len,
            reverse=True,
        )
    )
)


def _catalog_rules(prefix: str) -> list[tuple[str, str]]:
    """English -> Chinese rules for the catalog's messages whose id starts with `prefix`, in catalog order, then
    the part's patterns. A keyword in the Chinese template is kept out of reach of the keyword rules."""
    rules = []
    for key, message in CATALOG.items():
        if key.startswith(prefix) and not key.startswith("diag.reread"):
            zh = re.sub(r"(⟦[^⟧]*⟧)|" + _PROTECT.pattern, lambda m: m.group(1) or f"⟦{m.group(0)}⟧", message.zh)
            pattern, template = rule(message.en, zh)
            if prefix == "input.":  # {name} is one file name, never the sentence before it
                pattern = pattern.replace("(?P<name>[^\\n]*?)", _NAME, 1)
            rules.append((pattern, template))
    return rules + _PATTERNS.get(prefix, [])


# diagnosis.py's sentences, then where to reread: " (reread section 7, "...")" -> "（请重读第 7 节「...」）"
_DIAGNOSIS = _catalog_rules("diag.") + [
    *(rule(f'section {n}, "{en}"', f"第 {n} 节「⟦{zh}⟧」") for n, (en, zh) in SECTION_HEADINGS.items()),
    (r" ?\(reread (第 [^()\n]*?」)\)", r"（请重读\1）"),
    (r"」 and (第 )", r"」和\1"),
]
_AREAS = [rule(english, f"⟦{chinese}⟧") for english, chinese in AREAS.items()]

# Whole sentences before the phrases they are built from: the self-check's and the diagnosis's sentences are
# more specific than the suite's prefixes and generic "has shape ..., expected ..." phrases; keywords last.
# (The self-check's sentences, checkfail.*, are rendered from the catalog where they are built: no rule here.)
RULES = (
    _DIAGNOSIS
    + _catalog_rules("note.")
    + _catalog_rules("input.")
    + _catalog_rules("suite.")
    + _catalog_rules("run.")
    + _AREAS
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
