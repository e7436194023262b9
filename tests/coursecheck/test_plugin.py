"""The self-check's summary at the end of ``pytest`` (coursecheck/plugin.py), on the toy selftest's checks: one
heading for the checks that wait, a syntax error said as the grader says it, and the list of what the self-check
covers once it helps (every check passed, or ``pytest -v``), one line before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coursecheck.messages import MESSAGES
from coursecheck.plugin import Run, as_tests


class _Summary:
    """What pytest hands ``pytest_terminal_summary``, reduced to what the summary writes: its lines, and its
    sections' headings as ``== title ==``."""

    def __init__(self, verbosity: int = 0) -> None:
        self.lines: list[str] = []
        self.config = self
        self.verbosity = verbosity
        self.fullwidth = 80
        self.stats: dict[str, list] = {"passed": [object()]}  # what pytest's last line counts

    def get_terminal_writer(self):
        return self

    def get_verbosity(self) -> int:
        return self.verbosity

    def write_line(self, line: str) -> None:
        self.lines.append(line)

    def write_sep(self, sep: str, title: str, fullwidth: int) -> None:
        self.lines.append(f"== {title} ==")


def _summarised(selftest, tmp_path: Path, body: str, verbosity: int = 0, after: str = "") -> _Summary:
    path = tmp_path / "answer.py"
    path.write_text(f"import torch\n\n\ndef add(a, b):\n{body}\n{after}", encoding="utf-8")
    run = Run(selftest.SELF_CHECK, tmp_path)
    run.path, run._loaded = path, selftest.SELF_CHECK.load(path)
    said = _Summary(verbosity)
    run.pytest_terminal_summary(said, 1, said)
    said.run = run
    return said


def _summary(selftest, tmp_path: Path, body: str, verbosity: int = 0) -> list[str]:
    return _summarised(selftest, tmp_path, body, verbosity).lines


@pytest.mark.parametrize(
    "language, heading, under",
    [
        (
            "en",
            "not checked yet",
            "  until “add(a, b) is a + b for two tensors of one shape”",
        ),
        (
            "zh",
            "尚未检查",
            "  要等“形状相同时 add(a, b) 等于 a + b”通过之后才检查：",
        ),
    ],
)
def test_the_heading_over_checks_that_wait_is_short_and_names_the_check_on_the_line_under_it(
    selftest, tmp_path, monkeypatch, language, heading, under
):
    """Issue 48: the heading packed a whole check's title into its rule ("= 尚未检查：要等“模型构建完成时，…”通过之后
    才检查 ="): it is short, and the check waited for is named on the line under it, over the checks that wait."""
    monkeypatch.setenv("SELFTEST_LANG", language)
    lines = _summary(selftest, tmp_path, "    return a - b")
    start = lines.index(f"== {heading} ==")
    assert lines[start + 1].startswith(under) and lines[start + 2].startswith("    - "), lines


def test_the_checks_that_wait_are_under_one_heading_that_says_what_they_wait_for(selftest, tmp_path):
    """Issue 48: a heading ("they run once the check they wait for passes") over a second one ("waiting for X:")."""
    lines = _summary(selftest, tmp_path, "    raise NotImplementedError()")
    headings = [line for line in lines if line.startswith("==")]
    assert headings[0] == "== not checked until add is implemented ==", lines
    assert lines[lines.index(headings[0]) + 1].startswith("  - ") and not any("waiting" in line for line in lines)


@pytest.mark.parametrize(
    "body, verbosity, listed",
    [("    return a - b", 0, False), ("    return a - b", 1, True), ("    return a + b", 0, True)],
)
def test_what_the_self_check_covers_is_listed_once_every_check_passes_or_with_v(
    selftest, tmp_path, body, verbosity, listed
):
    """Issue 48: the whole list, printed on every run, pushed what failed up the screen."""
    lines = _summary(selftest, tmp_path, body, verbosity)
    # Issue 48: "这份自检检查了什么" (what it checks) over a count alone: the short summary has its own title
    heading = "== what this self-check covers ==" if listed else "== this self-check in brief =="
    assert ("== what this self-check covers ==" in lines) == listed
    covers = lines[lines.index(heading) + 1 :]
    titles = [f"  - {title}" for title in (check.title for check in selftest.SELF_CHECK.checks.values())]
    assert all(title in covers for title in titles) == listed, covers
    # Issue 48: "16 checks here" under pytest's "17 passed": the first test (every cell in time) is a check too
    tests = len(as_tests(selftest.SELF_CHECK))
    assert tests == len(titles) + 1
    if listed:
        assert covers[0].startswith("First, that every cell of the notebook finishes"), covers
        assert covers[1] == "Then, on small tensors:", covers  # round 25: the list follows "First", not "here"
    else:
        # round 19: the count says whose checks they are ("这里共有" read as "here, somewhere")
        assert covers == [f"This self-check has {tests} checks (pytest -v lists them); " + covers[0].split("; ", 1)[1]]
    # Issue 48: "save before running pytest", said after pytest ran, is said as what to do if the results look stale
    assert covers[-1].endswith(
        "If the results do not match the code you just changed, save the notebook and run pytest again."
    ), covers


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_cell_that_raised_is_counted_in_pytests_last_line_and_in_the_editions_words_above_it(
    selftest, tmp_path, monkeypatch, language
):
    """Issue 48: a demonstration the student changed raised, every check passed, and the run ended on a green
    "17 passed" that a student reads as all clear. The cell is counted in that line (a count pytest does not know
    turns it yellow), its rule as wide as the terminal; no test fails for it, since the grader takes no points for
    it either. That line is pytest's, English in every edition ("17 passed, 1 个单元格出错 in 0.95s" mixed the
    two): the Chinese edition counts the cell in its own words on the line above it."""
    monkeypatch.setenv("SELFTEST_LANG", language)
    said = _summarised(selftest, tmp_path, "    return a + b", after="\n\n# %%\nraise ValueError('a demo')\n")
    assert [len(cells) for cells in said.stats.values()] == [1, 1] and "cell raised" in said.stats, said.stats
    counted = {"en": True, "zh": False}[language]  # pytest's English line counts it only where no line above does
    assert [cell.count_towards_summary for cell in said.stats["cell raised"]] == [counted], said.stats
    assert said.fullwidth == 80
    section = "见上面的“从上到下运行 notebook 时出错的单元格”。"
    # issue 48: "另有" (besides) said the cell came besides failures when every check passed
    alone = {"en": "", "zh": "此外，有 1 个单元格运行出错，" + section}
    besides = {"en": "", "zh": "另有 1 个单元格运行出错，" + section}
    assert said.run.told(failed=False) == alone[language] and said.run.told(failed=True) == besides[language]
    fine = _summarised(selftest, tmp_path, "    return a + b")
    assert list(fine.stats) == ["passed"] and fine.fullwidth == 80 and fine.run.told(failed=False) == ""


def test_the_editions_count_is_the_last_line_before_pytests_own(selftest_release, tmp_path):
    """The Chinese line above pytest's last one, in a real run of the release: after pytest's own summary."""
    import shutil
    import subprocess
    import sys

    folder = shutil.copytree(selftest_release, tmp_path / "selftest")
    env = {**os.environ, "SELFTEST_LANG": "zh", "SELFTEST_SUBMISSION": "answer.py", "COLUMNS": "100"}
    section = "1 个单元格运行出错，见上面的“从上到下运行 notebook 时出错的单元格”。"
    for body, opens in (("a + b", "此外，有 "), ("a - b", "另有 ")):  # every check passed; one failed besides
        (folder / "answer.py").write_text(
            f"import torch\n\n\ndef add(a, b):\n    return {body}\n\n\n# %%\nraise ValueError('a demo')\n", "utf-8"
        )
        ran = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        lines = ran.stdout.rstrip().splitlines()
        assert lines[-2] == opens + section, ran.stdout
        assert "cell raised" not in lines[-1] and "个单元格出错" not in lines[-1], ran.stdout
        assert (" failed" in lines[-1]) == (body == "a - b") and " passed" in lines[-1], ran.stdout
        # round 19: the short summary counts the self-check's checks (本次自检共), not checks "here" (这里共有)
        assert "本次自检共 " in ran.stdout and "这里共有" not in ran.stdout, ran.stdout


@pytest.mark.parametrize(
    "language, said",
    [
        (
            "en",
            "Syntax error at cell 1, line 5 (or on the line before it, e.g. a bracket left open): “return a +”"
            " (SyntaxError: invalid syntax)",
        ),
        (
            "zh",
            "第 1 个单元格第 5 行有语法错误（也可能在它前面一行，例如括号没有闭合）：“return a +”，"
            "Python 的提示是“SyntaxError: invalid syntax”",
        ),
    ],
)
def test_a_cell_python_could_not_read_is_said_as_the_grader_says_it(selftest, tmp_path, monkeypatch, language, said):
    """Issue 48: the self-check quoted Python's English ("SyntaxError: invalid syntax (line 5: ...)") where the
    grader says the line in the student's language. Round 26: past line 1 it adds, as the grader does, that the
    mistake may be on the line before; on line 1 it does not."""
    monkeypatch.setenv("SELFTEST_LANG", language)
    path = tmp_path / "answer.py"
    path.write_text("import torch\n\n\ndef add(a, b):\n    return a +\n", encoding="utf-8")
    loaded = selftest.SELF_CHECK.load(path)
    assert loaded.session.outcome("test_add_returns_a_tensor").status == "failed"
    assert said in loaded.session.outcome("test_add_returns_a_tensor").message
    path.write_text("def add(a, b) return a + b\n", encoding="utf-8")
    message = selftest.SELF_CHECK.load(path).session.outcome("test_add_returns_a_tensor").message
    assert said.split(" (or", 1)[0].split("（也可能", 1)[0].replace("5", "1") in message, message
    assert "(or on the line before it" not in message and "也可能在它前面一行" not in message, message


def test_the_self_checks_hint_on_the_line_before_is_the_graders():
    """The self-check cannot import the engine's catalog; its entry holds the grader's words, both languages."""
    from autograder.grading.catalog import MESSAGES as ENGINE

    assert tuple(MESSAGES["check.syntax_before"]) == tuple(ENGINE["run.syntax_before"])


def test_the_note_under_cells_that_raised_says_it_counts_cells_as_the_grader_does():
    """Issue 48, round 19: "第 35 行（从 notebook 顶部的第 1 个单元格数起…）" read as lines counted from the top; the
    note names what it counts in the words of check.cells_counted (the grader's run.cells_counted)."""
    counted = MESSAGES["check.cells_counted"][1].rstrip("。")
    for key in ("check.raised.note", "check.raised.note_stub"):
        assert MESSAGES[key][1].startswith(f"（{counted}"), MESSAGES[key]


def test_the_chinese_summary_says_pytest_v_lists_the_checks_by_their_english_names():
    """Issue 48, round 20: pytest -v lists the test functions' English names, not the Chinese titles above."""
    # round 22: one clause; round 24: "不计分" once, the hidden suite's wider reach said where it grades
    said = MESSAGES["check.covers.short"][1]
    assert said.startswith(
        "本次自检共 {n} 项检查（pytest -v 可列出英文测试名）；自检不计分，成绩由覆盖面更广的隐藏测试给出。"
    )
    assert said.count("不计分") == 1 and MESSAGES["check.covers.section_short"][1] == "自检小结"


def test_each_assignments_list_of_checks_follows_the_first_check_as_then():
    """Issue 48, round 25: the summary says "首先检查……。" and then each assignment's list; its line said
    "这里用……检查：", which does not follow "首先". Every assignment's line goes on from it with "然后" / "Then"."""
    from autograder.graders.selftest.messages import CATALOG as SELFTEST
    from autograder.graders.weight_tying.messages_checks import MESSAGES as WEIGHT_TYING

    first = MESSAGES["check.covers.in_time"]
    assert first[0].startswith("First, ") and first[1].startswith("首先")
    toy = SELFTEST["selftest.check.covers.here"]
    lines = {"weight_tying": WEIGHT_TYING["check.covers.here"], "selftest": (toy.en, toy.zh)}
    wrong = {
        key: line for key, line in lines.items() if not (line[0].startswith("Then, ") and line[1].startswith("然后"))
    }
    assert wrong == {}
