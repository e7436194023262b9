"""The one result model: the run summary students read first, and the Gradescope JSON it becomes."""

from __future__ import annotations

import json

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.rendering import rendered
from autograder.grading.result import CELLS_COUNTED, Result, RunFacts, TestOutcome, syntax_parts
from autograder.protocol.said import Said

RAISED = Finding(
    Said(
        "judge.failed_your_code_raised", what="X", text="NotImplementedError:   (at <notebook> [cell 1]:3 in __init__)"
    )
)


def test_a_refused_hand_in_says_only_that_it_was_not_run():
    summary = RunFacts(status="ok", refusal=Said("input.missing", path="alice.ipynb")).summary()
    assert summary == "Your submission was not run: no submission file at alice.ipynb."


def test_cells_that_raised_are_counted_from_one_and_read_without_debris():
    errors = [[0, "NotImplementedError: "], [2, "ValueError: bad (at x)"]]
    lines = RunFacts(status="ok", load_errors=errors).summary().splitlines()  # a .py file: its parts
    assert lines[0] == "The grader ran your file from the top; 2 of its parts did not finish:"
    assert lines[1].endswith(
        "part 1 raised NotImplementedError: it uses a part that still holds the starter code"
        " (raise NotImplementedError)"
    )
    assert lines[2].endswith("part 3 raised ValueError: bad (at x)")
    # how the parts are counted follows the parts it counts: not between a colon and its item
    assert lines[3].startswith("Your file's parts are numbered from 1: each line starting with # %%")
    named = RunFacts(status="ok", load_errors=errors, cells={"0": ["6. Exercise 1", "class A:"]}).summary()
    assert named.splitlines()[0] == "The grader ran your notebook from the top; 2 of its cells did not finish:"
    assert named.splitlines()[3] == CELLS_COUNTED and "cell 3 raised ValueError" in named.splitlines()[2]
    chinese = RunFacts(
        status="ok", load_errors=[[0, "SyntaxError: bad"]], cells={"0": ["6. 练习 1", "class A:"]}, required_names=["A"]
    ).summary("zh")
    assert "有语法错误" in chinese and "请核对类名的拼写" not in chinese and "由于这个语法错误，A 没有定义。" in chinese
    assert chinese.startswith("你的代码有语法错误，下面这个单元格一行都没有运行：")
    assert "运行完毕" not in chinese and "NameError" not in chinese


def test_a_syntax_error_names_its_line_as_the_file_or_the_notebook_counts_it():
    """Issue 48: the syntax error's block read "第 1 部分有语法错误……“SyntaxError: invalid syntax (line 13: ...)”"
    for a .py file with no # %% at all, with "line 13" in English and parts nobody made. A file of one part is the
    file, its lines are the file's; a notebook names the cell and the line in it; Python's own words stay as they
    are, beside the line the student wrote."""
    from coursecheck.notebook import syntax_message

    try:
        compile("import torch\n\ndef f(:\n    pass\n", "x.py", "exec")
    except SyntaxError as exc:
        error = syntax_message(exc)  # as the loader records it
    assert syntax_parts(error) == ("SyntaxError: invalid syntax", 3, "def f(:")
    assert syntax_parts("NameError: x") is None and syntax_parts("SyntaxError: bad") == ("SyntaxError: bad", 0, "")
    names = ["TiedEmbeddingLM", "MiniGPTWithWeightTying"]
    one = RunFacts(status="ok", load_errors=[[0, error]], required_names=names, parts=1)
    assert one.summary("zh").splitlines() == [
        "你的文件有语法错误，Python 一行都没有运行：",
        # where Python stopped may be past the mistake (a bracket left open): the line before is said too
        "第 3 行有语法错误（也可能在它前面一行，例如括号没有闭合）：“def f(:”，"
        "Python 的提示是“SyntaxError: invalid syntax”。",
        "由于这个语法错误，TiedEmbeddingLM 和 MiniGPTWithWeightTying 都没有定义。",
    ]
    assert one.summary("en").splitlines()[:2] == [
        "Your file has a syntax error, so Python ran none of it:",
        "Syntax error at line 3 (or on the line before it, e.g. a bracket left open): “def f(:” (SyntaxError: "
        "invalid syntax)",
    ]
    first = RunFacts(status="ok", load_errors=[[0, "SyntaxError: invalid syntax (line 1: def f(:)"]], parts=1)
    assert "第 1 行有语法错误：“def f(:”" in first.summary("zh")  # no line before the first
    # round 22: a syntax error in a .py file is said by the file's line, no part number: no note on numbering
    several = RunFacts(status="ok", load_errors=[[2, error]], parts=4).summary("zh").splitlines()
    assert several[0] == "你的文件有语法错误，出错的那一部分（以 # %% 分隔）一行都没有运行：" and len(several) == 2
    assert "第 3 行有语法错误" in several[1] and "编号" not in "".join(several)
    numbered = RunFacts(status="ok", load_errors=[[2, "ValueError: bad"]], parts=4).summary("zh").splitlines()
    assert "第 3 部分" in numbered[1] and numbered[2] == "你的文件以 # %% 开头的行分成几部分，从 1 开始编号。"
    cell = RunFacts(status="ok", load_errors=[[14, error]], cells={"14": ["6. 练习 1", "class A:"]}).summary("zh")
    assert (
        "第 15 个单元格（“6. 练习 1”一节，以“class A:”开头）第 3 行有语法错误"
        "（也可能在它前面一行，例如括号没有闭合）：“def f(:”" in cell
    )
    raised = RunFacts(status="ok", load_errors=[[0, "ValueError: bad"]], parts=1).summary("zh").splitlines()
    assert raised == ["加载你的文件时抛出了异常，出错那一行之后的代码都没有运行：", "抛出的异常是“ValueError: bad”。"]


def test_gradescope_json_carries_the_messages_as_the_pages_show_them_and_is_never_read_back():
    result = Result(tests=[TestOutcome("t.py::test_a", 2.0, "a", False, RAISED)], run=RunFacts(status="ok"))
    data = gradescope_results(rendered(result, get_assignment("weight_tying")))
    assert data["tests"][0]["output"].startswith(
        "X failed: your code raised NotImplementedError (at cell 2, line 3, in __init__)"
    )
    assert not hasattr(Result, "from_gradescope")  # an output only: the kit reads its own wire form
    with pytest.raises(ValueError, match=r"field '\w+' is"):  # a Gradescope dict is refused, never misread
        Result.from_wire(data)
    assert Result.from_wire(json.loads(json.dumps(result.to_wire()))) == result


def test_a_blank_submission_is_said_blank_and_one_with_a_syntax_error_is_not():
    """Issue 48: an empty file or the starter code alone is a blank submission (空白提交), in the run's words and in
    how the pages and tables name the run; a syntax error, misspelt classes or code that raises is written work."""
    from autograder.outputs.wording import run_state

    names = ["TiedEmbeddingLM", "MiniGPTWithWeightTying"]
    failed = [
        TestOutcome("t.py::test_a", 2.0, "a", False, Finding(Said("judge.class_not_defined", what="x", name="A")))
    ]
    empty = Result(tests=failed, run=RunFacts(status="ok", required_names=names, empty=True), language="zh")
    assert empty.blank and run_state(empty) == "blank"
    assert empty.output == "空白提交：没有代码，或只有初始代码。" and "没有定义" not in empty.output
    assert Result(tests=failed, run=RunFacts(status="ok", required_names=names, empty=True)).output.startswith(
        "Blank submission: no code, or only the starter code."
    )
    starter = Finding(Said("judge.starter_code", what="TiedEmbeddingLM", at=""))
    stub = Result(
        tests=[TestOutcome("t.py::test_a", 2.0, "a", False, starter)], run=RunFacts(status="ok"), language="zh"
    )
    assert stub.blank and stub.output == "空白提交：没有代码，或只有初始代码。"
    misspelt = Result(tests=failed, run=RunFacts(status="ok", required_names=names), language="zh")
    assert not misspelt.blank and "请核对类名的拼写" in misspelt.output
    syntax = RunFacts(status="ok", required_names=names, empty=False, load_errors=[[0, "SyntaxError: bad (line 1)"]])
    broken = Result(tests=failed, run=syntax, language="zh")
    assert not broken.blank and run_state(broken) == "syntax error" and "空白" not in broken.output
    assert broken.output.startswith("你的文件有语法错误") and "运行完毕" not in broken.output
    back = Result.from_wire(json.loads(json.dumps(empty.to_wire())))
    assert back.run.empty and back.blank and "empty" not in RunFacts(status="ok").to_dict()


def test_a_notebook_runs_as_cells_whether_or_not_a_cell_was_named():
    """Round 25: a clean notebook's run line said "你的文件从头到尾运行完毕" (unit fell back to a file when no cell
    name was recorded); the hand-in's kind decides, and survives the result file."""
    clean = RunFacts(status="ok", kind="ipynb")
    assert clean.unit == "cells" and clean.summary("zh").startswith("notebook 的各单元格从头到尾运行完毕")
    assert RunFacts.from_dict(clean.to_dict()).unit == "cells"
    assert RunFacts(status="ok", kind="py", parts=1).unit == "file"
    assert RunFacts(status="ok", kind="py", parts=3).unit == "parts"
    assert RunFacts(status="ok", parts=1).unit == "file"  # a result written before the kind was recorded
