"""Trusted: a result's lost points as the terminal, the pages and the report show them: its charges as cards.

The charges are the result's own, worded when it was graded (``Shown.charges``: the marking scheme's breakdown,
``grading.rendering``), so the points shown lost always sum to the points lost and nothing here marks or
renders. For reading, charges of their own points for the same reason share one card (a stub that raises
``NotImplementedError`` reads as one card, not twenty): the reason is the findings' structure, recorded when
rendered (``ShownCharge.reason``), never their words, so it groups the same in every language. A mistake is
said in full once: a card whose message is one shown above (the same test leads two misconceptions' cards) says
whose it is (``Card.same_as``), and one that opens with the same message as a card above says it short
(``ShownCharge.again``: "The same syntax error leaves MiniGPTWithWeightTying undefined too"), both read from ids;
cards that open with the same message read in the notebook's order (exercise 1's first) in the places their points
give them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grading.shown import Shown, ShownCharge, ShownTest
from autograder.grading.titles import readable_test

__all__ = ["Card", "cards"]


@dataclass
class Card:
    title: str  # what the charge is for: a misconception's title, or the failing tests' shared message
    message: str  # what the student reads about it (the message of the test that says it)
    points: float  # the points it costs
    exercise: int
    misconception: str | None  # the scheme's id, when the card is a misconception's charge
    kind: str  # the finding's kind: "misconception", "plain", "owed", "internal", "knock-on"
    # {"test", "name", "area", "points", "lost", "what", "fed", "part", "free", "cap", "capped"} per test, grouped by
    # area in the areas' order ("part": what of its points another misconception's charge takes, in words; "" when
    # none; "free": it costs nothing at all, as the marking decided (ShownCharge.free), where a test losing nothing
    # is otherwise covered by a charge; "cap": on the last test of an area, the sentence of `caps` about that area;
    # "capped": its area has such a sentence, which says the cost: the test is said by its worth alone)
    tests: list[dict] = field(default_factory=list)
    caps: tuple[str, ...] = ()  # areas where the misconception's cost leaves the rest uncharged, a sentence each
    same_as: str = ""  # the title of the card above whose message this one's is (then `message` is not repeated)
    lead: str = ""  # the test whose message the card shows


def cards(shown: Shown) -> list[Card]:
    """The charges of a result as `shown`, as cards, most points first (ties: the suite's order)."""
    out: list[Card] = []
    grouped: dict[tuple, Card] = {}
    tests = {t.test: t for t in shown.tests}
    openings: dict[int, tuple[str, str]] = {}  # id(card) -> (the catalog id its message opens with, said short)
    for charge in shown.charges:
        items = [_item(tests[name], lost, part, name in charge.free) for name, lost, part in charge.tests]
        message = tests[charge.lead].message or readable_test(charge.lead)
        if charge.misconception:
            kind = "misconception"
            card = Card(charge.title, message, charge.points, charge.exercise, charge.misconception, kind, items)
            card.caps, card.lead = charge.caps, charge.lead
            _group_by_area(card, shown, charge)  # each cap note by its area's tests
            out.append(card)
            continue
        key = (charge.exercise, charge.reason)
        card = grouped.get(key)
        if card is None:
            card = grouped[key] = Card(message, message, 0.0, charge.exercise, None, charge.kind, lead=charge.lead)
            openings[id(card)] = (charge.opening, charge.again)
            out.append(card)
        card.points = round(card.points + charge.points, 6)
        card.tests += items
    for card in grouped.values():  # read area by area, in the areas' order (the last line's)
        _group_by_area(card, shown, None)
    order = {t.test: i for i, t in enumerate(shown.tests)}
    first = lambda card: min(order[i["test"]] for i in card.tests)  # noqa: E731
    out.sort(key=lambda c: (-c.points, first(c)))
    # Cards that open with the same message (two classes missing behind one syntax error) read in the notebook's
    # order, in the places they hold: the second says "the same ... too" of the first.
    for opening in {o for o, _ in openings.values() if o}:
        places = [n for n, c in enumerate(out) if openings.get(id(c), ("", ""))[0] == opening]
        ranked = sorted((out[n] for n in places), key=lambda c: (c.exercise, first(c)))
        for n, card in zip(places, ranked, strict=True):
            out[n] = card
    leads: dict[str, str] = {}  # a lead test shown above -> its card's title
    opened: set[str] = set()
    for card in out:  # as read, top to bottom
        opening, again = openings.get(id(card), ("", ""))
        if card.misconception and card.lead in leads:
            card.same_as = leads[card.lead]
        elif again and opening in opened:
            card.title = card.message = again
        leads.setdefault(card.lead, card.title)
        opened.add(opening)
    return out


def _group_by_area(card: Card, shown: Shown, charge: ShownCharge | None) -> None:
    """`card`'s tests grouped by area in the areas' order (the suite's within one), and each sentence of its
    charge's caps on the last test of the area it speaks of (``ShownCharge.cap_areas``)."""
    rank = {a.area: i for i, a in enumerate(shown.areas)}
    area_of = {t.test: t.area for t in shown.tests}
    card.tests.sort(key=lambda item: rank.get(area_of[item["test"]], len(rank)))  # stable: the suite's order within
    if charge is None or not card.misconception:
        return
    for area, sentence in zip(charge.cap_areas, charge.caps, strict=False):
        inside = [item for item in card.tests if area_of[item["test"]] == area]
        for item in inside:
            item["capped"] = True
        for item in inside[-1:]:
            item["cap"] = sentence


def _item(test: ShownTest, lost: float, part: str, free: bool) -> dict:
    return {
        "test": test.test,
        "name": test.title,
        "area": test.area_name,  # in the shown language
        "points": test.points,
        "lost": lost,
        "what": test.what,
        "fed": test.fed,
        "part": part,
        "free": free,
        "cap": "",
        "capped": False,
    }
