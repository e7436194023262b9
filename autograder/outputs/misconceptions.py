"""Trusted: the class report's misconceptions: the charges the marking scheme made, counted per student.

A misconception appears here when the marks charged it (``TestOutcome.charged_to``: the scheme's
misconception id, once per exercise), never because a message mentions it: crashes and values nobody could
name cost their own points and are not misconceptions. Each student counts once per misconception (in either
exercise); the sample message is a student's of the report's language when there is one (English by default,
Chinese with ``grade --language zh``), and one shown in another language is marked with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grading.marking import MISCONCEPTION
from autograder.outputs.classview import ClassView, Row

__all__ = ["misconceptions", "charged_misconceptions", "Misconception"]

_EXAMPLES = 3  # students named per misconception
_SAMPLE = 400  # characters of the sample message


@dataclass
class Misconception:
    name: str  # its title, in English
    key: str = ""  # the marking scheme's id
    students: list[Row] = field(default_factory=list)
    sample: str = ""
    sample_language: str = "en"
    tests: set[str] = field(default_factory=set)
    points: float = 0.0  # what it cost the class, in all

    @property
    def examples(self) -> list[Row]:
        return self.students[:_EXAMPLES]

    @property
    def more(self) -> bool:
        return len(self.students) > _EXAMPLES

    @property
    def shown_sample(self) -> str:
        return self.sample if len(self.sample) <= _SAMPLE else self.sample[:_SAMPLE] + " …"

    @property
    def shown_tests(self) -> str:
        return ", ".join(sorted(self.tests)[:6])


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
    for row in view.judged:
        shown = row.result.shown_in(language)
        for key, tests in charged_misconceptions(row).items():
            title = next((c.title for c in shown.charges if c.misconception == key), key)
            entry = found.setdefault(key, Misconception(title, key))
            entry.students.append(row)
            entry.points += sum(t.charged or 0.0 for t in tests)
            entry.tests |= {shown.test(t.name).title for t in tests}
            edition = row.result.language or "en"
            lead = next((t for t in tests if t.finding is not None and t.finding.names == key), tests[0])
            if not entry.sample or (entry.sample_language != language and edition == language):
                entry.sample, entry.sample_language = row.result.shown_in(edition).test(lead.name).message, edition
    return sorted(found.values(), key=lambda e: (-len(e.students), e.name))
