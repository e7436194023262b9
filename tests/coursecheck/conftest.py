"""The self-check framework is tested on the toy selftest assignment's checks, built as a release has them."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from autograder.graders.kit import KIT_ROOT


@pytest.fixture(scope="session")
def selftest_release(tmp_path_factory):
    """The selftest release's folder, as ``scripts/build_notebook.py --assignment selftest`` writes it into a
    course of its own (the instructor's notebook, solution included, the checks package with its catalog)."""
    spec = importlib.util.spec_from_file_location(
        "build_notebook_for_coursecheck", KIT_ROOT / "scripts" / "build_notebook.py"
    )
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    source = tmp_path_factory.mktemp("course") / "source"
    assert build.main(["--assignment", "selftest", "--root", str(source)]) == 0
    return source / "selftest"


@pytest.fixture(scope="session")
def selftest(selftest_release):
    """The release's ``selftest_checks`` package, imported as ``pytest`` in the release imports it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(selftest_release))
        patch.delenv("SELFTEST_LANG", raising=False)
        import selftest_checks

        yield selftest_checks
    for name in [m for m in sys.modules if m.split(".")[0] == "selftest_checks"]:
        del sys.modules[name]
