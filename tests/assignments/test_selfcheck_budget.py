"""The self-check never hangs: each cell and each check runs within a time budget, and so does the whole run.

Each test runs `pytest` in a copy of an edition's folder, as a student does, on the source notebook (the
reference answers in its exercise cells) with one edit, under a small budget (WEIGHT_TYING_SECONDS=8: each
cell and check 2 s). What a student must see: the self-check ends, fails, and names the cell or check that
hung the way the grader's pages name it (number from 1, section, first line).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time

import pytest

from autograder.graders.kit import COURSE_DIR
from coursecheck.messages import MESSAGES

EDITIONS = {"en": "weight_tying", "zh": "weight_tying_zh"}
TRY_IT = "torch.manual_seed(0)\nmodel = MiniGPTWithWeightTying"  # the try-it cell's first lines, both editions
BUDGET = "8"  # WEIGHT_TYING_SECONDS: each cell and check gets 2 s
TRY_IT_NAME = {
    "en": "cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)",
    "zh": "第 30 个单元格（“10. 动手试试”一节，以“torch.manual_seed(0)”开头）",
}


def _folder(tmp_path, language: str, edit) -> object:
    """A copy of the edition's source folder whose notebook went through `edit(cells)`."""
    folder = tmp_path / EDITIONS[language]
    shutil.copytree(
        COURSE_DIR / "source" / EDITIONS[language], folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest*")
    )
    path = folder / "weight_tying.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    edit(nb["cells"])
    path.write_text(json.dumps(nb), encoding="utf-8")
    return folder


def _cell(cells, start: str) -> dict:
    return next(c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).startswith(start))


def _pytest(folder, env, seconds: str = BUDGET) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest"],
        cwd=folder,
        env={**env, "WEIGHT_TYING_SECONDS": seconds},
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, time.monotonic() - started


@pytest.mark.parametrize("language", list(EDITIONS))
def _loop_lines(source: str) -> set[int]:
    """The lines (from 1) of the `while True:` loop a test adds at the end of a cell: where it is stopped."""
    lines = source.splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip() == "while True:") + 1
    return {start, start + 1}


LINE_OF = {"en": r"while running line (\d+) of ", "zh": r"当时正在运行.*?的第 (\d+) 行"}


@pytest.mark.parametrize("language", list(EDITIONS))
def test_an_endless_try_it_cell_fails_the_self_check_naming_the_cell_and_is_stopped_once(tmp_path, env, language):
    edited = {}

    def edit(cells):
        cell = _cell(cells, TRY_IT)
        # first, so that the cell's own work (a generate) never uses its budget up before the loop starts
        loop = "open('started.txt', 'a').write('x')\nwhile True:\n    pass\n"
        cell["source"] = edited["source"] = "".join(cell["source"]).replace(
            "torch.manual_seed(0)\n", "torch.manual_seed(0)\n" + loop, 1
        )

    folder = _folder(tmp_path, language, edit)
    proc, seconds = _pytest(folder, env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "test_every_cell_finishes_in_time" in out and "1 failed" in out and "16 passed" in out, out[-3000:]
    assert TRY_IT_NAME[language] in out, out[-3000:]
    note = MESSAGES["check.raised.note"][language == "zh"]  # issue 48: the listed cells, how they are counted
    assert f"  {TRY_IT_NAME[language]}\n{note}\n" in out, out[-3000:]
    line = re.search(LINE_OF[language] + (re.escape(TRY_IT_NAME[language]) if language == "en" else ""), out)
    assert line and int(line.group(1)) in _loop_lines(edited["source"]), out[-3000:]  # the line that loops
    assert "TimeBudgetExceeded" not in out  # the self-check's own words, never shown as the student's exception
    assert "NotImplementedError" not in out  # no stub raised, so the note does not explain one
    assert (folder / "started.txt").read_text() == "x"  # the run of every cell after it did not start it again
    assert seconds < 60, f"the self-check took {seconds:.0f} s"


def test_an_endless_generate_fails_its_check_naming_the_line_and_the_other_checks_still_run(tmp_path, env):
    edited = {}

    def edit(cells):
        cell = _cell(cells, "class MiniGPTWithWeightTying")
        source = "".join(cell["source"])
        endless = "    def generate(self, *args, **kwargs):\n        while True:\n            pass\n\n"
        cell["source"] = edited["source"] = source.replace("    def generate(self", endless + "    def _unused(self", 1)

    proc, _ = _pytest(_folder(tmp_path, "en", edit), env)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    assert "FAILED test_weight_tying.py::test_generate_writes_its_own_loop" in out, out[-3000:]
    assert "stopped after 2 s, the self-check's limit for one check" in out
    # issue 45: the message named the check, not the line that loops
    line = re.search(r"it was running line (\d+) of cell \d+ \(in “[^”]+”, starting “class MiniGPTWithWeightTying", out)
    assert line and int(line.group(1)) in _loop_lines(edited["source"]), out[-3000:]
    # issue 48 (round 24: the note on a line of its own, in the grader's words)
    assert "(an endless loop?)\n  Cells are numbered from 1 at the top of the notebook, text cells included." in out
    assert "1 failed, 13 passed, 3 skipped" in out  # the checks that wait for it are not checked: nothing hangs


def test_code_that_cannot_be_interrupted_is_stopped_hard_naming_the_cell(tmp_path, env):
    """A loop that swallows every interrupt: the self-check still ends, a few seconds past the cell's budget."""

    def edit(cells):
        swallow = "import time\nwhile True:\n    try:\n        time.sleep(5)\n    except BaseException:\n        pass\n"
        _cell(cells, TRY_IT)["source"] = swallow

    proc, seconds = _pytest(_folder(tmp_path, "en", edit), env)
    assert proc.returncode == 1
    assert "The self-check stopped: cell 30 (in “10. Try it”, starting “import time”) ran past its 2 s limit" in (
        proc.stderr
    ), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert seconds < 60


def test_a_bad_budget_setting_is_named_before_anything_runs(tmp_path, env):
    proc, _ = _pytest(_folder(tmp_path, "en", lambda cells: None), env, seconds="soon")
    assert proc.returncode != 0
    assert "WEIGHT_TYING_SECONDS='soon' is not a number of seconds: use e.g. WEIGHT_TYING_SECONDS=240" in proc.stderr


@pytest.mark.parametrize("language", list(EDITIONS))
def test_the_notebook_states_the_budgets_the_self_check_keeps(build_script, checks, language):
    from coursecheck import budget

    text = "".join("".join(c.source) for c in build_script.build_notebook(language).cells if c.cell_type == "markdown")
    minutes = budget.RUN_SECONDS // 60
    expected = {
        "en": (f"{budget.STEP_SECONDS} s", f"{minutes} minutes"),
        "zh": (f"{budget.STEP_SECONDS} 秒", f"{minutes} 分钟"),
    }[language]
    assert all(words in text for words in expected), expected


def test_the_whole_runs_budget_shrinks_each_step_left_down_to_the_floor(checks):
    """Each step gets its share, at most what is left of the run's budget, at least the floor: a run whose every
    step used its share could otherwise take 30 s a step for ever (no test held it: issue 45)."""
    from coursecheck.budget import FLOOR_SECONDS, Clock

    clock = Clock(checks.SELF_CHECK.words, run_seconds=40.0)  # each step at most 10 s
    assert clock.step_seconds() == pytest.approx(10.0, abs=0.1)
    clock._start -= 35.0  # 35 s of the run spent: 5 s left for the next step
    assert clock.step_seconds() == pytest.approx(5.0, abs=0.1)
    clock._start -= 60.0  # the run's budget spent: the floor, so a cell that defines a class still runs
    assert clock.step_seconds() == FLOOR_SECONDS


def test_without_a_timer_signal_the_watchdog_interrupts_the_step(checks, monkeypatch):
    """Windows has no SIGALRM: the watchdog thread raises the interrupt in the main thread instead."""
    import signal

    from coursecheck.budget import Clock

    monkeypatch.delattr(signal, "setitimer")
    clock = Clock(checks.SELF_CHECK.words, run_seconds=4.0)  # each step 1 s

    def endless():
        while True:
            pass

    started = time.monotonic()
    stopped, value = clock.run("an endless loop", endless)
    assert stopped.seconds == 1.0 and value is None and time.monotonic() - started < 5
    assert (stopped.place, stopped.line) == ("", 0)  # this file is no notebook cell: no line to name
    assert clock.run("a quick step", lambda: 42) == (None, 42)
