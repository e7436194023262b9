"""The grading key: equal while nothing that decides a grade changed, different as soon as one thing did."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

import pytest

from autograder.graders import get_assignment
from autograder.outputs.cachekey import grader_digest, grading_key, submission_digest
from autograder.sandbox import Limits


@pytest.fixture
def grader(tmp_path):
    """A copy of the selftest grader's folder, as a spec pointing at it."""
    spec = get_assignment("selftest")
    copy = tmp_path / "selftest"
    shutil.copytree(spec.judge_dir.parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return replace(spec, judge_dir=copy / "judge"), copy


def test_the_key_follows_the_submission_the_seed_and_the_limits(tmp_path, grader):
    spec, _ = grader
    sub = tmp_path / "s.py"
    sub.write_text("def add(a, b):\n    return a + b\n")
    key = grading_key(submission=sub, spec=spec, seed=1, limits=Limits())
    assert key == grading_key(submission=sub, spec=spec, seed=1, limits=Limits())
    assert key != grading_key(submission=sub, spec=spec, seed=2, limits=Limits())
    assert key != grading_key(submission=sub, spec=spec, seed=1, limits=Limits(wall_seconds=120))
    sub.write_text("def add(a, b):\n    return a - b\n")
    assert key != grading_key(submission=sub, spec=spec, seed=1, limits=Limits())


def test_the_grader_digest_follows_the_suite_but_not_the_calibration_corpus(grader):
    spec, folder = grader
    before = grader_digest(spec)
    (folder / "judge" / "calibration" / "correct" / "new.py").write_text("def add(a, b): return b + a\n")
    grader_digest.cache_clear()
    assert grader_digest(spec) == before
    suite = folder / "judge" / "suite" / "test_add.py"
    suite.write_text(suite.read_text() + "\n# one more line\n")
    grader_digest.cache_clear()
    assert grader_digest(spec) != before


def test_the_grader_digest_follows_the_notebook_reader(grader, tmp_path, monkeypatch):
    """Which cells of a hand-in run is coursecheck's (its demos left out, its IPython made plain): a change there
    regrades the class as a change to the runner would."""
    import autograder.outputs.cachekey as cachekey
    from autograder.graders.kit import KIT_ROOT

    spec, _ = grader
    kit = tmp_path / "kit"
    shutil.copytree(KIT_ROOT / "coursecheck", kit / "coursecheck", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cachekey, "KIT_ROOT", kit)
    grader_digest.cache_clear()
    before = grader_digest(spec)
    cells = kit / "coursecheck" / "cells.py"
    cells.write_text(cells.read_text() + "\n# one more line\n")
    grader_digest.cache_clear()
    assert grader_digest(spec) != before
    grader_digest.cache_clear()


def test_every_shared_folder_of_the_digest_is_there_and_a_change_to_marking_counts(grader, tmp_path, monkeypatch):
    """The engine moved from autograder/judge to autograder/grading once, and the digest went on naming the old
    folder: a change to marking left every cached result standing. Each folder it names must exist, and a change
    to the marking module must regrade."""
    import autograder.outputs.cachekey as cachekey
    from autograder.graders.kit import KIT_ROOT

    missing = [rel for rel in cachekey._SHARED if not (KIT_ROOT / rel).is_dir()]
    assert missing == [], f"the grading key names folders the kit does not have: {missing}"
    spec, _ = grader
    kit = tmp_path / "kit"
    for rel in cachekey._SHARED:
        shutil.copytree(KIT_ROOT / rel, kit / rel, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cachekey, "KIT_ROOT", kit)
    grader_digest.cache_clear()
    before = grader_digest(spec)
    marking = kit / "autograder" / "grading" / "marking.py"
    marking.write_text(marking.read_text() + "\n# a change to how marks are made\n")
    grader_digest.cache_clear()
    assert grader_digest(spec) != before


def test_hidden_files_such_as_an_editors_swap_file_do_not_change_the_digest(grader):
    """A TA with a suite file open in vim, or a test planting a dot-folder, must not make the class regrade."""
    spec, folder = grader
    before = grader_digest(spec)
    (folder / "judge" / "suite" / ".test_add.py.swp").write_bytes(b"b0VIM 9.0")
    (folder / "runner" / ".plant-x").mkdir()
    (folder / "runner" / ".plant-x" / "gradebook.db").write_bytes(b"SQLite format 3")
    grader_digest.cache_clear()
    assert grader_digest(spec) == before
    (folder / "runner" / "helper.py").write_text("SCALE = 2\n")  # a visible file is code: it counts
    grader_digest.cache_clear()
    assert grader_digest(spec) != before


def test_a_fifo_or_a_link_is_not_read_and_gets_a_stable_digest(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)  # reading it would block forever
    link = tmp_path / "link.py"
    link.symlink_to("/etc/hostname")
    assert submission_digest(fifo) == submission_digest(fifo)
    assert submission_digest(link) != submission_digest("/etc/hostname")
    assert submission_digest(tmp_path / "missing.py") == submission_digest(tmp_path / "other-missing.py")


def _bytes_read() -> int:
    """Bytes this process has read through read(2) and friends so far (Linux's /proc/self/io, rchar)."""
    with open("/proc/self/io") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("rchar:"))


def test_a_file_over_the_readers_bound_is_keyed_by_the_reason_unread(tmp_path):
    huge, other = tmp_path / "huge.ipynb", tmp_path / "other.ipynb"
    for path in (huge, other):
        path.touch()
        os.truncate(path, 100 << 20)  # sparse: over the 64 MiB the reader accepts, costs no disk
    before = _bytes_read()
    key = submission_digest(huge)
    assert _bytes_read() - before < 1 << 20  # not the 100 MiB on today's main
    assert key == submission_digest(other)  # both refused for the same reason: the key is the reason
    small = tmp_path / "small.py"
    small.write_bytes(b"x" * 5000)
    before = _bytes_read()
    assert submission_digest(small, limit=1000) == submission_digest(huge)
    assert _bytes_read() - before <= 1001 + 4096  # the bound, plus one page of slack for the open itself
    assert submission_digest(small) != submission_digest(huge)  # under the bound: its own bytes


def test_a_file_that_grows_past_the_bound_while_read_is_read_no_further_and_keyed_by_the_reason(tmp_path, monkeypatch):
    """A file under the bound when looked at (fstat) that has grown past it when read: the read stops one byte
    past the bound, and the key is the reason, as for a file over the bound from the start."""
    import autograder.outputs.cachekey as cachekey

    grown, over = tmp_path / "grown.py", tmp_path / "over.py"
    grown.write_bytes(b"x" * (3 << 20))  # 3 MiB when read, longer than one 1 MiB chunk
    over.write_bytes(b"x" * 2000)
    limit = 1000
    real_fstat = os.fstat

    def as_it_was(fd):  # the size the file had when it was opened: under the bound
        info = real_fstat(fd)
        return os.stat_result((*info[:6], min(info.st_size, limit), *info[7:]))

    monkeypatch.setattr(cachekey.os, "fstat", as_it_was)
    before = _bytes_read()
    key = submission_digest(grown, limit=limit)
    read = _bytes_read() - before
    monkeypatch.undo()
    assert key == submission_digest(over, limit=limit) != submission_digest(grown, limit=4 << 20)
    assert read <= limit + 1 + 4096, read  # the bound and one byte, plus a page for the open: not 1 MiB
