"""Trusted: a result's lost points as every output shows them: the mark's charges, grouped for reading.

The marking scheme's breakdown (``grading.marking.breakdown``) is the list of charges: one per misconception
and exercise, one per test that costs its own points. Pages, the terminal and the class report show the same
list, so the points shown lost always sum to the points lost. For reading, tests that cost their own points
for the same reason share one card (a stub that raises ``NotImplementedError`` reads as one card, not
twenty): the reason is read from the findings' structure (the message id and what the student's code
raised), never from their words, so it groups the same in every language.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.graders.spec import AssignmentSpec
from autograder.grading.editions import charge_title, part_words, test_title
from autograder.grading.findings import Finding
from autograder.grading.marking import breakdown, part_of
from autograder.grading.messages import clean_message
from autograder.grading.result import Result, TestOutcome

__all__ = ["Card", "cards", "reason_key"]

# Parameters that name what a test was checking (the subject), not why it failed: left out of a reason.
_SUBJECTS = frozenset({"what", "call", "label", "model"})


@dataclass
class Card:
    title: str  # what the charge is for: a misconception's title, or the failing tests' shared message
    message: str  # what the student reads about it (the message of the first test that shows it)
    points: float  # the points it costs
    exercise: int
    misconception: str | None  # the scheme's id, when the card is a misconception's charge
    kind: str  # the finding's kind: "misconception", "plain", "owed", "internal", "knock-on"
    # {"name", "area", "points", "lost", "test", "what", "part"} per test ("part": why it carries only part of its
    # points here, in words; "" when it carries all of them or none)
    tests: list[dict] = field(default_factory=list)


def reason_key(finding: Finding | None) -> tuple:
    """What makes two failures the same reason: the opening message's id and its parameters, the subject
    aside (what the student's code raised is one of them: the same exception groups)."""
    if finding is None:
        return ("passed",)
    first = finding.said.first()
    params = tuple(
        sorted(
            (k, v if isinstance(v, str) else repr(v.to_wire())) for k, v in first.params.items() if k not in _SUBJECTS
        )
    )
    return (finding.kind, first.key, params)


def cards(result: Result, spec: AssignmentSpec | None, language: str | None = None) -> list[Card]:
    """The charges of `result` as cards, most points first (ties: the suite's order)."""
    language = language or result.language
    scheme = spec.scheme if spec is not None else None
    by_name = {t.name: t for t in result.tests}
    out: list[Card] = []
    grouped: dict[tuple, Card] = {}
    for charge in breakdown(result.tests, scheme):
        members = [by_name[name] for name, _ in charge.tests]
        carried = dict(charge.tests)
        cause = charge.cause if charge.misconception else None
        items = [_item(t, carried[t.name], spec, language, cause) for t in members]
        if charge.misconception:
            lead = _lead(members, charge.cause, scheme)
            title = charge_title(spec, charge, language)
            out.append(
                Card(
                    title,
                    _message(lead, language),
                    charge.points,
                    charge.exercise,
                    charge.cause,
                    "misconception",
                    items,
                )
            )
            continue
        test = members[0]
        key = (charge.exercise, reason_key(test.finding))
        card = grouped.get(key)
        if card is None:
            message = _message(test, language)
            kind = test.finding.kind if test.finding is not None else "plain"
            card = grouped[key] = Card(message, message, 0.0, charge.exercise, None, kind)
            out.append(card)
        card.points = round(card.points + charge.points, 6)
        card.tests += items
    order = {t.name: i for i, t in enumerate(result.tests)}
    return sorted(out, key=lambda c: (-c.points, min(order[i["test"]] for i in c.tests)))


def _lead(members: list[TestOutcome], cause: str, scheme) -> TestOutcome:
    """The test whose message a misconception's card opens with: one that names it, in the area where it costs
    most (the precise diagnosis: a copied table by its identity test, not by the count's list of causes)."""
    costs = scheme.misconceptions[cause].costs if scheme is not None and cause in scheme.misconceptions else {}
    named = [t for t in members if t.finding is not None and t.finding.names == cause]
    named = named or [t for t in members if t.finding is not None and t.finding.names is not None]
    return max(named, key=lambda t: costs.get(t.area, 0), default=members[0])  # ties: the suite's order


def _message(test: TestOutcome, language: str) -> str:
    return clean_message(test.message(language)) or test_title(None, test.name, language)


def _item(test: TestOutcome, lost: float, spec: AssignmentSpec | None, language: str, cause: str | None) -> dict:
    subject = test.finding.said.first().params.get("what") if test.finding is not None else None
    what = ""
    # A bare class name ("TiedEmbeddingLM") adds nothing to the test's title, which names the class: left out.
    if subject is not None and not (isinstance(subject, str) and subject.isidentifier()):
        from autograder.protocol.said import render

        what = subject if isinstance(subject, str) else render(subject, language)
    return {
        "test": test.name,
        "name": test_title(spec, test.name, language),
        "area": test.area,
        "points": test.points,
        "lost": lost,
        "what": clean_message(what),
        "part": _part(test, cause, spec, language),
    }


def _part(test: TestOutcome, cause: str | None, spec: AssignmentSpec | None, language: str) -> str:
    """Why `test` carries only part of its points in misconception `cause`'s charge, in words ("" otherwise)."""
    part = part_of(test, cause, spec.scheme) if cause is not None and spec is not None else None
    return part_words(spec, part, language) if part is not None else ""
