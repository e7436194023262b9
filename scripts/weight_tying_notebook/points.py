"""The grader's point system, read from its marking scheme (``marking.toml``), for the notebook to state.

The suite's ``points``/``area`` markers come from the same file (``autograder.grading.marking.graded``); a test's
name says which exercise it grades (``test_tied_*``: exercise 1; ``test_wrapper_*`` / ``test_generate_*``:
exercise 2). The scheme is parsed, not imported (the build must not need the judge's dependencies), and a
test that follows neither naming rule stops the build: the notebook must never state points the grader does
not use.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "SUITE",
    "SCHEME",
    "EXERCISE_PREFIXES",
    "SuiteTest",
    "suite_tests",
    "by_area",
    "by_exercise",
    "exercise_of",
    "area_split",
]

SUITE = Path(__file__).resolve().parents[2] / "autograder" / "graders" / "weight_tying" / "judge" / "suite"
SCHEME = SUITE.parents[1] / "marking.toml"  # the marking scheme: every test's points and area
EXERCISE_PREFIXES = {1: ("test_tied_",), 2: ("test_wrapper_", "test_generate_")}
# Presentation only: the order the notebook's table lists the areas in (the points come from the suite).
TEACHING_ORDER = ("parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation")


@dataclass(frozen=True)
class SuiteTest:
    name: str
    points: float
    area: str

    @property
    def exercise(self) -> int:
        return exercise_of(self.name)


def exercise_of(name: str) -> int:
    for exercise, prefixes in EXERCISE_PREFIXES.items():
        if name.startswith(prefixes):
            return exercise
    raise ValueError(
        f"hidden suite test {name!r} names no exercise: start it with test_tied_ (exercise 1) or "
        "test_wrapper_ / test_generate_ (exercise 2), so that the notebook can state its points"
    )


def suite_tests(scheme: Path = SCHEME) -> list[SuiteTest]:
    """Every graded test with its points and area, in the scheme's order (the suite's markers come from the
    same file: autograder.grading.marking.graded). The file is read, not imported (no judge dependencies)."""
    data = tomllib.loads(Path(scheme).read_text(encoding="utf-8"))
    tests = [SuiteTest(name, float(t["points"]), str(t["area"])) for name, t in data["tests"].items()]
    for test in tests:
        if test.exercise != int(data["tests"][test.name]["exercise"]):
            raise ValueError(f"{scheme}: {test.name} is in exercise {test.exercise} by its name, not as the file says")
    return tests


def by_area(tests: list[SuiteTest]) -> dict[str, dict[int, float]]:
    """area -> {exercise: points}: the areas in the order the notebook teaches them, any other after them."""
    table: dict[str, dict[int, float]] = {}
    for test in sorted(tests, key=lambda t: (TEACHING_ORDER + (t.area,)).index(t.area)):
        row = table.setdefault(test.area, {1: 0.0, 2: 0.0})
        row[test.exercise] += test.points
    return table


def by_exercise(tests: list[SuiteTest]) -> dict[int, float]:
    totals = {1: 0.0, 2: 0.0}
    for test in tests:
        totals[test.exercise] += test.points
    return totals


def area_split(per: dict[int, float], edition) -> str:
    """How an area's points fall between the exercises, in the edition's words (``AREA_SPLIT``): both, or all of
    them in one exercise (never "0 points from exercise 1")."""
    words = edition.AREA_SPLIT
    ones = [n for n, points in per.items() if points]
    if len(ones) == 1:
        return words["one"].format(n=ones[0])
    return words["both"].format(ex1=f"{per[1]:g}", ex2=f"{per[2]:g}")
