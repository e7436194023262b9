"""Folders for the sandbox's tests: a course folder outside the kit, and outside /tmp when the machine allows."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from autograder.graders.kit import KIT_ROOT

# The sandbox's own folders: never shown from the host, so a secret there proves nothing about the view.
_PRIVATE = ("/tmp", "/var/tmp", "/dev/shm", "/proc")


def _outside_private(path: str) -> bool:
    return not any(path == p or path.startswith(p + "/") for p in _PRIVATE)


def outside_folder() -> Path:
    """A writable folder outside the kit and outside the sandbox's private folders, where an instructor keeps
    a course: the kit's parent (a course next to the checkout), home, /srv or /opt; /tmp's when none is."""
    for candidate in (KIT_ROOT.parent, Path.home(), Path("/srv"), Path("/opt")):
        real = os.path.realpath(candidate)
        if real != "/" and os.path.isdir(real) and os.access(real, os.W_OK) and _outside_private(real):
            return Path(real)
    return Path(tempfile.gettempdir())


@pytest.fixture
def course_dir():
    """An empty folder for a course, readable by all as course folders are (mkdtemp's 0700 would stop a
    sandbox's uid at its door and hide a leak), removed afterwards (see ``outside_folder``)."""
    folder = Path(tempfile.mkdtemp(prefix="autograder-course-", dir=outside_folder()))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
