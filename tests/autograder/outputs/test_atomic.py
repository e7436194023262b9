"""Atomic writes: a reader sees the old file or the new one, never half; no text can make a write fail."""

from __future__ import annotations

import os

import pytest

from autograder.outputs import atomic
from autograder.outputs.atomic import TEMP_SUFFIX, remove_leftovers, write_bytes, write_text


def test_write_text_creates_folders_and_never_fails_on_a_lone_surrogate(tmp_path):
    path = write_text(tmp_path / "a" / "b" / "page.html", "caf\udce9 <- a byte that was never UTF-8")
    assert path.read_bytes() == b"caf\\udce9 <- a byte that was never UTF-8"
    assert os.listdir(path.parent) == ["page.html"]  # no temporary file left behind


def test_a_failed_write_keeps_the_previous_file_whole_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = write_bytes(tmp_path / "grades.csv", b"old,complete\n")

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        write_bytes(target, b"new,but,never,renamed\n")
    assert target.read_bytes() == b"old,complete\n"
    assert sorted(os.listdir(tmp_path)) == ["grades.csv"]


def test_leftovers_of_a_killed_run_are_removed_and_nothing_else(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / f".alice.json.1a2b{TEMP_SUFFIX}").write_text('{"half')
    (tmp_path / "results" / "alice.json").write_text("{}")
    (tmp_path / ".lock").write_text("1")
    assert remove_leftovers(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == [".lock", "alice.json", "results"]


def test_while_a_file_is_written_its_folder_shows_nothing_new(tmp_path, monkeypatch):
    """Written without a name, then named whole: a kill -9 during the write (its fsync here) leaves nothing."""
    write_bytes(tmp_path / "bob.json", b"{}")
    seen = []
    fsync = os.fsync

    def look(fd):
        seen.append(sorted(os.listdir(tmp_path)))
        fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", look)
    write_bytes(tmp_path / "cat.json", b'{"score": 3}')
    assert seen == [["bob.json"]]
    assert sorted(os.listdir(tmp_path)) == ["bob.json", "cat.json"]
    assert (tmp_path / "cat.json").read_bytes() == b'{"score": 3}'


def test_where_a_file_cannot_be_written_without_a_name_a_temporary_one_is_used(tmp_path, monkeypatch):
    real_open = os.open

    def no_tmpfile(file, flags, *args, **kwargs):
        if flags & getattr(os, "O_TMPFILE", 0) == os.O_TMPFILE:
            raise OSError(95, "Operation not supported")
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(atomic.os, "open", no_tmpfile)
    seen = []
    fsync = os.fsync
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (seen.append(os.listdir(tmp_path)), fsync(fd)))
    write_bytes(tmp_path / "cat.json", b"{}")
    assert len(seen[0]) == 1 and seen[0][0].startswith(".cat.json.") and seen[0][0].endswith(TEMP_SUFFIX)
    assert os.listdir(tmp_path) == ["cat.json"]
