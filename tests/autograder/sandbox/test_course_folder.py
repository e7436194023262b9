"""Run from a course folder, the grader shows a submission nothing of the course: end to end, on each executor.

nbgrader users run `python -m autograder grade` from their course folder, which holds the source notebook
(solutions, hidden tests), every classmate's hand-in and anything else the instructor keeps there. A hostile
hand-in walks /proc/self/mountinfo, lists /, opens the course's paths and every file of every mount that is
not the system's, and prints what it found (its stdout reaches the result's run tail).
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.e2e

PROBE = """
import os
import torch.nn as nn

COURSE = {course!r}
SYSTEM = ("/proc", "/dev", "/sys", "/usr", "/etc", "/lib", "/bin", "/sbin")
mounts = [line.split()[4] for line in open("/proc/self/mountinfo")]
found = []
for mount in mounts:
    if mount == "/" or mount.startswith(SYSTEM):
        continue
    seen = 0
    for here, _dirs, files in os.walk(mount):
        for name in files:
            seen += 1
            if seen > 3000:
                break
            try:
                with open(os.path.join(here, name), "rb") as fh:
                    text = fh.read(1 << 16)  # the course's files are small: their tokens sit near the top
            except OSError:
                continue
            at = text.find(b"COURSE-SECRET-")
            if at >= 0:
                found.append(text[at:at + 50].decode(errors="replace"))
visible = [p for p in (COURSE, COURSE + "/secret.txt", COURSE + "/source", COURSE + "/submitted") if os.path.exists(p)]
print("VIEWPROBE ran; found", found, "course paths visible", len(visible))
print("VIEWPROBE root", sorted(os.listdir("/")))
print("VIEWPROBE mounts", [m for m in mounts if not m.startswith(SYSTEM)])


class TiedEmbeddingLM(nn.Module):  # a stub: the probe wants what it can read, not points
    pass
"""


def _notebook(path: Path, source: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, str(path))


@pytest.mark.parametrize("executor", ["pool", "fresh"])
def test_a_submission_sees_nothing_of_the_course_folder_it_is_graded_from(executor, course_dir):
    course = course_dir
    tokens = {name: f"COURSE-SECRET-{name}-{secrets.token_hex(6)}" for name in ("source", "classmate", "file")}
    source = course / "source" / "weight_tying" / "weight_tying.ipynb"
    _notebook(source, f"# solution and hidden tests: {tokens['source']}")
    other = course / "submitted" / "other_student" / "weight_tying" / "weight_tying.ipynb"
    _notebook(other, f"# a classmate's answer: {tokens['classmate']}")
    (course / "secret.txt").write_text(f"{tokens['file']}\n")
    hostile = course / "submitted" / "mallory" / "weight_tying" / "weight_tying.ipynb"
    _notebook(hostile, PROBE.format(course=str(course)))
    args = ["grade", "--assignment", "weight_tying", "--executor", executor, "--workers", "1", "--json", "--seed", "7"]
    # The walk takes seconds: the cells' fifth of the default 60 s did not hold it on a loaded CI machine.
    args += ["--timeout", "240"]
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", *args, str(hostile.relative_to(course))],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    tail = result["extra_data"]["run"]["stdout_tail"]
    ran = "VIEWPROBE ran; found [] course paths visible 0" in tail
    assert ran, tail or json.dumps(result)[-3000:]  # the probe ran, and found nothing
    everything = proc.stdout + proc.stderr
    for name, token in tokens.items():
        assert token not in everything, f"the submission read the course's {name} file: {tail}"
    assert str(course) not in tail.split("VIEWPROBE mounts", 1)[1], tail
    assert result["score"] == 0
