"""Trusted: the class report's misconceptions: one root cause per student, counted once, ranked by students.

A failing test's message names the misconception behind it with a keyword of the grader's MISCONCEPTIONS.md
(``classview.read_keywords``). One mistake fails several tests, and a message that cannot tell two causes
apart names both ("copied table or untied head", "no crop / wrong crop"), so counting keywords per message
counts mistakes that did not happen. Per student:

1. a keyword that some message names alone is a cause the grader established (``definite``); those are the
   student's root causes, and a message naming several keywords, one of them definite, is explained by it;
2. with no definite keyword, the keyword named by the most failing tests is the root cause; when several are
   named equally often, the one that two or more messages all name first (the grader lists the likeliest
   cause first), else one entry for them together ("no crop or wrong crop"), never one entry per keyword;
3. a student with no keyword at all is filed under the exception their code raised, else under the test.

Each student counts once per entry. The sample message is an English student's when there is one (the report
is in the instructor's language); a message shown in another language is marked with it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from autograder.outputs.classview import ClassView, Row, misconception_of, raised_type
from autograder.outputs.wording import NO_RESULT, clean_message, readable_test

__all__ = ["root_causes", "misconceptions", "Misconception"]

_EXAMPLES = 3  # students named per misconception
_SAMPLE = 400  # characters of the sample message


@dataclass
class Misconception:
    name: str
    students: list[Row] = field(default_factory=list)
    sample: str = ""
    sample_language: str = "en"
    tests: set[str] = field(default_factory=set)

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


def _named(message: str, keywords: list[str]) -> list[str]:
    """The keywords a message names, without one that is only part of another it names."""
    names = misconception_of(message, keywords)
    return [n for n in names if not any(n != m and n.lower() in m.lower() for m in names)]


def _first(message: str, names: list[str]) -> str:
    """The one of `names` the message mentions first."""
    low = message.lower()
    return min((n for n in names if n.lower() in low), key=lambda n: low.index(n.lower()), default="")


def root_causes(row: Row, keywords: list[str]) -> dict[str, tuple[str, set[str]]]:
    """name -> (a message showing it, the tests that showed it): one student's root causes (see the module)."""
    named: list[tuple[list[str], str, str]] = []  # (keywords, message, readable test)
    unnamed: dict[str, tuple[str, set[str]]] = {}
    for test in row.result.failing():
        message = clean_message(test.output)
        if NO_RESULT.match(message):  # the run never got there (time limit, crash): no mistake shown
            continue
        names = _named(message, keywords)
        if names:
            named.append((names, message, readable_test(test.name)))
            continue
        raised = raised_type(message)
        label = f"your code raised {raised}" if raised else f"fails “{readable_test(test.name)}” (unnamed)"
        unnamed.setdefault(label, (message, set()))[1].add(readable_test(test.name))
    if not named:
        return unnamed
    definite = {names[0] for names, _, _ in named if len(names) == 1}
    if definite:
        samples = {names[0]: message for names, message, _ in reversed(named) if len(names) == 1}
        return {name: (samples[name], {test for names, _, test in named if name in names}) for name in sorted(definite)}
    votes = Counter(name for names, _, _ in named for name in names)
    top = max(votes.values())
    leaders = [name for name in votes if votes[name] == top]
    firsts = {_first(message, leaders) for names, message, _ in named if set(leaders) & set(names)}
    if len(leaders) > 1 and len(firsts) == 1 and sum(bool(set(leaders) & set(n)) for n, _, _ in named) > 1:
        leaders = [firsts.pop()]  # every message lists the same cause first: the grader's likeliest one
    tests = {test for names, _, test in named if set(leaders) & set(names)}
    sample = next(message for names, message, _ in named if set(leaders) & set(names))
    low = sample.lower()
    label = " or ".join(sorted(leaders, key=lambda n: low.find(n.lower()) % (len(low) + 1)))  # as the message says
    return {label: (sample, tests)}


def misconceptions(view: ClassView, keywords: list[str]) -> list[Misconception]:
    """Root causes ranked by how many judged students show them (each student once per cause)."""
    found: dict[str, Misconception] = {}
    for row in view.judged:
        for name, (message, tests) in root_causes(row, keywords).items():
            entry = found.setdefault(name, Misconception(name))
            entry.students.append(row)
            entry.tests |= tests
            language = row.result.language or "en"
            if message and (not entry.sample or (entry.sample_language != "en" and language == "en")):
                entry.sample, entry.sample_language = message, language
    return sorted(found.values(), key=lambda e: (-len(e.students), e.name))
