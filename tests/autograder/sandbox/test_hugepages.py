"""The warm zygote's anonymous memory folded into huge pages: the same bytes, fewer page-table entries for each
fork and exit of a run to copy and drop; where the kernel folds nothing on request, nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder.sandbox.hugepages import PAYS_BACK_FROM, huge_bytes

# MADV_COLLAPSE came with Linux 6.1; "never" turns transparent huge pages off (and a kernel built without them has
# no setting at all). Elsewhere the fold is a request the kernel may refuse, and only the bytes are promised.
_RELEASE = tuple(int(part) for part in os.uname().release.split(".")[:2] if part.isdigit())
_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")
FOLDS = _RELEASE >= (6, 1) and _SETTING.is_file() and "[never]" not in _SETTING.read_text(encoding="ascii")
# Where nothing is folded unless a process asks for it (a fresh process maps no huge page of its own).
MADVISE_ONLY = FOLDS and "[madvise]" in _SETTING.read_text(encoding="ascii")

CHILD = """
import mmap, hashlib
from autograder.sandbox.hugepages import fold_anonymous_memory, huge_bytes
size = 16 << 20
area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
area.write(bytes(range(256)) * (size // 256))
before = hashlib.sha256(area).hexdigest()
folded = fold_anonymous_memory()
print(folded, huge_bytes(), hashlib.sha256(area).hexdigest() == before)
"""


def test_folding_keeps_every_byte_and_folds_where_the_kernel_can():
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD)], capture_output=True, text=True, check=True
    ).stdout.split()
    folded, huge, same = int(out[0]), int(out[1]), out[2] == "True"
    assert same  # the fold changes where the bytes live, never what they are
    assert folded % (2 << 20) == 0 and huge >= folded, (folded, huge)  # what it reports folded is mapped huge
    if FOLDS:  # a 16 MiB private area holds at least seven aligned 2 MiB stretches, each one folded
        assert folded >= 14 << 20, folded


def _huge_pages_of_a_warm_pair(fold: bool) -> dict[str, int]:
    """Bytes in huge pages of a template told `fold` and a zygote forked from it (which folds as its template
    does, as a pool's do), once the zygote is warm."""
    from autograder.sandbox.warm import Template, Zygote

    template = Template(fold=fold)
    zygote = Zygote(("autograder.runner.__main__", "coursecheck.notebook"), template=template)
    try:
        zygote.wait_ready()
        return {"template": huge_bytes(template.proc.pid), "zygote": huge_bytes(zygote.proc.pid)}
    finally:
        zygote.close()
        template.close()


@pytest.mark.skipif(not FOLDS, reason="this kernel folds nothing on request (Linux < 6.1, or huge pages off)")
def test_the_template_and_a_warm_zygote_map_their_memory_in_huge_pages():
    """The template folds torch's memory before it forks (what a child never writes stays one shared copy); the
    zygote folds again once warm, so each run's forks and exits copy and drop few entries."""
    huge = _huge_pages_of_a_warm_pair(fold=True)
    assert huge["template"] >= 32 << 20, huge  # torch alone: well over 32 MiB of it folded
    assert huge["zygote"] >= 64 << 20, huge  # torch, dnnlpy and the runner: well over 64 MiB


@pytest.mark.skipif(not MADVISE_ONLY, reason="this kernel folds memory unasked (huge pages 'always') or never")
def test_a_pool_told_not_to_fold_leaves_its_memory_in_small_pages():
    huge = _huge_pages_of_a_warm_pair(fold=False)
    assert huge == {"template": 0, "zygote": 0}, huge


def test_only_a_class_that_pays_for_the_fold_folds(monkeypatch, tmp_path):
    """A fold costs up to ~0.5 s of CPU on a machine whose memory is cold and saves ~15-20 ms a run: a class of
    one (``grade FILE``) or a few never folds; a class of PAYS_BACK_FROM runs a worker does."""
    from autograder.grading import executors
    from autograder.grading.pool import local

    asked: list[bool] = []

    class Pool:  # records what the batch asked the pool for, grades nothing
        def __init__(self, **kwargs):
            asked.append(kwargs["fold"])

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def grade(self, submissions, **kwargs):
            return {}

    monkeypatch.setattr(local, "LocalPool", Pool)
    for n in (1, 8, PAYS_BACK_FROM * 2 - 1, PAYS_BACK_FROM * 2):
        files = {f"s{i}": tmp_path / f"s{i}.py" for i in range(n)}
        executors.grade_batch(assignment="weight_tying", submissions=files, workers=2, progress=False)
    assert asked == [False, False, False, True]
