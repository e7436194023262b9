"""Self-check plumbing (coursecheck/plugin.py, in the course's wheel): checks selftest.ipynb next to this file, or
the file SELFTEST_SUBMISSION=path/to/file.ipynb names (a .py with `add` too); SELFTEST_LANG=en or zh chooses the
messages' language, SELFTEST_SECONDS=240 gives a slow machine more time."""

from __future__ import annotations

from pathlib import Path

from selftest_checks import SELF_CHECK

from coursecheck.plugin import Run

RUN = Run(SELF_CHECK, Path(__file__).resolve().parent)  # the submission is found and run once, at configure time
pytest_configure = RUN.pytest_configure
pytest_report_header = RUN.pytest_report_header
pytest_terminal_summary = RUN.pytest_terminal_summary
checks = RUN.checks_fixture  # the checks' session on your function: each check runs once
stopped = RUN.stopped_fixture  # the cells stopped at their time budget, named
