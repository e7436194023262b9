"""Trusted: what an instructor reads of the similarity pass: a side-by-side page per pair, the "Similar hand-ins"
section (the class report's, and ``similarity.html`` of its own), and each pair in *Needs a look*.

Every page is an autoescaped template (``outputs.html``): a student's code reaches it only as text segments,
each escaped, the shared ones inside ``<mark>``. Nothing here is written into ``feedback/`` or any result: a
student never sees that they were compared, nor with whom. The words are the instructor's language
(``grade --language``, ``similarity --language``): the report's catalog (``messages_similarity``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from autograder.outputs.atomic import write_text
from autograder.outputs.html import render
from autograder.outputs.messages_report import report_words
from autograder.outputs.similarity.engine import MIN_MATCH, Match
from autograder.outputs.similarity.store import Outcome, Pair
from autograder.protocol.said import from_wire
from autograder.protocol.said import render as render_said

__all__ = ["segments", "write_pages", "write_index", "prune", "section", "needs_a_look", "Linked", "SIMILAR", "TO_DO"]

SIMILAR = "similar hand-ins"  # the Needs a look group
TO_DO = (
    "open the side-by-side page (marked: what both wrote beyond the starter and common code); on an exercise this "
    "short it is a reason to talk to both students, not proof"
)
_INDEX = "similarity.html"


class Linked(str):
    """A detail of *Needs a look* that opens a page (the report's template links it)."""

    href: str

    def __new__(cls, text: str, href: str) -> Linked:
        made = super().__new__(cls, text)
        made.href = href
        return made


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _snapped(text: str, start: int, end: int) -> tuple[int, int]:
    """A span widened to whole words: copydetect maps a match back to the raw text within a token or so."""
    while 0 < start < len(text) and _word(text[start - 1]) and _word(text[start]):
        start -= 1
    while 0 < end < len(text) and _word(text[end - 1]) and _word(text[end]):
        end += 1
    return start, end


def segments(text: str, spans: tuple[tuple[int, int], ...]) -> list[tuple[str, bool]]:
    """`text` cut at `spans` (clipped to the text, widened to whole words, merged): [(piece, shared), ...] covering
    it whole."""
    merged: list[list[int]] = []
    clipped = ((max(0, a), min(len(text), b)) for a, b in spans)
    for start, end in sorted(_snapped(text, a, b) for a, b in clipped):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces, at = [], 0
    for start, end in merged:
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text) or not pieces:
        pieces.append((text[at:], False))
    return pieces


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


def _side(name: str, share: float, other: str, pieces: list[tuple[str, bool]]) -> dict:
    return {"name": name, "share": _percent(share), "other": other, "pieces": pieces}


def _examples(places: Mapping[str, str], w: dict[str, str]) -> tuple[str, list[str]]:
    """'“# cell 15”', or '“# part 2”', or both: the first place line of each kind the two hand-ins hold
    (``Written.places``, in the page's language); and what each kind means, a sentence each."""
    found = {kind: places[kind] for kind in ("cell", "part") if kind in places}
    found = found or {"cell": w["similar.place.cell"].format(n=1)}
    return w["list"].join(f"“{line}”" for line in found.values()), [w[f"similar.marker.{kind}"] for kind in found]


def write_pages(
    out: Path,
    pair: Pair,
    match: Match,
    text_a: str,
    text_b: str,
    language: str = "en",
    *,
    places: Mapping[str, str] | None = None,
) -> Path:
    """The pair's side-by-side page (``pair.page``), each side's shared code marked, in `language`; `places`: the
    first place line of each kind the two texts hold (``Written.places``)."""
    w = report_words(language)
    other = w["similar.archived_hand_in"].format(name=pair.b_name) if pair.archived else pair.b_name
    sides = [
        _side(pair.a_name, pair.share_a, other, segments(text_a, match.spans_a)),
        _side(other, pair.share_b, pair.a_name, segments(text_b, match.spans_b)),
    ]
    html = render(
        "similar.html.j2",
        lang=language,
        w=w,
        wide=True,
        title=w["similar.pair_title"].format(first=pair.a_name, second=other),
        sides=sides,
        chars=pair.chars,
        example=_examples(places or {}, w)[0],
        markers=_examples(places or {}, w)[1],
        archived=pair.archived,
    )
    return write_text(Path(out) / pair.page, html, durable=False)  # made again by every pass


def prune(out: Path, keep: set[str]) -> None:
    """Remove the side-by-side pages of pairs no longer listed (an earlier pass's)."""
    folder = Path(out) / "similar"
    if not folder.is_dir():
        return
    for page in folder.glob("*.html"):
        if f"similar/{page.name}" not in keep:
            with contextlib.suppress(OSError):
                page.unlink()


def detail(value: object, language: str = "en") -> str:
    """A not-compared hand-in's detail in `language`: the pass stores the kit's own as a message (its wire form), a
    refusal's or an older pass's as text."""
    if isinstance(value, dict):
        if not value:
            return ""
        try:
            return render_said(from_wire(value), language)
        except (KeyError, ValueError, IndexError):  # not one of ours: said as it is
            return str(value)
    return "" if value is None else str(value)


def _entries(entries: list[dict], language: str, w: dict[str, str]) -> list[dict]:
    """Not-compared (and noted) hand-ins with their kinds and details in `language`."""

    def kind(name: object) -> str:
        return w.get(f"similar.kind.{name}", str(name))

    return [
        {
            "name": e.get("name", ""),
            "problem": kind(e.get("problem", "")),
            "notes": w["list"].join(kind(n) for n in e.get("notes", []) if isinstance(n, str)),
            "detail": detail(e.get("detail"), language),
        }
        for e in entries
    ]


def section(outcome: Outcome | None, language: str = "en") -> dict | None:
    """The "Similar hand-ins" section's context, its words in `language` (None: no pass has run on this folder)."""
    if outcome is None:
        return None
    w = report_words(language)
    pairs = [
        {
            "a": p.a_name,
            "b": w["similar.archive"].format(name=p.b_name) if p.archived else p.b_name,
            "share_a": _percent(p.share_a),
            "share_b": _percent(p.share_b),
            "chars": p.chars,
            "page": p.page,
            "alike": p.b_name in outcome.alike_names.get(p.a_name, []),
        }
        for p in outcome.pairs
    ]
    compared = w["similar.compared"].format(n=outcome.hand_ins)
    if outcome.archived:
        archives = w["list"].join(outcome.archives)
        compared += w["similar.with_archives"].format(n=outcome.archived, archives=archives)
    when = outcome.when.replace("T", " ").replace("Z", " UTC")
    if when:
        compared += w["similar.when"].format(when=when)
    return {
        "pairs": pairs,
        "rule": w["similar.rule"].format(compared=compared, threshold=_percent(outcome.threshold), chars=MIN_MATCH),
        "not_compared": _entries(outcome.not_compared, language, w),
        "notes": _entries(outcome.notes, language, w),
        "alike": [
            (name, w["similar.name_alike"].format(names=w["list"].join(others)))
            for name, others in sorted(outcome.alike_names.items())
        ],
        "problems": outcome.problems,
    }


def write_index(out: Path, outcome: Outcome, assignment: str, language: str = "en") -> Path:
    """``similarity.html``: the section as a page of its own (a class run's report holds it too), in `language`;
    `assignment`: its title (``AssignmentSpec.shown_title``) or name."""
    w = report_words(language)
    title = w["similar.index_title"].format(assignment=assignment)
    html = render(
        "similarity.html.j2", lang=language, w=w, wide=False, title=title, similarity=section(outcome, language)
    )
    return write_text(Path(out) / _INDEX, html)


def needs_a_look(rows: list, outcome: Outcome | None, language: str = "en") -> list[tuple[object, Linked]]:
    """(the row of a pair's first student, the pair in words linking its page) for each listed pair, in `language`."""
    by_uid = {row.uid: row for row in rows}
    w = report_words(language)
    found = []
    for pair in outcome.pairs if outcome is not None else []:
        row = by_uid.get(pair.a)
        if row is None:  # a pass older than the class: its next run lists the pair again
            continue
        other = w["similar.archive"].format(name=pair.b_name) if pair.archived else pair.b_name
        words = w["similar.pair"].format(other=other, mine=_percent(pair.share_a), theirs=_percent(pair.share_b))
        found.append((row, Linked(words, pair.page)))
    return found
