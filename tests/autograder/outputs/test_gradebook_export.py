"""`nbgrader export` for a course with editions: one row per student, in the edition they took, CSV-safe."""

from __future__ import annotations

import csv
import os
import sys
from datetime import datetime
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.outputs.gradebook_export import COLUMNS, EditionsExportPlugin, edition_groups, export_rows

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own add_submission


@pytest.fixture
def gradebook(tmp_path, monkeypatch) -> Path:
    """Both editions and another assignment; ann took weight_tying, chen weight_tying_zh, dan neither."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    db = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{db}") as gb:
        for name in ("weight_tying", "weight_tying_zh", "homework0"):
            gb.add_assignment(name)
        for student in ("ann", "chen", "dan", "=cmd,x"):
            gb.add_student(student)
        gb.add_submission("weight_tying", "ann", timestamp=datetime(2026, 11, 20, 10))
        gb.add_submission("weight_tying_zh", "chen", timestamp=datetime(2030, 1, 1))
        gb.add_submission("homework0", "ann")
    return db


def test_editions_are_one_assignment_in_the_registrys_order():
    groups = edition_groups(["weight_tying_zh", "homework0", "weight_tying", "selftest"])
    assert groups == [("weight_tying", "weight_tying_zh"), ("homework0",), ("selftest",)]


def test_each_student_has_one_row_in_the_edition_they_took_with_nbgraders_timestamp(gradebook):
    with Gradebook(f"sqlite:///{gradebook}") as gb:
        rows = export_rows(gb)
        only = export_rows(gb, assignments=["weight_tying_zh"], students=["chen", "ann"])
    course = {
        r["student_id"]: (r["assignment"], str(r["timestamp"])[:10]) for r in rows if r["assignment"] != "homework0"
    }
    assert course == {  # nbgrader's own exporter: 8 rows, chen with 0 under weight_tying, ann under weight_tying_zh
        "ann": ("weight_tying", "2026-11-20"),
        "chen": ("weight_tying_zh", "2030-01-01"),
        "dan": ("weight_tying", ""),  # handed in nothing: one row with 0, as nbgrader does
        "=cmd,x": ("weight_tying", ""),
    }
    assert sum(r["assignment"] == "homework0" for r in rows) == 4  # other assignments as nbgrader exports them
    only = [(r["student_id"], r["assignment"]) for r in only]
    assert only == [("chen", "weight_tying_zh")]  # ann took the other edition: no 0 here


def test_the_plugin_writes_nbgraders_columns_quoted_and_formula_safe(gradebook, tmp_path):
    dest = tmp_path / "export.csv"
    with Gradebook(f"sqlite:///{gradebook}") as gb:
        EditionsExportPlugin(to=str(dest)).export(gb)
    rows = list(csv.DictReader(dest.open(encoding="utf-8")))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 8
    odd = [r for r in rows if r["student_id"].endswith("cmd,x")]
    assert {r["student_id"] for r in odd} == {"'=cmd,x"} and all(r["max_score"] == "0.0" for r in odd)


def test_a_student_in_both_editions_is_exported_in_the_later_one_as_the_kit_grades_it(gradebook):
    with Gradebook(f"sqlite:///{gradebook}") as gb:
        gb.add_submission("weight_tying_zh", "ann", timestamp=datetime(2026, 11, 20, 11))  # an hour later
        gb.add_submission("weight_tying", "dan", timestamp=datetime(2026, 11, 20, 12))
        gb.add_submission("weight_tying_zh", "dan")  # no time to compare: the first edition
        rows = [(r["student_id"], r["assignment"]) for r in export_rows(gb) if r["assignment"] != "homework0"]
    assert ("ann", "weight_tying_zh") in rows and ("dan", "weight_tying") in rows and len(rows) == 4
