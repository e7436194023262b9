"""The readable one-submission table: short test names, each failure's message under its row."""

from __future__ import annotations

import itertools
import re

from rich.console import Console

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.marking import apply_marking
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.table import readable_name, render
from autograder.protocol.said import Said

MESSAGE = (
    "generate() kept 12 tokens of context but block_size is 8: crop to the last block_size "
    "tokens before each step [red]not markup[/red]"
)


def _result(output: str = "Your code ran to the end.", message: str = MESSAGE) -> Result:
    """A result with no run facts (its summary as given), rendered as step 8 leaves it."""
    return rendered(_made(output, message), None)


def _made(output: str, message: str) -> Result:
    return Result(
        tests=[
            TestOutcome("test_identity.py::test_same_parameter", 2.0, "parameter identity", True),
            TestOutcome(
                "test_generation.py::test_generate_respects_block_size_when_the_prompt_is_long[3]",
                5.0,
                "generation",
                False,
                Finding(Said("judge.failed_your_code_raised", what="generate", text=message)),
            ),
        ],
        run=None,
        output=output,
    )


def test_readable_name_drops_file_and_test_prefix():
    assert readable_name("test_generation.py::test_generate_respects_block_size") == "generate respects block size"
    assert readable_name("test_x.py::test_shape[2-3]") == "shape [2-3]"
    assert readable_name("check_me") == "check_me".replace("_", " ")


def test_table_shows_each_charge_with_its_message_and_the_tests_it_covers_whole():
    console = Console(width=80, record=True, color_system=None)
    render(_result(), title="alice.ipynb", console=console)
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text and "test_generation.py" not in text
    flat = " ".join(" ".join(line.strip("│ ").split()) for line in lines)
    assert "generate respects block size when the" in flat
    # the charge's message, wrapped inside the table, then the test it covers; rich markup in it shown as is
    name_row = next(i for i, line in enumerate(lines) if "generate respects" in line)
    message_row = next(i for i, line in enumerate(lines) if "generate() kept 12" in line)
    assert message_row < name_row and "[red]not" in text
    assert "Score: 2 / 7" in text and "Points the grader took off: 5 points" in text
    # under the "cost" column the points it costs, not "-5" (a cost of minus five reads as a gain)
    assert re.search(r"│ +5 │ generate failed", text) and "-5" not in text, text


def test_student_text_never_reaches_the_terminal_as_escapes():
    import io

    hostile = _result(
        output="Run ok \x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b[2J\x9b31m",
        message="raised \x1b[31mValueError\x1b[0m\rhidden \x07bell",
    )
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system="truecolor")
    render(hostile, title="\x1b]0;pwned\x07alice.ipynb", console=console)
    printed = out.getvalue()
    # rich's own colours are escapes too: only OSC, bells, carriage returns, C1 and screen clears must be absent
    assert "\x1b]" not in printed and "\x07" not in printed and "\r" not in printed and "\x9b" not in printed
    assert "\x1b[2J" not in printed and "evil.example" not in printed
    assert "ValueError" in printed and "click" in printed and "alice.ipynb" in printed


def test_each_test_under_a_charge_says_what_it_is_worth_and_costs_in_the_pages_words():
    """Issue 48: "-4/4" beside "0/2 (counted above)" read as points earned. Each test says what it is worth and
    what it costs here as the page does (该测试 6 分，扣 3 分), a test covered at no cost of its own says so plainly,
    and why only part of the tests' points is charged is said once for the area (the mistake's cost there)."""
    from autograder.graders import get_assignment
    from autograder.grading.marking import apply_marking

    spec = get_assignment("weight_tying")
    copy = Finding(Said("diag.tie.copied"), names="two_tables")
    knock = Finding(
        Said("note.gradient_not_checked_not_tied_product", what="TiedEmbeddingLM"),
        waits_on="test_tied_lm_head_is_the_embedding_parameter",
    )
    failing = {"test_tied_lm_head_is_the_embedding_parameter": copy, "test_tied_lm_float64": knock}
    failing |= dict.fromkeys(
        ("test_tied_lm_shared_gradient_is_sum_of_paths", "test_tied_lm_sgd_step_updates_table_once"), knock
    )
    tests = [
        TestOutcome(f"t.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in spec.scheme.tests.values()
    ]
    texts = {}
    for language in ("en", "zh"):
        result = apply_marking(Result(tests=tests, run=None, output="x", language=language), spec.scheme)
        console = Console(width=200, record=True, color_system=None)
        render(rendered(result, spec), console=console)  # as step 8 leaves it
        texts[language] = " ".join(" ".join(line.strip("│ ").split()) for line in console.export_text().splitlines())
    zh, en = texts["zh"], texts["en"]
    # each test's area and cost as the page says them ("（评分项：…）", review round 14); in an area whose cap note
    # says the mistake's fixed cost, a test says its worth alone (issue 48, round 24: "扣 3 分" beside "不扣分")
    assert (
        "（评分项：共享同一参数对象；该测试 8 分，扣 8 分）" in zh
        and "（评分项：两条路径的梯度相加；该测试 6 分）" in zh
        and "（评分项：两条路径的梯度相加；该测试 3 分）" in zh
    )
    assert "（评分项：形状与输出数值；该测试 1 分）" in zh and "不扣分）" not in zh and "不另扣分" not in zh
    assert "0/1（" not in zh and "-8/8" not in zh and "扣 3 分" not in zh
    # the area's cost, said once under the tests it holds back (not under one of them, as if it were the test's)
    cap = "这个错误在“两条路径的梯度相加”一项固定扣 6 分，"
    cap += "所以上面属于这一项的 2 个测试（共 9 分）合计只扣 6 分。"
    assert zh.count(cap) == 1 and zh.index(cap) > zh.index("该测试 3 分）")
    assert "(gradient accumulation, worth 6)" in en and "(shape flow, worth 1)" in en and "not charged" not in en
    assert "(parameter identity, −8 of its 8)" in en
    assert en.count("this mistake costs a fixed 6 points, so the 2 tests of that area above (worth 9 points)") == 1
    # the tests area by area, in the areas' order (the last line's), each cap note right under its area's tests
    areas = [zh.index(f"（评分项：{a}；") for a in ("共享同一参数对象", "形状与输出数值", "两条路径的梯度相加")]
    assert areas == sorted(areas) and zh.index("一项不再扣分") < areas[2], areas


def test_a_blank_hand_in_is_a_few_lines_and_a_syntax_error_is_said_before_what_follows_from_it():
    """Issue 48: an empty file printed 27 lines (a row per test); now its score, that one fact and what to do. A
    file whose code never compiled says so (with the line) before the charges, which point up at it."""
    from autograder.graders import get_assignment
    from autograder.grading.marking import apply_marking
    from autograder.grading.result import RunFacts

    spec = get_assignment("weight_tying")
    names = ["TiedEmbeddingLM", "MiniGPTWithWeightTying"]
    missing = {True: "judge.class_not_defined_syntax", False: "judge.class_not_defined"}

    def text(run: RunFacts, syntax: bool) -> list[str]:
        tests = [
            TestOutcome(f"x.py::{t.name}", t.points, t.area, False, Finding(Said(missing[syntax], name=names[0])))
            for t in spec.scheme.tests.values()
        ]
        result = apply_marking(Result(tests=tests, run=run, language="zh"), spec.scheme)
        console = Console(width=120, record=True, color_system=None)
        render(rendered(result, spec, kind="py"), title="a.py", console=console)
        return console.export_text().splitlines()

    empty = text(RunFacts(status="ok", required_names=names, empty=True, parts=1), False)
    assert empty == [
        "a.py",
        "得分：0 / 100",
        "空白提交：没有代码，或只有初始代码。",
        "请完成练习，在作业文件夹中运行自检（pytest），然后重新提交。",
    ]
    error = "SyntaxError: invalid syntax (line 13: def __init__(self:, vocab_size):)"
    broken = text(RunFacts(status="ok", required_names=names, load_errors=[[0, error]], parts=1), True)
    before = "（也可能在它前面一行，例如括号没有闭合）"  # where Python stopped may be past the mistake
    assert broken[2:7] == [
        "代码的运行情况：",
        "你的文件有语法错误，Python 一行都没有运行：",
        f"第 13 行有语法错误{before}：“def __init__(self:, vocab_size):”，Python 的提示是",
        "“SyntaxError: invalid syntax”。",  # folded at the console's 120 columns
        "由于这个语法错误，TiedEmbeddingLM 和 MiniGPTWithWeightTying 都没有定义。",
    ]
    assert "由于语法错误，TiedEmbeddingLM 没有定义（见上面的“代码的运行情况”）" in "".join(broken)
    assert not [line for line in broken if "部分" in line]  # a file of one part is the file
    # nothing ran: a line per area with what its tests cost, not the 28 tests' titles (issue 48, round 12)
    lines = [line.strip("│ ") for line in broken if line.startswith("│") and "· " in line]
    areas = {t.area for t in spec.scheme.tests.values()}  # each exercise's card: its areas
    assert len(areas) < len(lines) <= 2 * len(areas) and "· 共享同一参数对象：3 个测试，扣 12 分" in lines, lines
    assert sum(int(line.split("扣 ")[1].split(" 分")[0]) for line in lines) == 100
    # the areas as the last line lists them, " · " between them as on the page (round 19, item 7: was two spaces)
    # (wrapped between areas, never inside one: "…：0 / 16 ·" then "贪心生成：0 / 18")
    after = " ".join(line.strip() for line in broken[max(i for i, line in enumerate(broken) if "└" in line) + 1 :])
    order = [part.split("：")[0] for part in after.split(" · ")]
    assert all(re.fullmatch(r"\S+：\d+ / \d+", part) for part in after.split(" · ")), after
    at = [order.index(line[2:].split("：")[0]) for line in lines]  # each card's lines in that order too
    assert sum(b < a for a, b in itertools.pairwise(at)) == 1 and len(order) == len(areas), (order, lines)
    assert not [line for line in broken if line.startswith("评分规则")]  # no common mistake charged: no rule
    listed = text(RunFacts(status="ok", required_names=names), False)  # not a syntax error: each test by its title
    assert len([line for line in listed if line.startswith("│") and "· " in line]) == len(spec.scheme.tests)
    # round 10: the run's block has one place, under the score, whether the code compiled or not
    ran = text(RunFacts(status="ok", required_names=names, parts=1), False)
    assert ran[2:4] == ["代码的运行情况：", "你的文件从头到尾运行完毕，没有出错。"], ran
    # what ran, by the submission's kind (RunFacts.unit): every cell, not "your code", which a check may find
    # raising below (issue 48, round 24)
    ran = text(RunFacts(status="ok", required_names=names, cells={1: "code", 2: "code"}), False)
    assert ran[2:4] == ["代码的运行情况：", "notebook 的各单元格从头到尾运行完毕，没有出错。"], ran


def test_the_points_lost_in_all_say_one_point_as_one_point():
    """Issue 48, round 17, item 5: one point lost read "1 points" on the terminal (the page said "1 point")."""
    one = Result(
        tests=[
            TestOutcome("t.py::test_passes", 2.0, "parameter identity", True),
            TestOutcome(
                "t.py::test_fails",
                1.0,
                "generation",
                False,
                Finding(Said("judge.failed_your_code_raised", what="generate", text="boom")),
            ),
        ],
        run=None,
        output="x",
    )
    console = Console(width=100, record=True, color_system=None)
    render(rendered(one, None), console=console)
    text = console.export_text()
    assert "Points the grader took off: 1 point," in text and "1 points" not in text, text


def test_a_chinese_charge_never_breaks_a_line_inside_an_area_name_or_the_kits_own_words():
    """Issue 48, round 18, item 4: a piped terminal (120 columns) showed "已在其│他评分项中扣分": a line of the charge
    column ended inside a word. It ends before an area's name or a word of the kit's own (page.terminal_words),
    at 80, 100 and 120 columns."""
    spec = get_assignment("weight_tying")
    copied = Finding(Said("diag.tie.copied"), names="two_tables")
    failing = {
        "test_tied_lm_head_is_the_embedding_parameter": copied,
        "test_tied_lm_tie_survives_to_float64": copied,
        "test_tied_lm_float64": copied,  # the area costs nothing for it: the note says it is charged elsewhere
        "test_tied_lm_shared_gradient_is_sum_of_paths": copied,
        "test_tied_lm_sgd_step_updates_table_once": copied,
    }
    tests = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in spec.scheme.tests.values()
    ]
    result = apply_marking(Result(tests=tests, run=RunFacts(status="ok"), language="zh"), spec.scheme)
    shown = rendered(result, spec)
    words = [a.name for a in shown.shown_in("zh").areas] + ["其他评分项", "固定扣分"]
    for width in (80, 100, 120):
        console = Console(width=width, record=True, color_system=None)
        render(shown, console=console)
        cells = [line.split("│")[2].strip() for line in console.export_text().splitlines() if line.count("│") >= 3]
        joined = "\n".join(cells)
        assert "（已在其他评分项扣过）" in joined.replace("\n", ""), joined
        for word in words:
            cut = [word[:k] + "\n" + word[k:] for k in range(1, len(word))]
            assert not any(c in joined for c in cut), (width, word, joined)


def test_a_cell_named_where_the_code_raised_says_once_how_cells_are_counted():
    """Issue 48, round 19: the terminal named the cell a runtime error raised in ("第 25 个单元格第 35 行") with no
    word on how cells are counted, which the syntax error's lines and the self-check give: said once, under the
    charges; not for a .py file, whose messages name lines only."""
    from autograder.grading.catalog import render as render_catalog
    from autograder.grading.judge.suite_api import say

    def shown(at: Said, language: str) -> str:
        raised = Said("judge.failed_your_code_raised", what="generate", text=say("run.cell_raised", cell=at, error="E"))
        tests = [TestOutcome(f"t.py::test_{n}", 1.0, "generation", False, Finding(raised)) for n in range(2)]
        console = Console(width=200, record=True, color_system=None)
        render(rendered(Result(tests=tests, run=RunFacts(status="ok"), language=language), None), console=console)
        return console.export_text()

    for language in ("en", "zh"):
        counted = render_catalog("run.cells_counted", language)
        cell = say("judge.raised_at", place=Said("cell.place.bare", number=25), line=35, function="")
        assert shown(cell, language).count(counted) == 1, shown(cell, language)
        assert counted not in shown(say("judge.raised_at_line", line=35, function=""), language)
