"""nbgrader's generate_assignment releases a kit assignment only as the build makes it (the built files are
never committed: a fresh clone has none)."""

from __future__ import annotations

import shutil

import pytest

from autograder.graders.kit import COURSE_DIR
from autograder.outputs.nbgenerate import BUILD_COMMAND, built_first


def test_a_release_from_an_unbuilt_or_stale_source_stops_naming_the_build(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(COURSE_DIR / "source", source, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    hook = built_first(source)
    hook(assignment="weight_tying", student=".", notebooks=[])  # built: released as it is
    hook(assignment="homework_3", student=".", notebooks=[])  # the course's own assignment: nbgrader's business
    (source / "weight_tying_zh" / "weight_tying_checks" / "messages.py").unlink()
    with pytest.raises(SystemExit) as stopped:
        hook(assignment="weight_tying_zh", student=".", notebooks=[])
    assert BUILD_COMMAND in str(stopped.value) and "messages.py" in str(stopped.value)
    hook(assignment="weight_tying", student=".", notebooks=[])  # its own folder is as built: released
    shutil.rmtree(source / "weight_tying_zh")
    hook(assignment="selftest", student=".", notebooks=[])  # a kit assignment the build does not write
    nb = source / "weight_tying" / "weight_tying.ipynb"
    nb.write_text(nb.read_text().replace("Exercise 1", "Exercise one"))
    with pytest.raises(SystemExit, match="weight_tying.ipynb"):
        hook(assignment="weight_tying", student=".", notebooks=[])
