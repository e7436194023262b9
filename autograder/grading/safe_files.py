"""Trusted: read a student's file beneath the folder the instructor named, never following a link out of it.

The grader runs as root, so a hand-in that is a symbolic link (to ``solutions/weight_tying.py``, to a
classmate's notebook, to ``/etc/shadow``) would otherwise be read with root's rights and graded as the
student's work. Git repositories and archives keep symlinks, so this is a hand-in, not a thought experiment.

``read_beneath(path, root)`` walks from ``root`` (the folder given on the command line, trusted as is) one
component at a time with ``openat``: every folder on the way is opened with ``O_NOFOLLOW | O_DIRECTORY`` and
the file itself with ``O_NOFOLLOW``, then checked with ``fstat`` to be the regular file ``lstat`` saw, so a
link swapped in between the listing and the read is refused too (no time-of-check/time-of-use gap). FIFOs,
devices and sockets are refused before they are opened; a file over ``limit`` bytes is refused unread
(``OSError`` EFBIG), and one that grows while it is read is read to ``limit`` + 1 bytes at most. Hard links are
not refused: an archive only links inside itself, and the kernel's protected_hardlinks (on by default)
refuses a link to a file its maker cannot read and write.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from autograder.grading.catalog import CatalogError

__all__ = ["NotBeneath", "read_beneath"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class NotBeneath(CatalogError):
    """The file is a link, under a link, outside the root, or not a regular file; the message (an engine catalog
    id and its parameters, ``autograder.grading.catalog``) says which."""


def read_beneath(path: str | Path, root: str | Path | None, limit: int) -> bytes:
    """The bytes of `path`, a regular file reached from `root` without following any link (at most
    `limit` + 1 bytes: more means too large; OSError EFBIG, unread, when it is over `limit` bytes already).
    `root` None: the file's own folder. FileNotFoundError if absent."""
    path = Path(os.path.abspath(path))  # abspath, not resolve: a link must be seen, not followed
    root = Path(os.path.abspath(root)) if root is not None else path.parent
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise NotBeneath("input.outside_root", name=path.name, root=repr(str(root))) from None
    if not parts or ".." in parts:
        raise NotBeneath("input.not_a_file_in_root", name=repr(str(path)), root=repr(str(root)))
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the root itself is the instructor's choice
    try:
        for depth, part in enumerate(parts[:-1], start=1):
            inner = _step(fd, part, parts[:depth])
            os.close(fd)
            fd = inner
        return _read_file(fd, parts, limit)
    finally:
        os.close(fd)


def _step(dir_fd: int, name: str, shown: tuple[str, ...]) -> int:
    """Open folder `name` inside dir_fd without following a link."""
    _refuse_link(dir_fd, name, shown, "folder")
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotBeneath("input.not_a_plain_folder", name="/".join(shown)) from None
        raise


def _read_file(dir_fd: int, parts: tuple[str, ...], limit: int) -> bytes:
    name, shown = parts[-1], "/".join(parts)
    before = _refuse_link(dir_fd, name, parts, "file")
    if not stat.S_ISREG(before.st_mode):
        raise NotBeneath("input.folder" if stat.S_ISDIR(before.st_mode) else "input.special_file", name=shown)
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotBeneath("input.link", name=shown) from None
        raise
    try:
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(after.st_mode):
            raise NotBeneath("input.changed", name=shown)
        if after.st_size > limit:  # a sparse terabyte costs this fstat, not `limit` bytes of reading
            raise OSError(errno.EFBIG, f"{shown} is over {limit} bytes")
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _refuse_link(dir_fd: int, name: str, parts: tuple[str, ...], what: str) -> os.stat_result:
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        raise NotBeneath(f"input.link_not_{what}", name="/".join(parts))
    return st
