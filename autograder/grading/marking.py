"""Trusted: a grader's marking scheme (``marking.toml`` next to its ``spec.py``) and the rule that turns the
hidden suite's findings into marks.

The scheme is data an instructor reads and edits: the graded areas and their points, every suite test with
its area, points and exercise, and every misconception with what it costs in which area (and which other
misconceptions it explains: ``covers``). The suite's runner reads the tests' points from it, so the notebooks'
points table, ``grades.csv``'s area columns and the gradebook's task cells all follow the one file.

The rule is written at the top of each scheme file; ``Scheme.charges`` is its only implementation. It reads
each failed test's ``Finding`` (``autograder.grading.findings``): ids the judge's code chose, never a message's
words. ``breakdown`` lists the charges a result carries, each once with what it is for: every page, the
terminal, the Gradescope JSON and the gradebook show that list, and it sums to the points lost.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.grading.findings import Finding

__all__ = [
    "GradedTest",
    "Misconception",
    "Scheme",
    "Charge",
    "load_scheme",
    "apply_marking",
    "breakdown",
    "Part",
    "part_of",
    "costs_nothing",
    "scheme_markdown",
    "SCHEME_FILE",
    "OWN",
    "MISCONCEPTION",
]

SCHEME_FILE = "marking.toml"
OWN = "test"  # charged_to of a test that costs its own points
MISCONCEPTION = "misconception:"  # charged_to of a test that carries (part of) a misconception's charge


@dataclass(frozen=True)
class GradedTest:
    name: str  # the suite function's name
    area: str
    points: float
    exercise: int  # the part of the assignment it grades: a misconception is charged once per exercise


@dataclass(frozen=True)
class Misconception:
    name: str  # its id in the scheme (the catalog's ``misconception.<id>`` titles it)
    costs: dict[str, float]  # area -> at most what it costs there, once per exercise it shows in
    covers: tuple[str, ...] = ()  # misconceptions it explains when named in the same exercise (not charged)
    note: str = ""


@dataclass(frozen=True)
class Charge:
    """One line of a mark's breakdown: what was charged, where, and the tests that carry it."""

    exercise: int
    cause: str  # a misconception's id, or a test's name for a test that costs its own points
    misconception: bool  # True: `cause` is a misconception's id
    points: float  # what it costs, in all
    tests: tuple[tuple[str, float], ...]  # (test name, points it carries), in the suite's order


@dataclass(frozen=True)
class Scheme:
    areas: dict[str, float]  # area -> points, in the order the pages list them
    tests: dict[str, GradedTest]
    misconceptions: dict[str, Misconception]
    path: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        totals: dict[str, float] = {}
        for test in self.tests.values():
            if test.area not in self.areas:
                raise ValueError(
                    f"{self.path}: test {test.name} is in area {test.area!r}, not one of {list(self.areas)}"
                )
            totals[test.area] = totals.get(test.area, 0.0) + test.points
        for area, points in self.areas.items():
            if abs(totals.get(area, 0.0) - points) > 1e-9:
                raise ValueError(
                    f"{self.path}: area {area!r} is worth {points:g} points but its tests add up to "
                    f"{totals.get(area, 0.0):g}: make the [tests] points of that area add up to {points:g}"
                )
        for m in self.misconceptions.values():
            both = [c for c in m.covers if c in self.misconceptions and m.name in self.misconceptions[c].covers]
            if both:
                raise ValueError(f"{self.path}: {m.name!r} and {both} cover each other: `covers` goes one way only")
            unknown = [a for a in m.costs if a not in self.areas] + [
                c for c in m.covers if c not in self.misconceptions
            ]
            if unknown:
                raise ValueError(f"{self.path}: misconception {m.name!r} names unknown areas/misconceptions {unknown}")
            if not m.costs or any(cost <= 0 for cost in m.costs.values()):
                raise ValueError(
                    f"{self.path}: misconception {m.name!r} must cost a positive number of points somewhere"
                )

    @property
    def max_score(self) -> float:
        return sum(self.areas.values())

    def exercise(self, name: str) -> int:
        """The exercise of a test (its function name or node id); 0 for a test the scheme does not list."""
        test = self.tests.get(name.rpartition("::")[2])
        return test.exercise if test is not None else 0

    def charges(
        self, outcomes: Iterable[tuple[str, float, str, bool, Finding | None]]
    ) -> dict[str, tuple[float, str, dict[str, float]]]:
        """{test name: (points it loses, what for, {cause: points} when split between causes)} for outcomes
        (name, points, area, passed, finding), by the rule at the top of the scheme file. A name may be a node
        id ("test_x.py::test_y")."""
        outcomes = list(outcomes)
        out: dict[str, tuple[float, str, dict[str, float]]] = {name: (0.0, "", {}) for name, *_ in outcomes}
        if not any(passed for _, _, _, passed, _ in outcomes):  # nothing works: nothing to mark in proportion
            return {name: (points, OWN, {}) for name, points, *_ in outcomes}
        failing = {name: (points, area, finding) for name, points, area, passed, finding in outcomes if not passed}
        by_function = {name.rpartition("::")[2]: name for name in failing}

        def shown(name: str) -> tuple[str, ...]:
            finding = failing[name][2]
            if finding is None or not self.exercise(name):
                return ()
            return tuple(m for m in finding.shown if m in self.misconceptions)

        def waited(name: str) -> str | None:
            """The failing test of the same exercise that names what this knock-on waits on (through a chain)."""
            seen = {name}
            while True:
                finding = failing[name][2]
                after = by_function.get(finding.waits_on or "") if finding is not None else None
                if after is None or after in seen or self.exercise(after) != self.exercise(name):
                    return None
                if shown(after):
                    return after
                seen.add(after)
                name = after

        taken: dict[str, dict[str, float]] = {name: {} for name in failing}  # test -> {misconception: points}
        for exercise in sorted({self.exercise(name) for name in failing}):
            mine = [name for name in failing if self.exercise(name) == exercise]
            namers = [name for name in mine if shown(name)]
            all_shown = {m for name in namers for m in shown(name)}
            root = {m: self._root(m, all_shown) for m in all_shown}
            left: dict[str, dict[str, float]] = {}  # root -> area -> cost not yet charged
            charged: dict[str, float] = {}  # root -> what its naming tests carry
            for m in sorted(set(root.values())):
                # The tests that name it first, then those naming what it covers.
                members = sorted(
                    (n for n in namers if any(root[s] == m for s in shown(n))), key=lambda n: m not in shown(n)
                )
                left[m] = dict(self.misconceptions[m].costs)
                for name in members:
                    self._take(name, m, failing[name], left[m], taken)
                charged[m] = sum(t.get(m, 0.0) for t in taken.values())
            for name in namers:  # a charge of nothing frees nothing: each test pays its own
                if not any(charged[root[s]] > 0 for s in shown(name)):
                    taken[name] = {}
            # A knock-on is free only behind a misconception of its exercise charged at least its points (so
            # far: the cheapest knock-ons join first, and what they carry counts for the dearer ones).
            knock_ons = sorted((n for n in mine if not shown(n) and waited(n) is not None), key=lambda n: failing[n][0])
            for name in knock_ons:
                points = failing[name][0]
                causes = [m for m in sorted({root[s] for s in shown(waited(name))}) if charged[m] > 0]
                causes = [m for m in causes if charged[m] >= points]
                if causes:
                    taken[name] = {}
                    for m in causes:
                        self._take(name, m, failing[name], left[m], taken)
                        charged[m] += taken[name][m]
                    taken[name].setdefault(causes[0], 0.0)
        for name, (points, _, _) in failing.items():
            carried = taken[name]
            if not carried:
                out[name] = (points, OWN, {})
                continue
            shares = {MISCONCEPTION + m: round(v, 6) for m, v in carried.items()}
            first = max(carried, key=lambda m: (carried[m], -list(carried).index(m)))
            out[name] = (sum(carried.values()), MISCONCEPTION + first, shares if len(shares) > 1 else {})
        return {name: (round(value, 6), what, shares) for name, (value, what, shares) in out.items()}

    def _take(self, name: str, m: str, test: tuple, left: dict[str, float], taken: dict) -> None:
        """Test `name` carries what it can of `m`'s cost left in its area (never more than it has left)."""
        points, area, _ = test
        room = points - sum(taken[name].values())
        take = min(left.get(area, 0.0), room) if room > 0 else 0.0
        taken[name][m] = taken[name].get(m, 0.0) + take
        if area in left:
            left[area] -= take

    def _root(self, name: str, shown: set[str]) -> str:
        """The misconception that explains `name` among those `shown` in the same exercise (itself if none)."""
        seen = {name}
        while True:
            coverer = next((m for m in sorted(shown) if name in self.misconceptions[m].covers and m not in seen), None)
            if coverer is None:
                return name
            seen.add(coverer)
            name = coverer


def _scheme_from(data: dict, path: Path | None) -> Scheme:
    areas = {str(a): float(p) for a, p in data.get("areas", {}).items()}
    tests = {
        str(n): GradedTest(str(n), str(t["area"]), float(t["points"]), int(t["exercise"]))
        for n, t in data.get("tests", {}).items()
    }
    misconceptions = {
        str(n): Misconception(
            str(n),
            {str(a): float(c) for a, c in m.get("costs", {}).items()},
            tuple(m.get("covers", [])),
            str(m.get("note", "")),
        )
        for n, m in data.get("misconceptions", {}).items()
    }
    return Scheme(areas, tests, misconceptions, path)


@functools.lru_cache(maxsize=16)
def load_scheme(path: str | Path) -> Scheme:
    """The scheme in a marking.toml; ValueError naming the file when it is not a valid scheme."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc}); fix the file and grade again") from exc
    try:
        return _scheme_from(data, path)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: malformed marking scheme ({exc!r}): see the rule at the file's top") from exc


def apply_marking(result, scheme: Scheme | None):
    """`result` with every test's charge set by `scheme` (each failed test its points without one)."""
    if scheme is None or not result.tests:
        return result
    charged = scheme.charges((t.name, t.points, t.area, t.passed, t.finding) for t in result.tests)
    result.tests = [
        replace(t, charged=charged[t.name][0], charged_to=charged[t.name][1], shares=charged[t.name][2])
        for t in result.tests
    ]
    return result


def breakdown(tests: Sequence, scheme: Scheme | None) -> list[Charge]:
    """The charges `tests` (marked outcomes) carry, one per misconception and exercise and one per test that
    costs its own points, in the suite's order of their first test; their points sum to the points lost."""
    lines: dict[tuple[int, bool, str], list[tuple[str, float]]] = {}
    for test in tests:
        if test.passed:
            continue
        charged = test.points if test.charged is None else test.charged
        exercise = scheme.exercise(test.name) if scheme is not None else 0
        for to, points in (test.shares or {test.charged_to or OWN: charged}).items():
            if to.startswith(MISCONCEPTION):
                key = (exercise, True, to[len(MISCONCEPTION) :])
            else:
                key = (exercise, False, test.name)
            lines.setdefault(key, []).append((test.name, points))
    return [
        Charge(exercise, cause, is_misconception, round(sum(p for _, p in carried), 6), tuple(carried))
        for (exercise, is_misconception, cause), carried in lines.items()
    ]


@dataclass(frozen=True)
class Part:
    """Why a test carries only part of its points (or none) in a misconception's charge, as values the outputs
    word: the rest is charged to other misconceptions (`others`), and what is left (`free`) to nothing, because
    this misconception's cost in the test's area (`cap`, once per exercise, 0 where it costs nothing) is reached."""

    others: tuple[tuple[str, float], ...]  # (misconception id, points it takes of this test), in the scheme's order
    free: float  # points of the test no charge takes
    cap: float  # the misconception's cost in the test's area


def part_of(test, cause: str, scheme: Scheme | None) -> Part | None:
    """How a marked, failed `test` carries misconception `cause`'s charge when it carries less than all its points,
    none of them included (None when it carries all of them)."""
    if test.passed or scheme is None or cause not in scheme.misconceptions:
        return None
    charged = test.points if test.charged is None else test.charged
    shares = {to.removeprefix(MISCONCEPTION): points for to, points in (test.shares or {}).items()}
    mine = shares.get(cause, 0.0) if shares else charged
    if mine >= test.points:
        return None
    others = tuple((m, shares[m]) for m in scheme.misconceptions if m != cause and shares.get(m, 0) > 0)
    free = round(max(0.0, test.points - charged), 6)
    return Part(others, free, scheme.misconceptions[cause].costs.get(test.area, 0.0))


def costs_nothing(test, cause: str, scheme: Scheme | None) -> bool:
    """Whether marked, failed `test`, listed under misconception `cause`'s charge, truly costs nothing: `cause`
    costs nothing in its area (the card's note says the area's fixed cost is 0) and no charge takes any of its
    points, whether it names `cause` or is a knock-on behind it. False for a test the charge covers: one whose
    area's cost other tests carry ("not charged again")."""
    part = part_of(test, cause, scheme)
    return part is not None and part.cap == 0 and not part.others and part.free >= test.points


def scheme_markdown(scheme: Scheme, title: Callable[[str, str], str]) -> str:
    """The scheme's misconceptions as a Markdown table (a grader's MISCONCEPTIONS.md): `title(id, language)`
    names each in English and Chinese (the grader's catalog)."""
    lines = [
        "| id | misconception | 中文 | costs (per exercise it shows in) | covers | why this cost |",
        "|---|---|---|---|---|---|",
    ]
    for m in scheme.misconceptions.values():
        costs = ", ".join(f"{area} {cost:g}" for area, cost in m.costs.items())
        covers = ", ".join(f"`{c}`" for c in m.covers)
        note = m.note.replace("|", "\\|")
        lines.append(f"| `{m.name}` | {title(m.name, 'en')} | {title(m.name, 'zh')} | {costs} | {covers} | {note} |")
    return "\n".join(lines) + "\n"
