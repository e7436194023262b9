"""Trusted: names that look alike: "аlice" (Cyrillic а) beside "alice" reads as one student on every page.

Two different names are flagged (``grades.csv``'s ``confusable_with`` column, the report's *Needs a look*) when
a reader could take one for the other, case aside (as on a case-insensitive disk): their skeletons are equal
once case is folded, after the look-alike mapping ("Ьob" and "bob": the Cyrillic capital soft sign is drawn
as a b, its small form is not) or before it ("ALICE" and "alice": a capital I is drawn as an l, a small i is
not). A flag is a prompt to look, never a merge::

    lookalikes(["alice", "аlice", "Ьob", "bob", "carol"])
    == {"alice": ["аlice"], "аlice": ["alice"], "Ьob": ["bob"], "bob": ["Ьob"]}

A skeleton is Unicode's (UTS #39, section 4): the name in NFD, each character replaced by the prototype the
confusables data draws it as, NFD again; invisible format characters (zero-width spaces and joiners, soft
hyphens, bidi marks) are dropped first. The data is Unicode's ``confusables.txt`` as the
``confusable_homoglyphs`` package ships it (MIT), which lists for each character those drawn like it, both
ways: one class of look-alikes per prototype, and one member of each class stands for all of it (only
equality matters). The skeleton folded before the mapping is folded once more after it, so that a digit drawn
as a capital letter ("0" as "O") meets the small one ("b0b" beside "bob").
"""

from __future__ import annotations

import functools
import unicodedata

__all__ = ["skeletons", "lookalikes"]

_LRM = "\u200e"  # the data wraps right-to-left characters in left-to-right marks for display


@functools.cache
def _prototypes() -> dict[str, str]:
    """character -> the member of its class of look-alikes that stands for it (or the sequence it is drawn
    as: "m" as "rn")."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[str, str] = {}
    links: dict[str, set[str]] = {}
    for key, entries in confusables_data.items():
        char = key.replace(_LRM, "")
        if len(char) != 1:
            continue
        for drawn in (entry["c"].replace(_LRM, "") for entry in entries):
            if len(drawn) > 1:
                table.setdefault(char, drawn)
            elif drawn != char:
                links.setdefault(char, set()).add(drawn)
                links.setdefault(drawn, set()).add(char)
    seen: set[str] = set()
    for start in links:
        if start in seen:
            continue
        group, todo = {start}, [start]
        while todo:
            for other in links[todo.pop()] - group:
                group.add(other)
                todo.append(other)
        seen |= group
        # The prototype is drawn like every other member (each maps to it); a pair names none: take its ASCII
        # member, or the first.
        centre = [c for c in group if links[c] == group - {c}] if len(group) > 2 else []
        stands = centre[0] if len(centre) == 1 else min(group, key=lambda c: (not c.isascii(), c))
        for char in group:
            table.setdefault(char, stands)
    return table


def _skeleton(text: str) -> str:
    table = _prototypes()
    text = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text))


def skeletons(name: str) -> tuple[str, str]:
    """(case folded after the mapping, and before it): two look-alike names share one (see the module)."""
    visible = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")  # zero-width and bidi marks
    return _skeleton(visible).casefold(), _skeleton(visible.casefold()).casefold()


def lookalikes(names: list[str]) -> dict[str, list[str]]:
    """name -> the other names of `names` it looks like, in their order (only names that have any)."""
    names = list(dict.fromkeys(names))
    groups: dict[tuple[int, str], list[str]] = {}
    for name in names:
        for kind, form in enumerate(skeletons(name)):
            groups.setdefault((kind, form), []).append(name)
    alike: dict[str, set[str]] = {}
    for group in groups.values():
        for name in group:
            alike.setdefault(name, set()).update(o for o in group if o != name)
    return {name: [o for o in names if o in alike[name]] for name in names if alike.get(name)}
