"""scripts/marks_dump.py: two dumps of the corpus's marks compared, each moved score or message named."""

from __future__ import annotations

import json
from pathlib import Path


def _write(path: Path, score: float, message: str) -> Path:
    marks = {"7:wrong/w31.py": {"score": score, "tests": {"test_loss": [False, message], "test_tie": [True, ""]}}}
    path.write_text(json.dumps(marks), encoding="utf-8")
    return path


def test_identical_dumps_compare_clean(tmp_path, capsys, script):
    before = _write(tmp_path / "a.json", 96.0, "loss = 463.25095")
    after = _write(tmp_path / "b.json", 96.0, "loss = 463.25095")
    assert script("marks_dump").main(["diff", str(before), str(after)]) == 0
    assert "0 difference(s)" in capsys.readouterr().out


def test_a_moved_message_and_a_moved_score_are_each_named(tmp_path, capsys, script):
    before = _write(tmp_path / "a.json", 96.0, "loss = 463.25095")
    after = _write(tmp_path / "b.json", 94.0, "loss = 463.25098")
    assert script("marks_dump").main(["diff", str(before), str(after)]) == 1
    out = capsys.readouterr().out
    assert "score 96.0 -> 94.0" in out
    assert "test_loss" in out and "463.25098" in out and "test_tie" not in out
    assert "2 difference(s)" in out


def test_a_file_missing_from_one_dump_is_a_difference(tmp_path, capsys, script):
    before = _write(tmp_path / "a.json", 96.0, "x")
    after = tmp_path / "b.json"
    after.write_text("{}", encoding="utf-8")
    assert script("marks_dump").main(["diff", str(before), str(after)]) == 1
    assert "1 difference(s)" in capsys.readouterr().out
