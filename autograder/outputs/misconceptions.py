"""Trusted: the class report's misconceptions: the charges the marking scheme made, counted per student.

A misconception appears here when the marks charged it (``TestOutcome.charged_to``: the scheme's
misconception id, once per exercise), never because a message mentions it: crashes and values nobody could
name cost their own points and are not misconceptions. Each student counts once per misconception (in either
exercise). What students read is said message by message: the students who read the same message (in the
same edition, with the same failing tests) share one sample, and each sample names them when there are several,
so a message is never shown as what a student did not read. Samples of the report's language come first (English
by default, Chinese with ``grade --language zh``); one shown in another language is marked with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grading.marking import MISCONCEPTION
from autograder.outputs.charges import Card, cards
from autograder.outputs.classview import ClassView, Row

__all__ = ["misconceptions", "charged_misconceptions", "Misconception", "Sample"]

_EXAMPLES = 3  # students named per misconception
_SAMPLE = 400  # characters of the sample message


@dataclass
class Sample:
    """One message students read under a misconception's card, with who read it and the tests that failed."""

    message: str
    language: str  # the edition it was read in
    tests: list[str]  # the titles of the tests their cards cover, the page's order
    students: list[Row] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [row.name for row in self.students[:_EXAMPLES]]

    @property
    def more(self) -> bool:
        return len(self.students) > _EXAMPLES

    @property
    def shown(self) -> str:
        """The message, or its first sentences or clauses up to ``_SAMPLE`` characters (``cut``) and "…"."""
        return self.message if len(self.message) <= _SAMPLE else cut(self.message, _SAMPLE) + " …"


# where a sentence ends, then where a clause ends: a Chinese mark, or an English one before a space or a line break
# ("torch.nn" is no end)
_SENTENCE_ENDS = ("。", "！", "？", "\n", ". ", "! ", "? ")
_CLAUSE_ENDS = ("；", "，", "：", "; ", ", ", ": ")


def cut(message: str, limit: int) -> str:
    """`message`'s first `limit` characters at most, cut after the last sentence end in their second half; with
    none there, after the last clause end there ("，"); with neither, at the last space (a whole word: never inside
    an identifier such as ``lm_head.weight``); with no space either, at `limit`."""
    head = message[: limit + 1]  # a mark right at the limit still ends the clause
    at = 0
    for marks in (_SENTENCE_ENDS, _CLAUSE_ENDS):
        ends = [head.rfind(m) + len(m.rstrip()) for m in marks if limit // 2 <= head.rfind(m) < limit]
        at = at or max(ends, default=0)
    at = at or head.rfind(" ", 0, limit)
    return message[: at if at > 0 else limit].rstrip()


@dataclass
class Misconception:
    name: str  # its title, in English
    key: str = ""  # the marking scheme's id
    students: list[Row] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)  # the report's language first, then most students first
    tests: list[str] = field(default_factory=list)  # the titles of the tests its cards cover, the page's order
    points: float = 0.0  # what it cost the class, in all

    @property
    def sample(self) -> str:
        return self.samples[0].message if self.samples else ""

    @property
    def sample_language(self) -> str:
        return self.samples[0].language if self.samples else "en"

    @property
    def examples(self) -> list[Row]:
        return self.students[:_EXAMPLES]

    @property
    def more(self) -> bool:
        return len(self.students) > _EXAMPLES


def charged_misconceptions(row: Row) -> dict[str, list]:
    """scheme id -> the student's failing tests that carry its charge (none for an unmarked result)."""
    out: dict[str, list] = {}
    for test in row.result.failing() if row.result is not None else []:
        if test.charged_to.startswith(MISCONCEPTION):
            out.setdefault(test.charged_to[len(MISCONCEPTION) :], []).append(test)
    return out


def misconceptions(view: ClassView, language: str = "en") -> list[Misconception]:
    """The misconceptions charged, ranked by how many judged students show them (each student once); titles,
    test names and the sample (a student's of that edition when there is one) in the report's `language`, as
    each result was rendered when graded."""
    found: dict[str, Misconception] = {}
    read: dict[tuple, Sample] = {}  # (misconception, edition, message, tests) -> the students who read it
    # a test's title -> its area's place and its own in the suite: the page's order (a card's tests area by area)
    order: dict[str, tuple[int, int]] = {}
    for row in view.judged:
        shown = row.result.shown_in(language)
        rank = {a.area: i for i, a in enumerate(shown.areas)}
        order.update(
            (t.title, (rank.get(t.area, len(rank)), i)) for i, t in enumerate(shown.tests) if t.title not in order
        )
        edition = row.result.language or "en"
        for key, tests in charged_misconceptions(row).items():
            page = _cards_of(key, cards(shown))
            title = page[0].title if page else key
            entry = found.setdefault(key, Misconception(title, key))
            entry.students.append(row)
            entry.points += sum(t.charged or 0.0 for t in tests)
            covered = [item["name"] for card in page for item in card.tests]
            covered = list(dict.fromkeys(covered or [shown.test(t.name).title for t in tests]))
            entry.tests += [name for name in covered if name not in entry.tests]
            own = _cards_of(key, cards(row.result.shown_in(edition)))
            # the message the student's page leads the misconception's card with (its charge's lead test)
            message = own[0].message if own else row.result.shown_in(edition).test(tests[0].name).message
            covered.sort(key=lambda name: order.get(name, (len(order), 0)))
            sample = read.get((key, edition, message, tuple(covered)))
            if sample is None:
                sample = read[(key, edition, message, tuple(covered))] = Sample(message, edition, covered)
                entry.samples.append(sample)
            sample.students.append(row)
    for entry in found.values():
        entry.tests.sort(key=lambda name: order.get(name, (len(order), 0)))
        entry.samples.sort(key=lambda s: (s.language != language, -len(s.students)))  # stable: first read first
    return sorted(found.values(), key=lambda e: (-len(e.students), e.name))


def _cards_of(key: str, page: list[Card]) -> list[Card]:
    """The cards of a page that charge misconception `key` (one per exercise it costs in), as the page orders them."""
    return [card for card in page if card.misconception == key]
