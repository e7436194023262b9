"""Reading a student's file beneath the folder given, never through a link, never a special file."""

from __future__ import annotations

import errno
import os

import pytest

from autograder.grading.safe_files import NotBeneath, read_beneath


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "secret.py").write_text("SOLUTION = 1\n")
    root = tmp_path / "submitted"
    (root / "alice" / "hw").mkdir(parents=True)
    (root / "alice" / "hw" / "hw.py").write_text("mine = 1\n")
    return tmp_path, root


def test_a_regular_file_beneath_the_root_is_read(tree):
    _, root = tree
    assert read_beneath(root / "alice" / "hw" / "hw.py", root, 1000) == b"mine = 1\n"
    assert read_beneath(root / "alice" / "hw" / "hw.py", None, 1000) == b"mine = 1\n"
    assert len(read_beneath(root / "alice" / "hw" / "hw.py", root, 9)) == 9  # "mine = 1\n": at the limit
    with pytest.raises(OSError) as over:  # one byte past it: refused before a byte is read
        read_beneath(root / "alice" / "hw" / "hw.py", root, 8)
    assert over.value.errno == errno.EFBIG


def test_a_file_that_grows_while_it_is_read_is_read_one_byte_past_the_limit_at_most(tree, monkeypatch):
    _, root = tree
    (root / "alice" / "hw" / "hw.py").write_bytes(b"x" * 5000)
    real_fstat = os.fstat

    def as_it_was(fd):  # the size when opened: at the limit, then it grew
        info = real_fstat(fd)
        return os.stat_result((*info[:6], min(info.st_size, 100), *info[7:]))

    monkeypatch.setattr(os, "fstat", as_it_was)
    assert len(read_beneath(root / "alice" / "hw" / "hw.py", root, 100)) == 101  # limit + 1: "too large"


def test_a_link_as_the_file_or_on_the_way_is_refused(tree):
    tmp, root = tree
    (root / "bob").mkdir()
    os.symlink(tmp / "secret.py", root / "bob" / "hw.py")
    with pytest.raises(NotBeneath, match="bob/hw.py is a symbolic link"):
        read_beneath(root / "bob" / "hw.py", root, 1000)
    with pytest.raises(NotBeneath, match="symbolic link"):
        read_beneath(root / "bob" / "hw.py", None, 1000)  # even when the file is named on its own
    os.symlink(tmp, root / "carol")  # a folder link: carol/secret.py is the solution
    with pytest.raises(NotBeneath, match="carol is a symbolic link, not a folder"):
        read_beneath(root / "carol" / "secret.py", root, 1000)
    os.symlink(root / "alice" / "hw" / "hw.py", root / "dave.py")  # a link to a classmate's file
    with pytest.raises(NotBeneath, match="dave.py is a symbolic link"):
        read_beneath(root / "dave.py", root, 1000)


def test_files_outside_the_root_and_special_files_are_refused(tree):
    tmp, root = tree
    with pytest.raises(NotBeneath, match="not inside the folder"):
        read_beneath(tmp / "secret.py", root, 1000)
    with pytest.raises(NotBeneath, match="not inside the folder"):
        read_beneath(root / "alice" / ".." / ".." / "secret.py", root / "alice", 1000)
    os.mkfifo(root / "fifo.py")  # opening a FIFO for reading would block the grader for ever
    with pytest.raises(NotBeneath, match="special file"):
        read_beneath(root / "fifo.py", root, 1000)
    with pytest.raises(NotBeneath, match="folder, not a regular file"):
        read_beneath(root / "alice", root, 1000)
    with pytest.raises(FileNotFoundError):
        read_beneath(root / "nobody.py", root, 1000)
