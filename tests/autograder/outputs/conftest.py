"""Fixtures for the output tests: batch folders as a grading run leaves them (manifest + results)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from autograder.outputs.folder import Manifest, OutputFolder
from autograder.outputs.roster import build_roster
from autograder.result import Result, RunFacts, TestOutcome

AREAS = {
    "parameter identity": 24,
    "shape flow": 20,
    "parameter counts": 18,
    "gradient accumulation": 20,
    "argmax generation": 18,
}


def _area_result(
    failing: dict[str, str] | None = None, *, status: str = "ok", seconds: float = 3.0, defined: bool = True
) -> Result:
    """One test per area worth the area's points; `failing` maps area -> the failing test's message."""
    failing = failing or {}
    tests = [
        TestOutcome(
            f"test_{a.split()[0]}.py::test_{a.replace(' ', '_')}", float(p), a, a not in failing, failing.get(a, "")
        )
        for a, p in AREAS.items()
    ]
    run = RunFacts(status=status, required_names=["TiedEmbeddingLM"], defined=["TiedEmbeddingLM"] if defined else [])
    return Result(tests=tests, run=run, seed=5, execution_time=seconds)


@pytest.fixture
def area_result() -> Callable[..., Result]:
    """make(failing={area: message}, status=, seconds=, defined=) -> a Result with one test per area."""
    return _area_result


@pytest.fixture
def batch_folder(tmp_path) -> Callable[..., Path]:
    """make(results: {key: Result | None}, unreadable={key: why}) -> an --out folder; None: no result file."""

    def make(results: dict[str, Result | None], *, unreadable: dict[str, str] | None = None, seed: int = 42) -> Path:
        out = tmp_path / "graded"
        folder = OutputFolder(out)
        roster = build_roster(
            {k: tmp_path / "submitted" / f"{i}.ipynb" for i, k in enumerate(results)},
            roots=[],
            assignment="weight_tying",
        )
        manifest = Manifest(assignment="weight_tying", seed=seed, kit_version="0.1.0", started="2026-05-04T09:30:00Z")
        manifest.finished = "2026-05-04T09:41:00Z"
        for student in roster:
            why = (unreadable or {}).get(student.key, "")
            manifest.students.append(folder.entry(student, "key", "graded", why))
            if results[student.key] is not None:
                folder.save_result(
                    student, results[student.key], grading_key="key", assignment="weight_tying", unreadable=why
                )
        folder.write_manifest(manifest)
        return out

    return make
