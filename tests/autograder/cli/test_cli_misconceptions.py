"""``python -m autograder misconceptions``: the table a grader's MISCONCEPTIONS.md holds, from its scheme and
catalog (the command the file's generated marker names)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.cli.main import main
from autograder.graders import get_assignment

SPEC = get_assignment("weight_tying")


def test_it_prints_the_table_the_misconceptions_doc_holds_under_its_marker(capsys):
    assert main(["misconceptions", "--assignment", "weight_tying"]) == 0
    table = capsys.readouterr().out
    doc = (Path(SPEC.judge_dir).parent / "MISCONCEPTIONS.md").read_text(encoding="utf-8")
    marker = "<!-- generated from marking.toml and the catalog: python -m autograder misconceptions --assignment"
    assert marker in doc
    assert table.startswith("| id | misconception | 中文 |") and table in doc
    assert all(f"`{name}`" in table for name in SPEC.scheme.misconceptions)


def test_an_unknown_assignment_exits_2_naming_the_known_ones(capsys):
    assert main(["misconceptions", "--assignment", "nope"]) == 2
    assert "unknown assignment 'nope': choose one of" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # --assignment is required
        main(["misconceptions"])
