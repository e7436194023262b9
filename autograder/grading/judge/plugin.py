"""Trusted: run a grader's hidden pytest suite against one submission's evidence, in this process.

Runs in the grader's own process (which never ran student code) with ``pytest.main`` and a plugin that
provides the fixtures ``plan``, ``evidence`` and ``run`` and the markers ``points(n)`` and ``area(name)``.
A failing test's student-facing output is its exception message only: no traceback, no source lines, so
the hidden suite never leaks into feedback (and tests run with ``--assert=plain`` for the same reason).
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from autograder.grading.judge.memo import end_judgement
from autograder.grading.judge.suite_api import say, speaking
from autograder.grading.result import TestOutcome

__all__ = ["JudgePlugin", "run_suite", "message_for"]


@dataclass
class _Outcome:
    passed: bool = True
    output: str = ""


def _message(excinfo: pytest.ExceptionInfo | None) -> str:
    return "" if excinfo is None else message_for(excinfo.value)


def message_for(exc: BaseException) -> str:
    """What the student reads for a failed test: the message only (shared with ``judge.direct``)."""
    if isinstance(exc, pytest.fail.Exception):
        return str(exc.msg or "").strip() or say("judge.failed")
    if isinstance(exc, AssertionError):
        return str(exc).strip() or say("judge.failed")
    # An error inside the judge's own code is the grader's problem, not the student's: say so plainly.
    return say("judge.the_grader_hit_an_internal_error", what=f"{type(exc).__name__}: {exc}")


class JudgePlugin:
    """Fixtures, markers and result collection for one suite run."""

    def __init__(self, plan: dict, evidence: dict, run: dict) -> None:
        self._plan, self._evidence, self._run = plan, evidence, run
        self.outcomes: dict[str, _Outcome] = {}
        self.meta: dict[str, tuple[float, str]] = {}
        self.collect_errors: list[str] = []

    @pytest.fixture
    def plan(self) -> dict:
        return self._plan

    @pytest.fixture
    def evidence(self) -> dict:
        return self._evidence

    @pytest.fixture
    def run(self) -> dict:
        return self._run

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "points(n): points this test is worth")
        config.addinivalue_line("markers", "area(name): the graded area this test belongs to")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            points = item.get_closest_marker("points")
            area = item.get_closest_marker("area")
            if points is None or not points.args:
                raise pytest.UsageError(f"{item.nodeid} has no @pytest.mark.points(n): every graded test needs one")
            self.meta[item.nodeid] = (float(points.args[0]), str(area.args[0]) if area and area.args else "other")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext[-2000:]}")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        state = self.outcomes.setdefault(item.nodeid, _Outcome())
        if report.skipped and call.when != "teardown":  # a skipped test earns nothing
            state.passed, state.output = False, state.output or say("judge.not_run_skipped")
        elif report.failed and state.passed:
            state.passed, state.output = False, _message(call.excinfo)


def _purge_modules(suite_dir: Path) -> None:
    # Each run imports the suite afresh: no state from one student's run can reach the next.
    root = str(suite_dir.resolve())
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if path.startswith(root):
            del sys.modules[name]


def run_suite(
    *, suite_dir: Path, plan: dict, evidence: dict, run: dict, language: str = "en"
) -> tuple[list[TestOutcome], float]:
    """Run every test under suite_dir; returns (results in collection order, seconds). Every test runs in
    English (the marking scheme reads it); in another `language`, when a test failed, the suite runs once more
    with that language set (``suite_api.speaking``) for each failed test's ``localized`` message."""
    results, seconds = _run_suite(suite_dir=suite_dir, plan=plan, evidence=evidence, run=run)
    if language == "en" or all(t.passed for t in results):
        return results, seconds
    with speaking(language):
        again, more = _run_suite(suite_dir=suite_dir, plan=plan, evidence=evidence, run=run)
    said = {t.name: t.output for t in again if not t.passed}
    return [replace(t, localized=said.get(t.name, "")) if not t.passed else t for t in results], seconds + more


def _run_suite(*, suite_dir: Path, plan: dict, evidence: dict, run: dict) -> tuple[list[TestOutcome], float]:
    suite_dir = Path(suite_dir)
    if not suite_dir.is_dir():
        raise FileNotFoundError(f"hidden suite {str(suite_dir)!r} does not exist: check the assignment's suite_dir")
    plugin = JudgePlugin(plan, evidence, run)
    start = time.monotonic()
    sink = io.StringIO()
    try:
        with tempfile.TemporaryDirectory(prefix="autograder-judge-") as folder:
            # `-c` with an empty ini: the suite runs under the same options wherever the kit lives, whatever
            # pytest.ini/pyproject.toml sits above it. The folder goes with the run: nothing is left in /tmp.
            ini = Path(folder) / "pytest.ini"
            ini.write_text("[pytest]\n", encoding="utf-8")
            code = _pytest_main(suite_dir, ini, plugin, sink)
    finally:
        end_judgement()  # nothing this submission's evidence decided is kept for the next one
    seconds = time.monotonic() - start
    if plugin.collect_errors or code in (
        pytest.ExitCode.INTERNAL_ERROR,
        pytest.ExitCode.USAGE_ERROR,
        pytest.ExitCode.INTERRUPTED,
    ):
        detail = "; ".join(plugin.collect_errors) or sink.getvalue()[-3000:]
        raise RuntimeError(f"the hidden suite {str(suite_dir)!r} could not run (pytest exit {int(code)}): {detail}")
    if not plugin.meta:
        raise RuntimeError(f"the hidden suite {str(suite_dir)!r} has no tests")
    results = []
    for nodeid, (points, area) in plugin.meta.items():
        state = plugin.outcomes.get(nodeid, _Outcome(False, say("judge.not_run")))
        results.append(TestOutcome(name=nodeid, points=points, area=area, passed=state.passed, output=state.output))
    return results, seconds


def _pytest_main(suite_dir: Path, ini: Path, plugin: JudgePlugin, sink: io.StringIO) -> int:
    # No plugin that happens to be installed (pytest-randomly, -timeout, -xdist, hypothesis...) takes part:
    # the suite runs the same on every instructor's machine, and loading them would cost ~1.5 s per run.
    # no:unraisableexception spares two full garbage collections over torch's heap at every shutdown.
    args = [
        str(suite_dir),
        "-q",
        "--disable-plugin-autoload",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        "no:unraisableexception",
        "--import-mode=importlib",
        "--assert=plain",
        "-o",
        "addopts=",
        "--rootdir",
        str(suite_dir),
        "-c",
        str(ini),
        "--capture=sys",
        "--disable-warnings",
        "--no-header",
        "-o",
        "console_output_style=classic",
    ]
    # An enclosing pytest session (the kit's own tests) leaves its assertion rewriter in sys.meta_path; it
    # would rewrite the suite's asserts and put their source text into the students' feedback.
    saved_meta_path = list(sys.meta_path)
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "AssertionRewritingHook"]
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            return pytest.main(args, plugins=[plugin])
    finally:
        sys.meta_path[:] = saved_meta_path
        _purge_modules(suite_dir)
