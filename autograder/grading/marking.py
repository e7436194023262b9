"""Trusted: a grader's marking scheme (``marking.toml`` next to its ``spec.py``) and the rule that turns the
hidden suite's outcomes into marks.

The scheme is data an instructor reads and edits: the graded areas and their points, every suite test with
its area, points and exercise, and every named misconception with what it costs in which area. The suite's
``points``/``area`` markers come from it (``Scheme.graded``), so the notebooks' points table, ``grades.csv``'s
area columns and the gradebook's task cells all follow the one file. The rule itself is written at the top of
each scheme file; ``Scheme.charges`` is its only implementation, shared by the engine, the warm workers and
the in-process grader.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = [
    "GradedTest",
    "Misconception",
    "Scheme",
    "load_scheme",
    "scheme_for",
    "apply_marking",
    "graded",
    "SCHEME_FILE",
]

SCHEME_FILE = "marking.toml"


@dataclass(frozen=True)
class GradedTest:
    name: str  # the suite function's name
    area: str
    points: float
    exercise: int  # the part of the assignment it grades: a misconception is charged once per exercise


@dataclass(frozen=True)
class Misconception:
    name: str  # its id in the scheme
    keywords: tuple[str, ...]  # any of them in a failing test's message names it (MISCONCEPTIONS.md)
    costs: dict[str, float]  # area -> points it costs there
    covers: tuple[str, ...] = ()  # misconceptions it explains when named in the same exercise (not charged)
    note: str = ""


@dataclass(frozen=True)
class Scheme:
    areas: dict[str, float]  # area -> points, in the order the pages list them
    tests: dict[str, GradedTest]
    misconceptions: dict[str, Misconception]
    knock_on: tuple[str, ...]  # phrases of a failure that only reports another test's failure
    student_text: tuple[str, ...] = ()  # a message's text after any of these is the student's own, never read
    judge_hint: str = ""  # ...except the judge's hint after it, on a line that starts with this
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

    @property
    def max_score(self) -> float:
        return sum(self.areas.values())

    def graded(self, fn):
        """Decorator for a suite test: its ``points`` and ``area`` markers, from the scheme."""
        import pytest

        test = self.tests.get(fn.__name__)
        if test is None:
            raise ValueError(f"{fn.__name__} is not in {self.path}: add it under [tests] with its area and points")
        return pytest.mark.area(test.area)(pytest.mark.points(test.points)(fn))

    def judged_text(self, message: str) -> str:
        """The judge's own words of a message: from a marker of the student's text on, only the judge's hint
        that follows it (after the last `judge_hint`; autograder.grading.judge.suite_api.entry keeps that marker out of
        the student's text), so an exception's message never names a misconception."""
        lowered = message.lower()
        cut = min((at for marker in self.student_text if (at := lowered.find(marker.lower())) >= 0), default=-1)
        if cut < 0:
            return message
        tail = message[cut:]
        hint = tail.rfind(self.judge_hint) if self.judge_hint else -1
        return message[:cut] + (tail[hint:] if hint >= 0 else "")

    def named(self, message: str) -> Misconception | None:
        """The misconception a failure message names: the keyword found first in the judge's words (the
        longest one at that place)."""
        text = self.judged_text(message).lower()
        best: tuple[int, int, Misconception] | None = None
        for m in self.misconceptions.values():
            for keyword in m.keywords:
                at = text.find(keyword.lower())
                if at >= 0 and (best is None or (at, -len(keyword)) < (best[0], -best[1])):
                    best = (at, len(keyword), m)
        return best[2] if best else None

    def is_knock_on(self, message: str) -> bool:
        text = self.judged_text(message).lower()
        return any(phrase.lower() in text for phrase in self.knock_on)

    def charges(self, outcomes: Iterable[tuple[str, float, str, bool, str]]) -> dict[str, float]:
        """{test name: points it loses} for outcomes (name, points, area, passed, message), by the rule at the
        top of the scheme file. A name may be a node id ("test_x.py::test_y"); a test the scheme does not
        list is charged its points when it fails."""
        outcomes = list(outcomes)
        if not any(passed for _, _, _, passed, _ in outcomes):  # nothing works: nothing to mark in proportion
            return {name: points for name, points, *_ in outcomes}
        named: dict[tuple[int, str], Misconception] = {}
        naming: dict[tuple[int, str], set[str]] = {}  # the tests whose message named it
        plain: list[tuple[str, float]] = []  # (test, points) charged as such
        knock_ons: list[tuple[str, float]] = []
        for name, points, _area, passed, message in outcomes:
            if passed:
                continue
            test = self.tests.get(name.rpartition("::")[2])
            misconception = self.named(message) if test is not None else None
            if test is not None and self.is_knock_on(message):
                knock_ons.append((name, points))
            elif misconception is not None:
                key = (test.exercise, misconception.name)
                named.setdefault(key, misconception)
                naming.setdefault(key, set()).add(name)
            else:
                plain.append((name, points))
        if not named:  # nothing diagnosed: a knock-on's root cause is an unexplained failure, charged as such
            plain += knock_ons
        covered = {(ex, c) for (ex, _), m in named.items() for c in m.covers}  # `covers` is one-way (checked)
        out = {name: 0.0 for name, *_ in outcomes}
        for name, points in plain:
            out[name] = points
        area_of = {name: area for name, _, area, _, _ in outcomes}
        exercise_of = {name: getattr(self.tests.get(name.rpartition("::")[2]), "exercise", 0) for name in out}
        for key, m in named.items():
            if key in covered:
                continue
            for area, cost in m.costs.items():  # capped at the area; shown first on the tests that named it
                members = [(name, pts, passed) for name, pts, a, passed, _ in outcomes if a == area]
                members.sort(key=lambda t: (t[0] not in naming[key], t[2], exercise_of[t[0]] != key[0]))
                left = cost
                for name, pts, _passed in members:
                    take = min(left, pts - out[name])
                    if take > 0:
                        out[name] += take
                        left -= take
        return {name: round(value, 6) for name, value in out.items() if area_of.get(name) is not None}


def _scheme_from(data: dict, path: Path | None) -> Scheme:
    areas = {str(a): float(p) for a, p in data.get("areas", {}).items()}
    tests = {
        str(n): GradedTest(str(n), str(t["area"]), float(t["points"]), int(t["exercise"]))
        for n, t in data.get("tests", {}).items()
    }
    misconceptions = {
        str(n): Misconception(
            str(n),
            tuple(m.get("keywords", [n])),
            {str(a): float(c) for a, c in m.get("costs", {}).items()},
            tuple(m.get("covers", [])),
            str(m.get("note", "")),
        )
        for n, m in data.get("misconceptions", {}).items()
    }
    rule = data.get("rule", {})
    return Scheme(
        areas,
        tests,
        misconceptions,
        tuple(rule.get("knock_on", [])),
        tuple(rule.get("student_text", [])),
        str(rule.get("judge_hint", "")),
        path,
    )


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


def scheme_for(spec) -> Scheme | None:
    """The assignment's marking scheme (``<grader>/marking.toml``, beside ``judge/``), or None: then each
    failing test simply costs its points."""
    path = Path(spec.judge_dir).parent / SCHEME_FILE
    return load_scheme(path) if path.is_file() else None


def apply_marking(result, spec):
    """`result` with every test's charge set by the assignment's scheme (unchanged without one)."""
    scheme = scheme_for(spec)
    if scheme is None or not result.tests:
        return result
    charged = scheme.charges((t.name, t.points, t.area, t.passed, t.output) for t in result.tests)
    result.tests = [replace(t, charged=charged.get(t.name)) for t in result.tests]
    return result


def graded(fn):
    """Decorator for a hidden-suite test: its ``points`` and ``area`` markers, from the marking scheme of the
    grader the suite belongs to (``<grader>/judge/suite/test_x.py`` -> ``<grader>/marking.toml``)."""
    path = Path(fn.__code__.co_filename).resolve().parents[2] / SCHEME_FILE
    return load_scheme(path).graded(fn)
