"""The kit's tests read both editions' built source folders (the notebooks, the release's catalog): they are
made by ``scripts/build_notebook.py``, never committed. ``scripts/test.sh`` builds first; a run without a build
stops at once, naming the command (a stale build fails ``test_source_notebook.py``). Here, at the kit's root,
not in ``tests/``: pytest puts a conftest's folder on sys.path, and ``tests/`` holds folders named like the
kit's packages."""

from __future__ import annotations

import pytest

from autograder.graders.kit import COURSE_DIR

BUILT = [
    COURSE_DIR / "source" / edition / name
    for edition in ("weight_tying", "weight_tying_zh")
    for name in ("weight_tying.ipynb", "weight_tying_checks/messages.py")
]


def pytest_sessionstart(session):
    if session.config.getoption("evidence", None):  # a hidden suite on kept evidence reads no built file
        return
    missing = [str(path.relative_to(COURSE_DIR.parent)) for path in BUILT if not path.is_file()]
    if missing:
        pytest.exit(f"{', '.join(missing)} not built: run python scripts/build_notebook.py first", returncode=2)
