"""Trusted: a result as every output shows it, in one language: its words and numbers, made once, when graded.

Step 8 renders a marked result into one ``Shown`` per language the kit speaks (``grading.rendering``), and the
``Result`` carries them. The terminal table, the feedback pages, the class report, the Gradescope JSON and the
gradebook read them as they are: showing a result reads top to bottom and never calls back into the marking
or a catalog to word it. A ``Shown`` holds words and numbers only; what decides anything (a status, which
misconception a test shows) stays in the result's values. ::

    shown = result.shown_in("zh")
    shown.charges[0].title            # "到 forward 里才共享（应在 __init__ 中共享）": what the first charge is for
    shown.test(shown.charges[0].lead).message
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.grading.readable import clean_message
from autograder.protocol.typed import fields_from_wire, wire_fields

__all__ = ["Shown", "ShownTest", "ShownCharge", "ShownArea", "summary_lines"]


@dataclass(frozen=True)
class ShownTest:
    test: str  # the suite's id ("test_identity.py::test_same_parameter"): what the charges name it by
    title: str  # as the reader reads it: its catalog title, its readable name without one
    area: str  # the marking scheme's area (Gradescope's tag, grades.csv's column)
    area_name: str  # the area in this language
    points: float
    passed: bool
    message: str  # why it failed, rendered and cleaned ("" when it passed)
    what: str = ""  # what it was checking, when its title does not say it already
    fed: bool = False  # `what` is an input the test fed the code (a call, a prompt), not a thing it checked


@dataclass(frozen=True)
class ShownCharge:
    """One charge of the mark's breakdown (``marking.breakdown``), worded."""

    title: str  # what it is for: its misconception's title, or its test's
    points: float  # what it costs, in all
    exercise: int
    misconception: str | None  # the scheme's id when it charges a misconception
    kind: str  # "misconception", or the finding's kind of its test ("plain", "owed", "internal", "knock-on")
    lead: str  # the test whose message says it (a misconception: one naming it where it costs most)
    reason: str  # the finding's structure, for charges of their own points read as one (same reason)
    # (test id, points it carries, why only part of its points, or none: "" when it carries all), the suite's order
    tests: tuple[tuple[str, float, str], ...]
    # where the misconception's cost in an area is what leaves its tests' other points uncharged: one sentence
    # per such area (the cap is the area's, once per exercise: said once, not under each test)
    caps: tuple[str, ...] = ()
    cap_areas: tuple[str, ...] = ()  # the area (as the marking scheme names it) each of `caps` speaks of
    # the tests it lists that cost nothing at all (``marking.costs_nothing``: they name the misconception in an
    # area where it costs nothing); every other one that loses nothing is covered by the charge ("not separately")
    free: tuple[str, ...] = ()
    # the lead's message said again, short, for a charge whose lead opens with the same message as a charge
    # shown before it (its catalog's ``<id>.again``: "TiedEmbeddingLM is not defined either"); "" without one
    again: str = ""
    opening: str = ""  # the catalog id the lead's message opens with: which charges say the same thing


@dataclass(frozen=True)
class ShownArea:
    area: str  # as the marking scheme names it
    name: str  # in this language
    got: float
    top: float


@dataclass(frozen=True)
class Shown:
    language: str
    summary: str  # how the run went, in sentences (the engine's catalog): the result's ``output`` in this language
    run_lines: tuple[str, ...]  # the same, cleaned for reading, line by line; where the time ran out on a timeout
    stopped: str  # where the time ran out ("while running cell 3 (...)"), "" unless the run timed out
    tests: tuple[ShownTest, ...]  # every test, in the suite's order
    charges: tuple[ShownCharge, ...]  # the mark's breakdown, in its order: they sum to the points lost
    areas: tuple[ShownArea, ...]  # in the marking scheme's order (the notebook's)

    @classmethod
    def bare(cls, language: str, summary: str) -> Shown:
        """A result with nothing but its summary (the grader could not grade it): no tests, no charges."""
        return cls(language, summary, summary_lines(summary), "", (), (), ())

    def test(self, test_id: str) -> ShownTest:
        """The test `test_id` as shown; KeyError naming it when the result has no such test."""
        for test in self.tests:
            if test.test == test_id:
                return test
        raise KeyError(f"no test {test_id!r} in this result")

    @property
    def passed(self) -> list[ShownTest]:
        return [t for t in self.tests if t.passed]

    def to_wire(self) -> dict:
        return {
            **wire_fields(self, skip=("tests", "charges", "areas")),
            "tests": [wire_fields(t) for t in self.tests],
            "charges": [{**wire_fields(c), "tests": [list(t) for t in c.tests]} for c in self.charges],
            "areas": [wire_fields(a) for a in self.areas],
        }

    @classmethod
    def from_wire(cls, data: Any) -> Shown:
        """ValueError naming the field that is not what it should be."""
        fields = fields_from_wire(cls, data, "a shown result", skip=("tests", "charges", "areas"))
        lists = {name: data.get(name) for name in ("tests", "charges", "areas")}
        if not all(isinstance(value, list) for value in lists.values()):
            raise ValueError(f"a shown result's tests, charges and areas are lists, not {str(lists)[:120]!r}")
        if not all(isinstance(line, str) for line in fields["run_lines"]):
            raise ValueError(f"a shown result's run_lines are text, not {fields['run_lines']!r:.120}")
        return cls(
            **fields,
            tests=tuple(ShownTest(**fields_from_wire(ShownTest, t, "a shown test")) for t in lists["tests"]),
            charges=tuple(_charge(c) for c in lists["charges"]),
            areas=tuple(ShownArea(**fields_from_wire(ShownArea, a, "a shown area")) for a in lists["areas"]),
        )


def summary_lines(summary: str) -> tuple[str, ...]:
    """A run's summary as the terminal and the pages list it: cleaned for reading, line by line, none empty."""
    return tuple(line for line in clean_message(summary).splitlines() if line.strip())


def _charge(data: Any) -> ShownCharge:
    fields = fields_from_wire(ShownCharge, data, "a shown charge")
    tests = fields["tests"]
    if not all(
        isinstance(t, (list, tuple))
        and len(t) == 3
        and isinstance(t[0], str)
        and isinstance(t[1], (int, float))
        and not isinstance(t[1], bool)
        and isinstance(t[2], str)
        for t in tests
    ):
        raise ValueError(f"a shown charge's tests are [test id, points, part] triples, not {tests!r:.120}")
    if not all(isinstance(cap, str) for cap in fields.get("caps", ())):
        raise ValueError(f"a shown charge's caps are sentences, not {fields['caps']!r:.120}")
    if not all(isinstance(area, str) for area in fields.get("cap_areas", ())):
        raise ValueError(f"a shown charge's cap_areas are area names, not {fields['cap_areas']!r:.120}")
    if not all(isinstance(name, str) for name in fields.get("free", ())):
        raise ValueError(f"a shown charge's free tests are test ids, not {fields['free']!r:.120}")
    return ShownCharge(**{**fields, "tests": tuple((name, float(points), part) for name, points, part in tests)})
