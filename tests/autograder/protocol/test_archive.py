"""The frame's zip archive: stored members named as torch.save names them, sizes that add up, nothing else."""

from __future__ import annotations

import struct
import zipfile

import pytest
import torch
from hostile_frames import members, rezip, saved

from autograder.protocol.archive import read_archive
from autograder.protocol.bounds import EvidenceBounds, Refused

BOUNDS = EvidenceBounds()
HONEST = saved({"name": "x", "record": {"w": torch.ones(3)}})


def test_an_honest_archive_gives_its_pickle_and_storages():
    archive = read_archive(HONEST, BOUNDS)
    assert archive.pickle.startswith(b"\x80\x02") and archive.storages == {"0": torch.ones(3).numpy().tobytes()}


def test_compressed_members_are_refused_before_they_are_inflated():
    zeros = saved({"name": "x", "record": {"w": torch.zeros(4 << 20)}})  # 16 MiB of zeros
    bomb = rezip(members(zeros), zipfile.ZIP_DEFLATED)
    assert len(bomb) < 100_000  # ~1000:1, the review's 2 MB -> 2.4 GB frame in small
    with pytest.raises(Refused, match="compressed"):
        read_archive(bomb, BOUNDS)


@pytest.mark.filterwarnings("ignore:Duplicate name")  # zipfile warns while the test writes the duplicate
def test_names_counts_and_sizes_are_those_torch_save_writes():
    honest = members(HONEST)
    with pytest.raises(Refused, match="unexpected record"):
        read_archive(rezip(honest + [("archive/../../etc/x", b"1")]), BOUNDS)
    with pytest.raises(Refused, match="twice"):
        read_archive(rezip(honest + [honest[-1]]), BOUNDS)
    with pytest.raises(Refused, match="records in the archive"):
        read_archive(HONEST, EvidenceBounds(zip_members=3))
    with pytest.raises(Refused, match="data.pkl is"):
        read_archive(HONEST, EvidenceBounds(pickle_bytes=10))
    big_endian = [(n, b"big" if n.endswith("byteorder") else d) for n, d in honest]
    with pytest.raises(Refused, match="little-endian"):
        read_archive(rezip(big_endian), BOUNDS)
    odd_version = [(n, b"9" * 100 if n.endswith("/version") else d) for n, d in honest]
    with pytest.raises(Refused, match="number or a word"):
        read_archive(rezip(odd_version), BOUNDS)


def test_entries_that_claim_more_bytes_than_the_archive_holds_are_refused():
    blob = bytearray(HONEST)
    entry = blob.index(b"PK\x01\x02")  # the first central-directory entry
    struct.pack_into("<II", blob, entry + 20, 1 << 30, 1 << 30)  # its compressed and uncompressed sizes
    with pytest.raises(Refused, match="overlapping"):
        read_archive(bytes(blob), BOUNDS)


def test_other_formats_are_refused():
    import io

    legacy = io.BytesIO()
    torch.save({"name": "x", "record": {}}, legacy, _use_new_zipfile_serialization=False)
    for blob in (legacy.getvalue(), b"", b"PK\x03\x04 not really"):
        with pytest.raises(Refused, match="not a torch.save zip"):
            read_archive(blob, BOUNDS)
