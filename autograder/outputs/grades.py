"""Trusted: a batch's machine-readable outputs: ``grades.csv`` and ``results/<student>.json``."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from autograder.result import Result

__all__ = ["safe_name", "write_outputs"]


def safe_name(student: str) -> str:
    """A file name for a student id: letters, digits, '.', '_' and '-' only."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._") or "student"


def write_outputs(results: dict[str, Result], out: Path) -> Path:
    """<out>/results/<student>.json for each student and <out>/grades.csv; returns the CSV's path."""
    out = Path(out)
    (out / "results").mkdir(parents=True, exist_ok=True)
    areas: list[str] = []
    for result in results.values():
        areas += [area for area in result.areas if area not in areas]
    csv_path = out / "grades.csv"
    with csv_path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "score", "max_score", "status", *areas])
        for student, result in results.items():
            data = json.dumps(result.to_gradescope(), indent=2)
            (out / "results" / f"{safe_name(student)}.json").write_text(data)
            per_area = result.areas
            writer.writerow(
                [student, result.score, result.max_score, result.status, *[per_area.get(a, (0, 0))[0] for a in areas]]
            )
    return csv_path
