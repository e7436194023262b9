"""The grader's point system, read from the hidden suite's markers, for the notebook to state.

Each suite test carries ``@pytest.mark.points(n)`` and ``@pytest.mark.area(name)``; its name says which
exercise it grades (``test_tied_*``: exercise 1; ``test_wrapper_*`` / ``test_generate_*``: exercise 2). The
suite is parsed, not imported (the build must not need the judge's dependencies), and a test that follows
neither naming rule stops the build: the notebook must never state points the grader does not use.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SUITE", "EXERCISE_PREFIXES", "SuiteTest", "suite_tests", "by_area", "by_exercise", "exercise_of"]

SUITE = Path(__file__).resolve().parents[2] / "autograder" / "graders" / "weight_tying" / "judge" / "suite"
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


def _marks(fn: ast.FunctionDef, constants: dict[str, object]) -> dict[str, object]:
    """{'points': n, 'area': name} from decorators such as @pytest.mark.points(6) / @pytest.mark.area(AREA)."""
    found = {}
    for deco in fn.decorator_list:
        if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) and deco.args:
            arg = deco.args[0]
            value = constants.get(arg.id) if isinstance(arg, ast.Name) else getattr(arg, "value", None)
            found[deco.func.attr] = value
    return found


def suite_tests(suite: Path = SUITE) -> list[SuiteTest]:
    """Every test of the hidden suite with its points and area, in file and line order."""
    tests = []
    for path in sorted(Path(suite).glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                marks = _marks(node, constants)
                if not isinstance(marks.get("points"), (int, float)) or not isinstance(marks.get("area"), str):
                    raise ValueError(
                        f"{path.name}::{node.name} needs @pytest.mark.points(n) and @pytest.mark.area(name)"
                    )
                tests.append(SuiteTest(node.name, float(marks["points"]), marks["area"]))
    if not tests:
        raise ValueError(f"no test_*.py with tests in {suite}: is the hidden suite there?")
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
