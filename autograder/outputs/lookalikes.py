"""Trusted: names that look alike: "аlice" (Cyrillic а) beside "alice" reads as one student on every page.

A name's **skeleton** follows the idea of Unicode's UTS #39: two names that a reader cannot tell apart get the
same skeleton, and a class where two different names share one gets a flag on both (``grades.csv``'s
``confusable_with`` column, the report's *Needs a look*)::

    skeleton("аlice") == skeleton("alice") == skeleton("ALICE") == skeleton("a\\u200blice") == "alice"

The recipe: NFKC (full-width and compatibility forms fold: "ａｌｉｃｅ"), invisible format characters dropped
(zero-width spaces and joiners, soft hyphens, bidi marks), then a small table of the look-alikes students meet
in practice (Cyrillic, Greek, Armenian and Latin small capitals that copy a Latin letter, 0 and 1), case
folded (so "Alice" meets "alice", as on a case-insensitive disk), the table again, "rn" read as "m". No
package is needed: the table is the part of Unicode's confusables.txt that matters for names typed on a
keyboard, and a flag is a prompt to look, never a merge.
"""

from __future__ import annotations

import unicodedata

__all__ = ["skeleton", "lookalikes"]

# Each string: a Latin letter, then characters drawn the same way (either case; case folding runs between
# the two passes, so an upper-case Cyrillic letter reaches its lower-case entry too).
_GROUPS = (
    "aаαɑａ",
    "bЬвƅ",
    "cсϲⅽ",
    "dԁⅾ",
    "eеєҽ",
    "gɡ",
    "hһнʜ",
    "iіιɩ",
    "jјϳ",
    "kκкᴋ",
    "lⅼǀӏ1|",
    "mмⅿᴍ",
    "nпɴ",
    "oоοօ0ᴏ",
    "pрρ",
    "qԛ",
    "sѕꜱ",
    "tтτᴛ",
    "uυսᴜ",
    "vνѵᴠⅴ",
    "wԝѡᴡ",
    "xхχⅹ",
    "yуγү",
    "zᴢ",
)
_TABLE = {ch: group[0] for group in _GROUPS for ch in group[1:]}


def _mapped(text: str) -> str:
    return "".join(_TABLE.get(ch, ch) for ch in text)


def skeleton(name: str) -> str:
    """The form two look-alike names share (see the module's docstring); not for display."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")  # zero-width and bidi marks
    text = _mapped(_mapped(text).casefold())
    return unicodedata.normalize("NFD", text).replace("rn", "m")


def lookalikes(names: list[str]) -> dict[str, list[str]]:
    """name -> the other names of `names` it looks like (only names that have any)."""
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        groups.setdefault(skeleton(name), []).append(name)
    return {name: [o for o in group if o != name] for group in groups.values() if len(group) > 1 for name in group}
