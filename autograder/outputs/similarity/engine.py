"""Trusted: which hand-ins share code, and how much of each, by copydetect (MIT): no fingerprinting of the kit's own.

copydetect tokenizes code with Pygments and normalises it (every variable, attribute and argument name becomes
``V``, every function name ``F``, every class name ``O``, every string ``S``; comments and layout dropped), hashes
each run of ``NOISE`` tokens of what is left (a k-gram) and keeps them all (``WINDOW`` 1: its guarantee threshold
equals its noise threshold, so a shared run of ``NOISE`` tokens is always seen). Its ``compare_files`` gives, for
a pair, the share of each one's fingerprinted code found in the other, and where. Renaming, reordering methods,
comments, prints between statements or moving cells between editions change none of the runs in between.

What counts as evidence is what is left after three kinds of code are set aside (``set_aside``), as MOSS sets
aside passages found in many programs and compare50 sets aside a distribution and an archive:

- the starter code of every edition and the reference solution (``starter``): every one of their k-grams;
- what many hand-ins share: a k-gram found in at least ``common_limit(n)`` of the ``n`` hand-ins, the archive
  and the kit's corpus of correct and wrong files together (``COMMON_MIN`` of them, or ``COMMON_SHARE``);
- nothing else: what is left of each hand-in is its own, and what two share of it is the figure.

Comparing every pair costs n(n-1)/2 comparisons (copydetect's ``CopyDetector`` does that: 1,000 hand-ins are
500,000 pairs, minutes on one core, and four times that at 2,000). ``candidates`` compares only the pairs that
share enough of what is left after setting aside, counted in an inverted index of copydetect's own fingerprints:
a bound on what its comparison can find, so no pair it would list is left out.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "NOISE",
    "WINDOW",
    "DEFAULT_THRESHOLD",
    "MIN_MATCH",
    "COMMON_MIN",
    "COMMON_SHARE",
    "Match",
    "fingerprint",
    "fingerprints",
    "listed",
    "hashes_of",
    "common_limit",
    "set_aside",
    "candidates",
    "compare",
    "flagged",
]

NOISE = 25  # copydetect's default noise threshold: the k of its k-grams, in normalised characters
WINDOW = 1  # guarantee threshold = noise threshold: every k-gram is a fingerprint
DEFAULT_THRESHOLD = 0.6  # calibrated (README, "Similar hand-ins"): a pair is listed when either share reaches it
MIN_MATCH = 80  # normalised characters the two must share (three or four lines): a few shared lines are not a copy
COMMON_MIN = 8  # a k-gram in this many documents (hand-ins, archive, the kit's corpus) is common ...
COMMON_SHARE = 0.05  # ... or in this share of them, whichever is more


@dataclass(frozen=True)
class Match:
    share_a: float  # of a's code left after setting aside, the share found in b
    share_b: float  # the same for b
    chars: int  # normalised characters of a that b shares
    spans_a: tuple[tuple[int, int], ...]  # (start, end) in a's text of what b shares
    spans_b: tuple[tuple[int, int], ...]

    @property
    def share(self) -> float:
        return max(self.share_a, self.share_b)


def fingerprint(text: str):
    """copydetect's fingerprint of Python code `text` (nothing set aside yet)."""
    from copydetect import CodeFingerprint

    found = CodeFingerprint("handin.py", NOISE, WINDOW, fp=io.StringIO(text), language="python")
    _mend_class_offsets(found)
    # numpy's integers as Python's: the same hashes, and sets and dicts of them cost a third less
    found.hashes = {int(h) for h in found.hashes}
    found.hash_idx = {int(h): [int(i) for i in where] for h, where in found.hash_idx.items()}
    return found


def fingerprints(texts: list[str]) -> list:
    """copydetect's fingerprint of each text, or why it has none (the name of what the tokenizer raised): a text
    the tokenizer cannot read costs only itself."""
    found = []
    for text in texts:
        try:
            found.append(fingerprint(text))
        except Exception as exc:
            found.append(type(exc).__name__)
    return found


def listed(prints: list, pairs: list[tuple[int, int]], threshold: float) -> list[tuple[int, int, Match]]:
    """(i, j, copydetect's comparison) of each pair of `pairs` that ``flagged`` lists."""
    found = []
    for i, j in pairs:
        match = compare(prints[i], prints[j])
        if flagged(match, threshold):
            found.append((i, j, match))
    return found


def hashes_of(texts: Iterable[str]) -> set:
    """Every fingerprint of `texts` (each a document of its own)."""
    found: set = set()
    for text in texts:
        found |= fingerprint(text).hashes
    return found


def common_limit(documents: int) -> int:
    """How many documents a k-gram must be in to count as common."""
    return max(COMMON_MIN, math.ceil(COMMON_SHARE * documents))


def set_aside(prints: list, drop: set) -> None:
    """Remove the fingerprints in `drop` from each of `prints` (in place), and count again what is left, as
    copydetect does with its boilerplate."""
    from copydetect.utils import get_token_coverage

    for found in prints:
        if found.hashes & drop:
            found.hashes = found.hashes - drop
            found.hash_idx = {h: where for h, where in found.hash_idx.items() if h not in drop}
            found.token_coverage = get_token_coverage(found.hash_idx, NOISE, len(found.filtered_code))


def common_hashes(prints: list, background: list[set]) -> set:
    """The fingerprints found in at least ``common_limit`` documents: `prints` (hand-ins and archive) and the
    `background` (each a set of fingerprints of one document of the kit's corpus)."""
    counts: dict = defaultdict(int)
    for hashes in [p.hashes for p in prints] + background:
        for h in hashes:
            counts[h] += 1
    limit = common_limit(len(prints) + len(background))
    return {h for h, n in counts.items() if n >= limit}


def candidates(prints: list, archived: list[bool], threshold: float) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, that could be listed at `threshold`: they share fingerprints at enough places.

    Each place where a shared fingerprint starts adds at most ``NOISE`` characters to what copydetect finds shared,
    so a pair is compared only when ``NOISE`` times those places reaches ``MIN_MATCH`` and the threshold's share of
    one side's fingerprinted code: a bound, never an estimate, so no pair that would be listed is left out. Two
    archived documents are never a pair."""
    index: dict = defaultdict(list)
    for i, found in enumerate(prints):
        for h, where in found.hash_idx.items():
            index[h].append((i, len(where)))
    places: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for holders in index.values():
        for x, (i, at_i) in enumerate(holders):
            for j, at_j in holders[x + 1 :]:
                if not (archived[i] and archived[j]):
                    counts = places[(i, j)]
                    counts[0] += at_i
                    counts[1] += at_j

    def reaches(i: int, at: int) -> bool:
        return NOISE * at >= threshold * prints[i].token_coverage

    return sorted(
        (i, j)
        for (i, j), (at_i, at_j) in places.items()
        if NOISE * max(at_i, at_j) >= MIN_MATCH and (reaches(i, at_i) or reaches(j, at_j))
    )


def _spans(slices) -> tuple[tuple[int, int], ...]:
    if len(slices) == 0 or len(slices[0]) == 0:
        return ()
    return tuple((int(a), int(b)) for a, b in zip(slices[0], slices[1], strict=True))


def compare(a, b) -> Match:
    """copydetect's comparison of two fingerprints."""
    from copydetect import compare_files

    chars, (share_a, share_b), (slices_a, slices_b) = compare_files(a, b)
    return Match(float(share_a), float(share_b), int(chars), _spans(slices_a), _spans(slices_b))


def flagged(match: Match, threshold: float) -> bool:
    """Whether a pair is listed: either share at the threshold, over at least MIN_MATCH shared characters."""
    return match.share >= threshold and match.chars >= MIN_MATCH


def _mend_class_offsets(found) -> None:
    """copydetect 0.5 records, for a class name, its length where the running offset belongs (``filter_code``),
    so a match next to a class name would be drawn in the wrong place; put the running offset there. A class
    name's entry is the first at an ``O`` of the normalised code; the entry after it holds the offset plus the
    name's length less one, which is the value recorded."""
    import numpy as np

    offsets, code = found.offsets, found.filtered_code
    if len(offsets) < 2:
        return
    positions = offsets[:, 0]
    removed = len(found.raw_code) - len(code)
    for i in range(1, len(offsets)):
        p = int(positions[i])
        if positions[i - 1] == p or not (0 <= p < len(code)) or code[p] != "O":
            continue
        after = int(offsets[i + 1, 1]) if i + 1 < len(offsets) else removed
        offsets[i, 1] = after - int(offsets[i, 1])
    found.offsets = np.asarray(offsets)
