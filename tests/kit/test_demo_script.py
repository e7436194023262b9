"""scripts/demo.sh's release step, run as the script writes it: nbgrader finds the course's configuration."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.graders.kit import KIT_ROOT


def _release_step() -> str:
    """The lines of demo.sh between its "== 1." and "== 2." banners."""
    text = (KIT_ROOT / "scripts" / "demo.sh").read_text()
    start = text.index('echo "== 1.')
    return text[start : text.index('echo "== 2.', start)]


@pytest.mark.e2e
def test_the_demo_releases_the_assignment_without_nbgrader_warning_of_a_missing_config(tmp_path):
    demo = tmp_path / "demo"
    shutil.copytree(
        KIT_ROOT / "assignments",
        demo / "course",
        ignore=shutil.ignore_patterns("release", "submitted", "autograded", "feedback", "gradebook.db", "*.log"),
    )
    env = {**os.environ, "demo": str(demo), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _release_step()],
        cwd=tmp_path,  # not the course: the step itself must go there
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "nbgrader_config.py" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert (demo / "course" / "release" / "weight_tying" / "weight_tying.ipynb").is_file()
