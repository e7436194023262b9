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
