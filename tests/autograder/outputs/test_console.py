"""The command line's console: a terminal's width in a terminal, no wrapping in a pipe or a log."""

from __future__ import annotations

import io

from autograder.outputs.console import make_console


def test_a_sentence_is_never_wrapped_when_the_output_is_not_a_terminal():
    buffer = io.StringIO()
    sentence = "reference solution graded in 2.31 s (ok); " + "every verdict was checked against its header " * 3
    console = make_console(file=buffer)
    console.print(sentence, markup=False)
    assert buffer.getvalue() == sentence + "\n" and not console.is_terminal


def test_a_table_outside_a_terminal_is_as_wide_as_columns_says(monkeypatch):
    from rich.table import Table

    table = Table()
    table.add_column("what", ratio=1)
    table.add_row("word " * 80)
    for columns, width in (("90", 90), ("", 120), ("wide", 120)):
        monkeypatch.setenv("COLUMNS", columns)
        buffer = io.StringIO()
        make_console(file=buffer).print(table)
        assert max(len(line) for line in buffer.getvalue().splitlines()) == width, columns


def test_chinese_wraps_between_characters_never_between_a_number_and_its_unit():
    from rich.console import Console
    from rich.table import Table

    from autograder.outputs.console import Words, break_points
    from autograder.outputs.wording import page_words

    text = "上下文不超过 block_size 时，每一步都取 argmax（评分项：贪心生成；该测试 2 分，已计入上面的扣分）"
    for width in range(12, 60):
        for cut in break_points(text, width):
            assert text[cut] not in "，。：；）”" and text[cut - 1] not in "（“", (width, text[cut - 3 : cut + 3])
            latin = (text[cut - 1] + text[cut]).isascii() and (text[cut - 1] + text[cut]).isalnum()  # inside a word
            assert text[cut - 2 : cut + 1] != "2 分" and not latin, (width, text[cut - 3 : cut + 3])
    console = Console(width=44, record=True, color_system=None)
    table = Table(show_lines=True)
    table.add_column(page_words("zh")["cost_column"], no_wrap=True)
    table.add_column(page_words("zh")["charge_column"], ratio=1)
    table.add_row("-4", Words(text))
    console.print(table)
    lines = [line.strip("│ ") for line in console.export_text().splitlines() if "│" in line]
    # rich alone breaks only at spaces: a line of three characters, then "分，已计入..." on the next
    assert all(len(line) > 8 for line in lines[:-1]), lines
    assert "".join(line.split("│")[-1].strip() for line in lines).replace(" ", "") == text.replace(" ", "")


def test_a_chinese_line_breaks_where_a_reader_pauses_and_a_bullet_hangs_under_its_text():
    """Issue 48: at 80 columns a test's line broke inside its words ("（参 / 数量与超参数", "该测 / 试", "扣 / 4 分").
    A line ends after a mark, at a space or before an opening bracket when that leaves at most a few columns empty,
    a number stays with the words around it, and a bulleted line goes on under its text."""
    from rich.cells import cell_len
    from rich.console import Console

    from autograder.outputs.console import _SCRAP, _SLACK, break_points, say

    item = "  · MiniGPTWithWeightTying 的参数量等于不共享时的参数量减去 V * D（参数量与超参数；该测试 3 分，扣 3 分）"
    console = Console(width=60, record=True, color_system=None)
    say(console, item)  # a line of its own (console.print would join it into a plain Text, wrapped as rich's)
    lines = console.export_text().splitlines()
    assert lines == [
        "  · MiniGPTWithWeightTying 的参数量等于不共享时的参数量减去",
        "    V * D（参数量与超参数；该测试 3 分，扣 3 分）",
    ], lines
    for width in range(32, 90):  # a table's cell at 80 columns is about 70 wide
        cuts = break_points(item, width, hang=4)
        lines = [item[a:b] for a, b in zip([0, *cuts], [*cuts, len(item)], strict=True)]
        for n, (cut, line) in enumerate(zip(cuts, lines, strict=False)):
            assert item[cut - 2 : cut] != "扣 " and item[cut : cut + 2] != " 分", (width, item[cut - 3 : cut + 3])
            room = width - (4 if n else 0)
            assert cell_len(line.rstrip()) + _SLACK >= room - 4, (width, lines)  # filled, as the width forces
        assert cell_len(lines[-1].strip()) > _SCRAP, (width, lines)  # no "分）" alone on the last line
    # with no pause near the line's end, Chinese breaks between two characters
    assert break_points("这是一个很长的没有任何标点符号的中文句子用来测试换行", 10) == [
        5,
        10,
        15,
        20,
        24,
    ]  # "试换行", not "换行" alone


def test_a_short_latin_term_in_chinese_stays_on_one_line_and_a_long_quote_still_breaks():
    """Issue 48: at 70 columns a misconception's title broke "token / embedding" across two lines of its cell (a
    reader saw "LM │ head"). A term set in Chinese is one word; a quoted English error breaks at its spaces."""
    from autograder.outputs.console import break_points

    title = "多了第二张表（复制了一份表，或者 LM head 没有共享 token embedding 的表）"
    terms = ("LM head", "token embedding")
    for width in range(16, 60):  # a line as wide as the longer term, and more
        for cut in break_points(title, width):
            assert not any(title.find(term) < cut < title.find(term) + len(term) for term in terms), (width, cut)
    quoted = "你的代码抛出了异常“ValueError: input_ids has shape (3, 7) but block_size is 6: the model reads at most"
    cuts = break_points(quoted, 40)
    assert any(quoted[cut - 1] == " " and quoted[cut - 2].isascii() for cut in cuts), cuts  # inside the English
    assert all(cut - prev <= 40 for prev, cut in zip([0, *cuts], cuts, strict=False))


def test_a_chinese_sentence_a_little_wider_than_its_cell_fills_the_line_before_it_breaks():
    """Issue 48 (round 11): a charge's sentence two columns wider than its cell (120 columns) broke after its first
    clause, "（每道练习只计一次），⏎所以…", as if wrapped by hand, where the page keeps it on one line. A line now
    ends where the width forces it: a pause only within the last few columns, a number kept with its unit."""
    from rich.cells import cell_len

    from autograder.outputs.console import _SLACK, break_points

    cap = (
        "这个错误在“两条路径的梯度相加”中固定扣 6 分（每道练习只计一次），"
        "所以上面属于这一评分项的测试因它一共只扣 6 分。"
    )
    width = cell_len(cap) - 2
    cuts = break_points(cap, width)
    assert len(cuts) == 1 and cell_len(cap[: cuts[0]]) >= width - _SLACK, cap[: cuts[0]]  # not after "，"
    assert cap[cuts[0] :].startswith("扣 6 分"), cap[cuts[0] :]  # "扣 6 分。" kept whole, not "分。" alone
    assert break_points(cap, 200) == [] and break_points(cap, 69) == break_points(cap, 69)


def test_a_section_number_stays_with_its_name():
    """Issue 48 (round 21): a line ended at "9." and "练习 2：MiniGPTWithWeightTying" began the next."""
    from autograder.outputs.console import break_points

    text = "第 12 个单元格（在“9. 练习 2：MiniGPTWithWeightTying”中，开头是“class MiniGPTWithWeightTying”）出错"
    after = text.index("9. ") + 3
    for width in range(10, 70):
        assert after not in break_points(text, width), width
