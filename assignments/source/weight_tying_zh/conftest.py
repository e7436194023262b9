"""Self-check plumbing: loads your notebook once, hands its classes to the checks, and sums up the run.

By default it checks weight_tying.ipynb next to this file. To check another file (a copy of the notebook, or
a .py with the two classes):  WEIGHT_TYING_SUBMISSION=path/to/file.ipynb pytest
Messages follow this edition's language; WEIGHT_TYING_LANG=en or WEIGHT_TYING_LANG=zh chooses one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from weight_tying_checks import CHECKS, Session, language, say

from dnnlpy.selfcheck import find_submission, load_submission

HERE = Path(__file__).resolve().parent
ENV_VAR = "WEIGHT_TYING_SUBMISSION"
DEFAULT_NAME = "weight_tying.ipynb"
CLASSES = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")
NOT_COVERED = (
    "other sizes, seeds and default arguments",
    "the tie surviving .to(torch.float64), load_state_dict and an optimizer step",
    "the wrapper's shared gradient and its SGD step",
    "generation on other models and prompts, and other corner cases",
)
_STATE: dict = {}  # what pytest_configure found: path, session, load errors


def pytest_configure(config):
    """Find and run the submission once; a missing file or a bad setting is one clear error, not N failures."""
    try:
        language()  # a bad WEIGHT_TYING_LANG is named before anything runs (in English: no language yet)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    try:
        path = find_submission(HERE, default_name=DEFAULT_NAME, env_var=ENV_VAR)
        result = load_submission(path)
    except (FileNotFoundError, ValueError) as error:
        problem = str(error)
    else:
        problem = None
    if problem is not None:  # raised outside the except block: no chained traceback
        raise pytest.UsageError(say(problem))
    missing = {}
    for name in CLASSES:
        if name not in result.namespace:
            raised = "".join(f"\n  cell {i + 1}: “{message}”" for i, message in result.errors)
            missing[name] = (
                f"{path.name} does not define {name} after running all its cells."
                + (f" Cells that raised (counting from 1 at the top, markdown included):{raised}" if raised else "")
                + ("" if raised else " No cell raised: check the class name's spelling.")
            )
    classes = {name: result.namespace.get(name) for name in CLASSES}
    _STATE.update(path=path, session=Session(classes, missing), errors=result.errors)


def pytest_report_header(config):
    path = _STATE.get("path")
    return say(f"weight-tying self-check of {path}  (another file: {ENV_VAR}=path pytest)") if path else None


@pytest.fixture(scope="session")
def checks():
    """The checks' session on your classes: each check runs once, after the checks it needs."""
    return _STATE["session"]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    write = terminalreporter.write_line
    session = _STATE.get("session")
    if session is None:
        return
    waiting: dict[str, list[str]] = {}  # failed check -> the checks that wait for it
    for name in CHECKS:
        if session.outcome(name).status == "not checked":
            waiting.setdefault(session.blocker(name) or "?", []).append(name)
    if waiting:
        terminalreporter.section(say("not checked yet: they run once the failure they wait for is fixed"))
        for blocker, names in waiting.items():
            write(say(f"  waiting for {blocker}: {', '.join(names)}"))
    missing = set(session.missing)
    errors = [(i, m) for i, m in _STATE["errors"] if not missing]  # already shown in the failure otherwise
    if errors:
        terminalreporter.section(say("cells that raised while your notebook ran top to bottom"))
        for index, message in errors[:8]:
            write(say(f"  cell {index + 1}: “{message.rstrip(': ')[:160]}”"))
        if len(errors) > 8:
            write(say(f"  ... and {len(errors) - 8} more"))
        write(say("(cells count from 1, markdown included; NotImplementedError means a stub is still in place)"))
    terminalreporter.section(say("what this self-check covers"))
    write(say("Checked here, on small models built from your classes:"))
    for chk in CHECKS.values():
        write(f"  - {say(chk.title)}")
    write(say("The graded (hidden) suite checks more, for example:"))
    for line in NOT_COVERED:
        write(f"  - {say(line)}")
    write(say("These checks are worth no points: the hidden suite grades. Save the notebook before running pytest."))
