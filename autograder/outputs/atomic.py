"""Trusted: write a file whole or not at all (a file with no name or a temporary one, fsync, rename), whatever the
text holds.

A batch can be killed at any moment (kill -9, a full disk, a laptop lid): a reader must then find either the
previous version of a file or the new one, never half of it. Text is written as UTF-8 with
``backslashreplace``, so a lone surrogate in a student's message becomes ``\\udcff`` instead of an
exception that would cost the rest of the class its outputs.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["write_bytes", "write_text", "remove_leftovers", "TEMP_SUFFIX"]

TEMP_SUFFIX = ".partial"  # a temporary file's name: .<name>.<random>.partial, in the same folder


def write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> Path:
    """Write `data` to `path` atomically (folders created); returns the path. `durable=False` skips the fsync: for
    a page the next run writes again anyway (a reader still never sees half of it; a power cut may leave the old).
    Where the file system allows it the data is written to a file without a name (``O_TMPFILE``), named only once
    whole: a kill while it is written leaves nothing behind, where a named temporary file would stay until the next
    run removes it (``remove_leftovers``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        fd = os.open(path.parent, os.O_TMPFILE | os.O_WRONLY, 0o666)
    except (OSError, AttributeError):  # not on this file system (or not Linux): a named temporary file
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        unnamed = False
    else:
        unnamed = True
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())  # the rename must not reach the disk before the data does
            if unnamed:  # named now: linkat(2), through the fd's link in /proc, following it (a folder's fd asks it)
                folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    os.link(f"/proc/self/fd/{fh.fileno()}", temp.name, dst_dir_fd=folder, follow_symlinks=True)
                finally:
                    os.close(folder)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    return path


def write_text(path: str | Path, text: str, *, durable: bool = True) -> Path:
    """`text` as UTF-8 (unencodable characters escaped, never an error), atomically."""
    return write_bytes(path, text.encode("utf-8", errors="backslashreplace"), durable=durable)


def remove_leftovers(folder: str | Path) -> int:
    """Delete temporary files a killed run left in `folder` and its subfolders; returns how many."""
    count = 0
    for temp in Path(folder).rglob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            temp.unlink()
            count += 1
    return count
