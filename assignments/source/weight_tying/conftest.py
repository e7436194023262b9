"""Self-check plumbing: loads your notebook (without its demonstration cells when it can), hands its classes to the
checks, and sums up the run.

By default it checks weight_tying.ipynb next to this file. To check another file (a copy of the notebook, or
a .py with the two classes):  WEIGHT_TYING_SUBMISSION=path/to/file.ipynb pytest
Messages follow this edition's language; WEIGHT_TYING_LANG=en or WEIGHT_TYING_LANG=zh chooses one.
Each cell and each check runs within a time budget, and so does the whole run (weight_tying_checks/budget.py);
on a slow machine WEIGHT_TYING_SECONDS=240 pytest gives the run more (each cell and check a quarter of it).
"""

from __future__ import annotations

import gc
import unicodedata
from pathlib import Path

import pytest

# torch's import makes hundreds of thousands of objects that live to the end of the run and no garbage worth
# collecting: the collector's full passes over them cost ~0.3-0.5 s of CPU, so it pauses while the checks'
# imports run, and what they made is then frozen out of its later passes (gc.freeze).
gc.disable()
try:
    from weight_tying_checks import CHECKS, language, tell, title, unloadable
    from weight_tying_checks.budget import clock_from_environment, stopped_cells
    from weight_tying_checks.demos import load, settle

    from coursecheck.selfcheck import find_submission
finally:
    gc.enable()
gc.freeze()

HERE = Path(__file__).resolve().parent
ENV_VAR = "WEIGHT_TYING_SUBMISSION"
DEFAULT_NAME = "weight_tying.ipynb"
NOT_COVERED = ("sizes", "tie", "gradient", "generation")  # check.covers.<key> in the message catalog
_STATE: dict = {}  # what pytest_configure found: path, the loaded submission


def pytest_configure(config):
    """Find and run the submission once; a missing file or a bad setting is one clear error, not N failures.

    The notebook's demonstration cells (tagged demo, as released) are left out while the run without them is
    clean; otherwise every cell runs, as the grader runs them (weight_tying_checks/demos.py says when)."""
    try:
        language()  # a bad WEIGHT_TYING_LANG is named before anything runs (in English: no language yet)
        clock = clock_from_environment()
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    try:
        path = find_submission(HERE, default_name=DEFAULT_NAME, env_var=ENV_VAR)
        loaded = load(path, clock)
    except (FileNotFoundError, ValueError) as error:
        problem = unloadable(error)
    else:
        problem = None
    if problem is not None:  # raised outside the except block: no chained traceback
        raise pytest.UsageError(problem)
    _STATE.update(path=path, loaded=loaded)


def _loaded():
    """The run whose checks are reported: settled once (every check on the run without demos, or the whole)."""
    if not _STATE.get("settled"):
        _STATE.update(loaded=settle(_STATE["loaded"]), settled=True)
    return _STATE["loaded"]


def pytest_report_header(config):
    path = _STATE.get("path")
    return tell("check.header", path=path, var=ENV_VAR) if path else None


@pytest.fixture(scope="session")
def checks():
    """The checks' session on your classes: each check runs once, after the checks it needs."""
    return _loaded().session


@pytest.fixture(scope="session")
def stopped():
    """Why the notebook did not run in time: the cells stopped at their time budget, named ("" when none was)."""
    loaded = _loaded()
    cells = stopped_cells(loaded.errors)
    if not cells:
        return ""
    seconds = f"{loaded.clock.step_limit:.0f}" if loaded.clock is not None else "?"
    lines = [tell("check.budget.cells_stopped", count=len(cells), seconds=seconds)]
    return "\n".join(lines + [f"  {loaded.cell(index)}" for index in cells])


def _section(terminalreporter, title: str) -> None:
    """A section's heading ("==== title ===="), its rule as wide as the terminal: pytest counts the title's
    characters, and a Chinese character takes two columns."""
    wide = sum(1 for char in title if unicodedata.east_asian_width(char) in "WF")
    width = terminalreporter.config.get_terminal_writer().fullwidth
    terminalreporter.write_sep("=", title, fullwidth=max(width - wide, len(title) + 4))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    write = terminalreporter.write_line
    if "loaded" not in _STATE:
        return
    loaded = _loaded()
    session = loaded.session
    waiting: dict[str, list[str]] = {}  # failed check -> the checks that wait for it
    for name in CHECKS:
        if session.outcome(name).status == "not checked":
            waiting.setdefault(session.blocker(name) or "?", []).append(name)
    if waiting:
        _section(terminalreporter, tell("check.waiting.section"))
        for blocker, names in waiting.items():  # by their titles: a test's function name is not the student's word
            write(tell("check.waiting", need=title(CHECKS[blocker]) if blocker in CHECKS else blocker))
            for name in names:
                write(f"    - {title(CHECKS[name])}")
    missing = set(session.missing)
    errors = [(i, m) for i, m in loaded.errors if not missing]  # already shown in the failure otherwise
    if errors:
        _section(terminalreporter, tell("check.raised.section"))
        stopped = set(stopped_cells(errors))
        for index, message in errors[:8]:
            if index in stopped:  # the self-check's own words after the exception's name, not the student's
                write(tell("check.cell_stopped", place=loaded.cell(index), why=message.partition(":")[2].strip()))
                continue
            write(tell("check.cell", place=loaded.cell(index), message=message.rstrip(": ")[:160]))
        if len(errors) > 8:
            write(tell("check.raised.more", count=len(errors) - 8))
        stub = any(message.partition(":")[0].strip() == "NotImplementedError" for _, message in errors)
        write(tell("check.raised.note_stub" if stub else "check.raised.note"))
    _section(terminalreporter, tell("check.covers.section"))
    write(tell("check.covers.here"))
    for chk in CHECKS.values():
        write(f"  - {title(chk)}")
    write(tell("check.covers.hidden"))
    for line in NOT_COVERED:
        write(f"  - {tell(f'check.covers.{line}')}")
    write(tell("check.covers.points"))
