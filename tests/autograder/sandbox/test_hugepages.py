"""The warm zygote's anonymous memory folded into huge pages: the same bytes, fewer page-table entries for each
fork and exit of a run to copy and drop; where the kernel folds nothing on request, nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder.sandbox.hugepages import huge_bytes

# MADV_COLLAPSE came with Linux 6.1; "never" turns transparent huge pages off (and a kernel built without them has
# no setting at all). Elsewhere the fold is a request the kernel may refuse, and only the bytes are promised.
_RELEASE = tuple(int(part) for part in os.uname().release.split(".")[:2] if part.isdigit())
_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")
FOLDS = _RELEASE >= (6, 1) and _SETTING.is_file() and "[never]" not in _SETTING.read_text(encoding="ascii")

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


@pytest.mark.skipif(not FOLDS, reason="this kernel folds nothing on request (Linux < 6.1, or huge pages off)")
def test_the_template_and_a_warm_zygote_map_their_memory_in_huge_pages():
    """The template folds torch's memory before it forks (what a child never writes stays one shared copy); the
    zygote folds again once warm, so each run's forks and exits copy and drop few entries."""
    from autograder.sandbox.warm import Template, Zygote

    template = Template()
    zygote = Zygote(("autograder.runner.__main__", "dnnlpy.notebook"), template=template)
    try:
        zygote.wait_ready()
        huge = {"template": huge_bytes(template.proc.pid), "zygote": huge_bytes(zygote.proc.pid)}
    finally:
        zygote.close()
        template.close()
    assert huge["template"] >= 32 << 20, huge  # torch alone: well over 32 MiB of it folded
    assert huge["zygote"] >= 64 << 20, huge  # torch, dnnlpy and the runner: well over 64 MiB
