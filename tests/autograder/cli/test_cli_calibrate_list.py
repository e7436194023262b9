"""``python -m autograder calibrate --list``: the calibration corpus as tables read from the files' own headers,
graded nothing (the README lists no file: adding one touches that file only)."""

from __future__ import annotations

from autograder.cli.main import main


def _write(folder, name, header):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(header + "x = 1\n")


def test_it_prints_each_file_with_its_band_and_why_from_its_header(tmp_path, capsys):
    _write(tmp_path / "correct", "c01_plain.py", "# expect: correct\n# why: the plain way\n")
    _write(tmp_path / "wrong", "w01_slip.py", "# expect: wrong two_tables\n# why: a | clone\n# marks: 70-82\n")
    assert main(["calibrate", "--assignment", "weight_tying", "--calibration-dir", str(tmp_path), "--list"]) == 0
    out = capsys.readouterr().out
    assert "## correct/ (1 files)" in out and "## wrong/ (1 files)" in out
    assert "| `c01_plain.py` |  |  | the plain way |" in out
    assert "| `w01_slip.py` | two_tables | 70-82 | a \\| clone |" in out  # a bar in the text keeps the row whole


def test_a_missing_folder_exits_2_naming_it(tmp_path, capsys):
    missing = tmp_path / "nope"
    assert main(["calibrate", "--assignment", "weight_tying", "--calibration-dir", str(missing), "--list"]) == 2
    assert f"--calibration-dir {missing}: no such folder" in capsys.readouterr().err
