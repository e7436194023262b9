"""Student ids: readable names and unique, file-safe, stable ids for whatever bytes a file name holds."""

from __future__ import annotations

import os
import re
from pathlib import Path

from autograder.outputs.roster import build_roster, display_name, file_id

SAFE = re.compile(r"^[A-Za-z0-9._-]+$")
ODD = [
    os.fsdecode(b"caf\xe9"),  # a byte that is not UTF-8, as a surrogate
    "x[/a]",  # brackets (rich markup) and a slash
    "alice",
    "alice!",  # same slug as alice
    "Alice",  # same as alice on a case-insensitive disk
    "=cmd|' /C calc'!A0",  # a spreadsheet formula
    "a\u202egnp.py",  # a right-to-left override
    "line\nbreak\x1b[2J",  # control characters and a terminal escape
    "CON",  # a name Windows refuses
    ".hidden",
    "",
]


def test_display_name_shows_undecodable_bytes_and_control_characters_as_escapes():
    assert display_name(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
    assert display_name("a\u202egnp\nx\x1b") == "a\\u202egnp\\x0ax\\x1b"
    assert display_name("Zoë 张伟") == "Zoë 张伟"  # real letters stay as they are
    assert display_name("\ud800 from a message") == "\\ud800 from a message"
    for text in ODD:
        display_name(text).encode("utf-8")  # never raises


def test_ids_are_safe_unique_even_ignoring_case_and_a_safe_name_is_its_own_id():
    roster = build_roster({k: Path(f"/sub/{i}.py") for i, k in enumerate(ODD)}, roots=[], assignment="a")
    ids = [s.uid for s in roster]
    assert all(SAFE.match(uid) and not uid.startswith(".") for uid in ids)
    assert len({uid.casefold() for uid in ids}) == len(ODD)
    by_key = {s.key: s.uid for s in roster}
    assert by_key["alice"] == "alice" and by_key["alice!"].startswith("alice-")
    assert by_key["CON"] != "CON"


def test_an_id_depends_on_the_key_only_and_a_recorded_id_is_kept():
    assert file_id("alice!") == file_id("alice!") != file_id("alice?")
    alone = build_roster({"alice!": Path("a.py")}, roots=[], assignment="a")[0].uid
    crowded = build_roster({"alice!": Path("a.py"), "alice": Path("b.py")}, roots=[], assignment="a")
    assert alone == next(s.uid for s in crowded if s.key == "alice!")
    kept = build_roster({"bob": Path("b.py")}, roots=[], assignment="a", known={"bob": "bob-from-2025"})
    assert kept[0].uid == "bob-from-2025"
    bad = build_roster({"bob": Path("b.py")}, roots=[], assignment="a", known={"bob": "../../etc/passwd"})
    assert SAFE.match(bad[0].uid)  # a hand-edited manifest cannot steer a file name


def test_nbgrader_layout_gives_the_student_folder_and_only_its_own_timestamp(tmp_path):
    root = tmp_path / "submitted"
    mine = root / "ann" / "weight_tying"
    (mine / "deeper").mkdir(parents=True)
    (mine / "deeper" / "timestamp.txt").write_text("1999-01-01 00:00:00 UTC")  # a forged one
    (mine / "deeper" / "nb.ipynb").write_text("{}")
    weird = root / os.fsdecode(b"b\xe9n") / "weight_tying"
    weird.mkdir(parents=True)
    (weird / "nb.ipynb").write_text("{}")
    roster = build_roster(
        {"ann": mine / "deeper" / "nb.ipynb", os.fsdecode(b"b\xe9n"): weird / "nb.ipynb", "flat": tmp_path / "flat.py"},
        roots=[root, tmp_path],
        assignment="weight_tying",
    )
    ann, ben, flat = sorted(roster, key=lambda s: s.name)[0], sorted(roster, key=lambda s: s.name)[1], roster[-1]
    assert ann.nbgrader_id == "ann" and ann.timestamp_file == mine / "timestamp.txt"
    assert ben.nbgrader_id is None and ben.name == "b\\xe9n"  # not writable to the gradebook, still graded
    assert flat.key == "flat" and flat.nbgrader_id == "flat" and flat.timestamp_file is None


def test_a_student_is_found_by_name_id_or_key():
    student = build_roster({os.fsdecode(b"caf\xe9"): Path("c.py")}, roots=[], assignment="a")[0]
    assert student.matches("caf\\xe9") and student.matches(student.uid) and student.matches(os.fsdecode(b"caf\xe9"))
    assert not student.matches("cafe")


def test_the_edition_and_timestamp_come_from_nbgraders_folders_and_other_files_are_noted(tmp_path):
    course = tmp_path / "course"
    (course / "source" / "weight_tying_zh").mkdir(parents=True)
    (course / "source" / "weight_tying_zh" / "conftest.py").write_text("")  # shipped with the release: not news
    root = course / "submitted"
    chen = root / "chen" / "weight_tying_zh"
    (chen / "weight_tying_zh").mkdir(parents=True)
    (chen / "timestamp.txt").write_text("2030-01-01 00:00:00 UTC")  # nbgrader's: a late hand-in
    (chen / "weight_tying_zh" / "timestamp.txt").write_text("2020-01-01 00:00:00 UTC")  # the student's own
    (chen / "weight_tying_zh" / "weight_tying.ipynb").write_text("{}")
    (chen / "conftest.py").write_text("")
    (chen / "zz_attempt2.ipynb").write_text("{}")
    zed = root / "zed" / "weight_tying"
    zed.mkdir(parents=True)
    (zed / "weight_tying.ipynb").write_text("{}")
    roster = build_roster(
        {"chen": chen / "weight_tying_zh" / "weight_tying.ipynb", "zed": zed / "weight_tying.ipynb"},
        roots=[root],
        assignment="weight_tying",
        editions=("weight_tying_zh",),
    )
    chen_, zed_ = roster
    assert (chen_.edition, chen_.timestamp_file, chen_.nbgrader_id) == (
        "weight_tying_zh",
        chen / "timestamp.txt",
        "chen",
    )
    assert "zz_attempt2.ipynb" in chen_.note and "conftest.py" not in chen_.note
    assert "no weight_tying.ipynb in the folder" in chen_.note  # the graded file sits in a folder of its own
    assert (zed_.edition, zed_.note) == ("weight_tying", "")
