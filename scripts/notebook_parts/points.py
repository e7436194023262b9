"""A grader's point system, read from its marking scheme (``marking.toml``), for the notebook to state.

The suite's ``points``/``area`` markers come from the same file (``autograder.grading.marking.graded``); a test's
name says which exercise it grades, by the prefixes an assignment's content gives (weight_tying: ``test_tied_*``
is exercise 1, ``test_wrapper_*`` / ``test_generate_*`` exercise 2). The scheme is parsed, not imported (the
build must not need the judge's dependencies), and a test that follows no naming rule, or whose exercise the
scheme says otherwise, stops the build: the notebook must never state points the grader does not use.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SuiteTest", "Points"]


@dataclass(frozen=True)
class SuiteTest:
    name: str
    points: float
    area: str
    exercise: int


@dataclass(frozen=True)
class Points:
    scheme: Path  # the grader's marking.toml: every test's points, area and exercise
    exercises: dict[int, tuple[str, ...]]  # exercise number -> the prefixes of its tests' names
    order: tuple[str, ...] = ()  # presentation only: the order the notebook's table lists the areas in

    def exercise_of(self, name: str) -> int:
        for exercise, prefixes in self.exercises.items():
            if name.startswith(prefixes):
                return exercise
        rules = "; ".join(f"{' / '.join(p + '*' for p in start)}: exercise {n}" for n, start in self.exercises.items())
        raise ValueError(
            f"hidden suite test {name!r} names no exercise: start its name as one of them says ({rules}), so that "
            "the notebook can state its points"
        )

    def suite_tests(self) -> list[SuiteTest]:
        """Every graded test with its points, area and exercise, in the scheme's order (the suite's markers come
        from the same file: autograder.grading.marking.graded). The file is read, not imported."""
        data = tomllib.loads(Path(self.scheme).read_text(encoding="utf-8"))
        tests = []
        for name, test in data["tests"].items():
            exercise = self.exercise_of(name)
            if exercise != int(test["exercise"]):
                raise ValueError(f"{self.scheme}: {name} is in exercise {exercise} by its name, not as the file says")
            tests.append(SuiteTest(name, float(test["points"]), str(test["area"]), exercise))
        return tests

    def by_area(self, tests: list[SuiteTest]) -> dict[str, dict[int, float]]:
        """area -> {exercise: points}: the areas in the order the notebook teaches them, any other after them."""
        table: dict[str, dict[int, float]] = {}
        for test in sorted(tests, key=lambda t: (self.order + (t.area,)).index(t.area)):
            row = table.setdefault(test.area, dict.fromkeys(self.exercises, 0.0))
            row[test.exercise] += test.points
        return table

    def by_exercise(self, tests: list[SuiteTest]) -> dict[int, float]:
        totals = dict.fromkeys(self.exercises, 0.0)
        for test in tests:
            totals[test.exercise] += test.points
        return totals

    @staticmethod
    def area_split(per: dict[int, float], edition) -> str:
        """How an area's points fall between the exercises, in the edition's words (``AREA_SPLIT``): each
        exercise's (``{ex1}``, ``{ex2}``, ...), or all of them in one exercise (never "0 points from exercise 1")."""
        words = edition.AREA_SPLIT
        ones = [n for n, points in per.items() if points]
        if len(ones) == 1:
            return words["one"].format(n=ones[0])
        return words["both"].format(**{f"ex{n}": f"{points:g}" for n, points in per.items()})
