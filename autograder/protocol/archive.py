"""Trusted: read a frame's ``torch.save`` zip archive member by member, refusing what torch.save never writes.

``torch.load`` happily inflates DEFLATE-compressed records (zeros compress ~1000:1: a 2 MB frame became
2.4 GB in the grader). Here every member must be stored uncompressed, unencrypted, named as torch.save names
it, and the sizes must add up to no more than the frame itself (overlapping entries cannot multiply it);
members are read, CRC-checked, by Python's ``zipfile``. The pickle and the storages then go to
``autograder.protocol.unpickle``; no other zip reader ever sees the runner's bytes.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from autograder.protocol.bounds import EvidenceBounds, Refused

__all__ = ["Archive", "read_archive"]

PREFIX = "archive"  # torch.save(obj, BytesIO()) names its records "archive/..."
_FIXED = {".format_version", ".storage_alignment", "byteorder", "version", ".data/version", ".data/serialization_id"}
_STORAGE = re.compile(r"data/(\d{1,9})")
_SMALL_RECORD = 64  # the fixed records hold a number or a word


class Archive:
    """The checked members of one frame: ``pickle`` (data.pkl) and ``storages`` (key -> bytes)."""

    def __init__(self, pickle: bytes, storages: dict[str, bytes]) -> None:
        self.pickle, self.storages = pickle, storages


def read_archive(blob: bytes, bounds: EvidenceBounds, facts: Any = None) -> Archive:
    """The members of a torch.save zip, checked against `bounds`; Refused with the reason otherwise.
    `facts` (an ``unpickle.Facts``), when given, learns how many members the archive lists."""
    facts = facts if facts is not None else _Count()
    try:
        zf = zipfile.ZipFile(io.BytesIO(blob))
        infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:  # legacy torch format, garbage, ...
        raise Refused(f"not a torch.save zip archive ({type(exc).__name__})") from None
    facts.members = len(infos)
    if len(infos) > bounds.zip_members:
        raise Refused(f"{len(infos)} records in the archive, over the bound of {bounds.zip_members}")
    names = [info.filename for info in infos]
    if len(set(names)) != len(names):
        raise Refused("the archive names a record twice")
    declared = 0
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED:
            raise Refused(f"record {_short(info.filename)} is compressed: evidence records must be stored as is")
        if info.flag_bits & 0x1:
            raise Refused(f"record {_short(info.filename)} is encrypted")
        if info.file_size != info.compress_size:
            raise Refused(f"record {_short(info.filename)} declares two different sizes")
        declared += info.file_size
    if declared > len(blob):  # stored records cannot add up to more than the archive: overlapping entries
        raise Refused(f"records declare {declared} bytes in a {len(blob)}-byte archive (overlapping entries)")
    members: dict[str, bytes] = {}
    for info in infos:
        rel = _relative(info.filename)
        try:
            data = zf.read(info)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as exc:
            raise Refused(f"record {_short(info.filename)} does not read back ({type(exc).__name__})") from None
        if rel in _FIXED and (len(data) > _SMALL_RECORD or not re.fullmatch(rb"[A-Za-z0-9_.\n]*", data)):
            raise Refused(f"record {rel} holds something other than a number or a word")
        members[rel] = data
    if "data.pkl" not in members or "version" not in members:
        raise Refused("the archive has no data.pkl or no version record")
    if len(members["data.pkl"]) > bounds.pickle_bytes:
        raise Refused(f"data.pkl is {len(members['data.pkl'])} bytes, over the bound of {bounds.pickle_bytes}")
    if members.get("byteorder", b"little") != b"little":
        raise Refused("the archive is not little-endian")
    storages = {m.group(1): data for rel, data in members.items() if (m := _STORAGE.fullmatch(rel))}
    return Archive(members["data.pkl"], storages)


class _Count:
    members = 0


def _relative(name: str) -> str:
    prefix, slash, rel = name.partition("/")
    if prefix != PREFIX or not slash or not (rel == "data.pkl" or rel in _FIXED or _STORAGE.fullmatch(rel)):
        raise Refused(f"unexpected record {_short(name)} in the archive")
    return rel


def _short(name: str) -> str:
    return repr(name[:80])
