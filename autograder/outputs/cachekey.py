"""Trusted: the grading key: a submission's result is reused only while everything that made it is unchanged.

    key = sha256(submission bytes, grader code, kit version, seed, limits)

"Grader code" is the grader's folder (``autograder/graders/<name>/``: runner experiments, judge, suite,
diagnosis; its calibration corpus excluded), the shared runner, engine (``autograder/grading``: the judge's suite
runner, marking), protocol and sandbox packages, ``coursecheck/`` (the notebook reader: which cells of a hand-in
run) and ``dnnlpy/`` (the judge recomputes expected values with it).
Hidden entries (an editor's ``.engine.py.swp``, a ``.DS_Store``, a dot-folder) and bytecode are not code that
decides a grade and stay out, so they never cause a regrade.
Limits are in the key because a longer time limit can turn a timeout into a score. The key is recorded in each
result file; an unchanged rerun finds every key equal and grades nothing.

A submission is read no further than the reader's own bound (``submissions.MAX_SUBMISSION_BYTES``): a file
over it is refused unread by the grader, so its key is the reason, not its bytes. A 1 TiB sparse file costs
one ``fstat``, never a terabyte of reading under the folder's lock before anyone is graded.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import stat
from pathlib import Path

from autograder.graders.kit import KIT_ROOT, kit_version
from autograder.graders.spec import AssignmentSpec
from autograder.grading.submissions import MAX_SUBMISSION_BYTES
from autograder.sandbox import Limits

__all__ = ["grader_digest", "submission_digest", "grading_key"]

_VERSION = "grading-key-1"  # bump when the key's recipe changes
_SKIP_DIRS = {"__pycache__", ".pytest_cache", "calibration"}
# The kit's own code every grade goes through: the runner, the engine (judge, marking, pipeline), the channel, the
# sandbox (what a run may do decides what it shows) and the notebook reader. ``test_cachekey`` holds each to exist.
_SHARED = ("autograder/runner", "autograder/grading", "autograder/protocol", "autograder/sandbox", "coursecheck")
_CHUNK = 1 << 20


def _tree_digest(root: Path, digest) -> None:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")) or name.startswith("."):
                continue
            path = Path(folder) / name
            digest.update(str(path.relative_to(root)).encode("utf-8", "surrogateescape") + b"\0")
            digest.update(path.read_bytes() + b"\0")


@functools.lru_cache(maxsize=8)
def grader_digest(spec: AssignmentSpec) -> str:
    """A digest of the code that decides a grade for `spec` (computed once per process)."""
    digest = hashlib.sha256(_VERSION.encode())
    grader = Path(spec.judge_dir).resolve().parent
    dnnlpy = importlib.util.find_spec("dnnlpy")
    roots = [grader, *(KIT_ROOT / rel for rel in _SHARED)]
    if dnnlpy is not None and dnnlpy.origin:
        roots.append(Path(dnnlpy.origin).parent)
    for root in roots:
        digest.update(f"[{root.name}]".encode())
        if root.is_dir():
            _tree_digest(root, digest)
    return digest.hexdigest()


def _reason(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def submission_digest(path: str | Path, *, limit: int = MAX_SUBMISSION_BYTES) -> str:
    """sha256 of the file's bytes; a link, a device, an unreadable file or one over `limit` bytes (which the
    grader refuses unread) gets a digest of the reason instead (the grader then reports the problem, and the
    key stays stable). At most `limit` + 1 bytes are ever read."""
    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return _reason(f"unreadable: {type(exc).__name__}")
    too_large = _reason("over the size limit")
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):  # a FIFO or /dev/zero would never end
            return _reason("not a regular file")
        if info.st_size > limit:  # a sparse terabyte is refused here, unread
            return too_large
        left = limit + 1  # a file growing while it is read still stops here
        while left > 0 and (chunk := fh.read(min(_CHUNK, left))):
            digest.update(chunk)
            left -= len(chunk)
    return too_large if left <= 0 else digest.hexdigest()


def grading_key(
    *, submission: str | Path, spec: AssignmentSpec, seed: int, limits: Limits, digest: str | None = None
) -> str:
    """The key a stored result must carry to be reused for this submission, grader, seed and limits (`digest`:
    the submission's ``submission_digest``, when the caller has it already)."""
    parts = [
        _VERSION,
        digest or submission_digest(submission),
        grader_digest(spec),
        kit_version(),
        str(int(seed)),
        json.dumps(dataclasses.asdict(limits), sort_keys=True, default=str),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()
