"""*Needs a look*: timeouts with the cell that was running, syntax errors with their line, each under its name;
a timeout is kind "timeout" (never "blank") and its feedback page is one card, not one per test."""

from __future__ import annotations

import html
import json
import re

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.classview import load_class
from autograder.outputs.feedback import feedback_html
from autograder.outputs.report import write_report
from autograder.outputs.wording import run_state
from autograder.protocol.said import Said


def _no_result(name: str) -> Finding:
    why = Said("judge.the_submission_was_stopped_at_the")
    return Finding(
        Said("judge.no_evidence_for", what=Said("judge.experiment_named", name=repr(name)), why=why), owed=True
    )


def _hung(language: str = "en", cell: tuple[str, str] = ("Title", "print(model.generate(ids, 5))")) -> Result:
    """A run stopped at the time limit in cell 3, named as step 8 reads it from the notebook (``RunFacts.cells``)."""
    tests = [TestOutcome(f"test_g.py::test_{i}", 2, "argmax generation", False, _no_result(f"e{i}")) for i in range(12)]
    run = RunFacts(status="timeout", limit=60, running={"cell": 2}, required_names=["A"], cells={"2": list(cell)})
    return rendered(Result(tests=tests, run=run, language=language), get_assignment("weight_tying"))


def _notebook(path, first_lines):
    cells = [{"cell_type": "markdown", "source": "# Title", "metadata": {}}]
    cells += [{"cell_type": "code", "source": f"{line}\n", "metadata": {}, "outputs": []} for line in first_lines]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_a_hang_and_a_syntax_error_need_a_look_under_their_own_names(batch_folder, area_result, tmp_path):
    syntax = area_result({"shape flow": "NameError: name 'A' is not defined"})
    syntax.run.load_errors = [[1, "SyntaxError: invalid syntax (line 3: def forward(self,,)"]]
    out = batch_folder({"hana": _hung(), "sam": syntax, "zhou": _hung("zh"), "al": area_result()})
    _notebook(tmp_path / "submitted" / "0.ipynb", ["class A: pass", "print(model.generate(ids, 5))"])
    report = write_report(out).read_text(encoding="utf-8")
    look = re.sub(r"<[^>]+>", "", report[report.index("<h2>Needs a look") : report.index("<h2>Class summary")])
    hang = "hana: while running cell 3 (in “Title”, starting “print(model.generate(ids, 5))”)"
    assert "timeout" in look and hang in look
    assert "syntax error" in look and "sam: cell 2, line 3: “def forward(self,,” (SyntaxError: invalid syntax)" in look
    assert "blank" not in look
    assert [row.kind for row in load_class(out).rows] == ["graded", "timeout", "graded", "timeout"]
    students = re.sub(r"<[^>]+>", " ", report[report.index("<h2>Students") :])
    assert re.search(r"zhou\s+zh\b", students) and re.search(r"hana\s+en\b", students)  # the edition column
    assert "stopped at the total time limit while running cell 3" in students  # the one thing to fix first
    zhou = (out / "feedback" / "zhou.html").read_text(encoding="utf-8")
    assert "贪心生成 0/24" in re.sub(r"<[^>]+>", " ", zhou)  # area names in the student's language, by the grader


def test_a_timeout_is_one_card_saying_where_not_one_per_test_and_a_chinese_page_speaks_chinese():
    page = feedback_html(_hung(cell=("Try it", "print(model.generate(ids, 5))")), student="hana")
    assert page.count('class="card"') == 1
    where = "while running cell 3 (in “Try it”, starting “print(model.generate(ids, 5))”)"
    assert f"stopped at the time limit {where}" in page
    assert "Costs 24 points over 12 tests" in page
    zh = feedback_html(_hung("zh", cell=("动手试试", "spin()")), student="zhou")
    assert '<html lang="zh-CN">' in zh and zh.count('class="card"') == 1
    for english in ("What to fix", "Costs", "How your code ran", "Points by area", "Score"):
        assert english not in zh, f"{english!r} left in English on the Chinese page"
    assert "需要修改的地方" in zh and "第 3 个单元格（“动手试试”一节，以“spin()”开头）" in zh


def test_a_syntax_error_is_told_as_such_not_as_the_name_error_that_follows():
    run = RunFacts(
        status="ok",
        load_errors=[[3, "SyntaxError: invalid syntax (line 9: def f(:)"]],
        required_names=["A"],
        cells={"3": ["", "class A:"]},  # as step 8 reads it from the notebook
    )
    page = feedback_html(rendered(Result(tests=[], run=run), None), student="sam")
    page = re.sub(r"<[^>]+>", "", page)
    where = "Syntax error at cell 4 (starting “class A:”), line 9 (or on the line before it, e.g. a bracket left open)"
    assert where + ": “def f(:” (SyntaxError: invalid syntax)" in page
    assert "Your code has a syntax error, so Python ran none of this cell:" in page  # not "ran to the end"
    assert "Because of that syntax error, your submission does not define A." in page and "NameError" not in page
    assert "check the exact" not in page and "• •" not in page and "•" not in page


def test_what_was_stopped_at_its_time_budget_needs_a_look_with_the_cell_and_the_tests(batch_folder, tmp_path):
    """A run that went on after a cell and a check were stopped (autograder/runner/budget.py): graded, and the
    TA still sees where the endless loop is."""
    stopped = Finding(Said("judge.did_not_finish_within", what="MiniGPTWithWeightTying.generate", n="20"))
    tests = [
        TestOutcome("test_generation.py::test_generate_greedy", 6, "argmax generation", False, stopped),
        TestOutcome("test_identity.py::test_tie", 6, "parameter identity", True),
    ]
    run = RunFacts(
        status="ok",
        limit=60,
        load_errors=[[2, "TimeBudgetExceeded: this cell was stopped after 15 s, its share of the run's time limit"]],
        required_names=["A"],
        defined=["A"],
    )
    out = batch_folder({"hugo": Result(tests=tests, run=run)})
    _notebook(tmp_path / "submitted" / "0.ipynb", ["class A: pass", "print(model.generate(ids, 5))"])
    report = write_report(out).read_text(encoding="utf-8")
    look = re.sub(r"<[^>]+>", "", report[report.index("<h2>Needs a look") : report.index("<h2>Class summary")])
    hugo = "hugo: cell 3 (in “Title”, starting “print(model.generate(ids, 5))”); MiniGPTWithWeightTying.generate"
    assert "time budget" in look and hugo in look
    assert [row.kind for row in load_class(out).rows] == ["graded"]
    # a Chinese TA reads what was stopped, not a test's English name (issue 48: "generate greedy within block size")
    zh = write_report(out, "zh").read_text(encoding="utf-8")
    look = re.sub(r"<[^>]+>", "", zh[zh.index("<h2>需要关注") : zh.index("<h2>全班概况")])
    assert "超出单项时限" in look and "MiniGPTWithWeightTying.generate" in look and "generate greedy" not in look


def test_a_submission_whose_cells_raised_while_loading_needs_a_look_with_each_cell(batch_folder, area_result, tmp_path):
    raised = area_result({"shape flow": "X failed: wrong values"})
    raised.run.load_errors = [
        [1, "NameError: name 'tokenizer' is not defined"],
        [2, "TimeBudgetExceeded: this cell was stopped after 12 s"],  # its own group: time budget
    ]
    areas = ("parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation")
    stub = area_result(dict.fromkeys(areas, "X failed: your code raised NotImplementedError"))
    stub.run.load_errors = [[1, "NotImplementedError: "]]
    stub.run.defined = []
    demo = area_result()  # the chapter's demo of the library's generate, which a graded run withholds
    demo.run.load_errors = [[4, "NotAvailableWhileGrading: dnnlpy.models.gpt.MiniGPT.generate is not available"]]
    out = batch_folder({"ana": raised, "stu": stub, "al": area_result(), "dee": demo})
    _notebook(tmp_path / "submitted" / "0.ipynb", ["class A: pass", "ids = tokenizer.encode('hi')"])
    report = write_report(out).read_text(encoding="utf-8")
    look = re.sub(r"<[^>]+>", "", report[report.index("<h2>Needs a look") : report.index("<h2>Class summary")])
    look = html.unescape(look)
    assert "cells raised" in look
    assert "ana: cell 2 (in “Title”, starting “class A: pass”): NameError: name 'tokenizer' is not defined" in look
    assert "stu: cell" not in look.split("cells raised")[1].split("blank")[0]  # a stub is "blank", not this
    assert "time budget" in look and "ana: cell 3" in look
    assert "dee" not in look  # the grader made that cell raise: nothing for the student to fix


_AREAS = ("parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation")
_HIDDEN = "/course/autograder/graders/weight_tying/judge/suite/test_identity.py"


def test_a_hand_in_the_sandbox_refused_is_named_so_with_what_it_tried_never_blank(batch_folder, area_result):
    """Issue 45: a hand-in that tried to read hidden files was "blank, nothing written beyond the starter code",
    and its page said its code raised NotImplementedError, which it did not."""
    reader = area_result(dict.fromkeys(_AREAS, "RuntimeError: nothing readable"))
    reader.run.refused = [["files", _HIDDEN], ["call", "socket:AF_INET"], ["output", "stdout"]]
    stub = area_result(dict.fromkeys(_AREAS, "X failed: your code raised NotImplementedError: "))
    crasher = area_result(dict.fromkeys(_AREAS, "RuntimeError: my own bug"))
    flooder = area_result({"shape flow": "wrong"})  # whatever it scored, what the sandbox refused is said
    flooder.run.refused = [["output", "stdout"]]
    out = batch_folder({"rea": reader, "stu": stub, "cra": crasher, "flo": flooder})
    kinds = {row.name: row.kind for row in load_class(out).rows}
    assert kinds == {"rea": "refused", "stu": "blank", "cra": "graded", "flo": "graded"}
    report = html.unescape(write_report(out).read_text(encoding="utf-8"))
    look = re.sub(r"<[^>]+>", "", report[report.index("<h2>Needs a look") : report.index("<h2>Class summary")])
    assert f"rea: tried to reach {_HIDDEN}; called socket:AF_INET; flooded stdout" in look
    assert "flo: flooded stdout" in look and "sandbox refused" in look
    zh = html.unescape(write_report(out, language="zh").read_text(encoding="utf-8"))  # a Chinese instructor's
    assert f"试图读取 {_HIDDEN}；调用了 socket:AF_INET；向 stdout 写入了过多输出" in zh and "tried to reach" not in zh
    blank = look[look.index("blank") :]
    assert "stu" in blank and "rea" not in blank and "cra" not in blank  # blank is the starter code's alone
    pages = {
        uid: html.unescape((out / "feedback" / f"{uid}.html").read_text(encoding="utf-8"))
        for uid in ("rea", "stu", "cra")
    }
    assert "tried to reach files the grader's sandbox does not show it" in pages["rea"] and _HIDDEN not in pages["rea"]
    for uid in ("rea", "cra"):  # nothing of theirs raised NotImplementedError: the page does not say it did
        assert "NotImplementedError" not in pages[uid] and "only the starter code" not in pages[uid]
    # nothing written yet: that one fact and what to do, no card for each test (issue 48)
    assert "no code, or only the starter code" in pages["stu"] and 'class="card"' not in pages["stu"]


def test_a_part_left_as_the_starter_code_needs_a_look_and_is_what_to_fix_first(batch_folder, area_result):
    """w69 (issue 48): exercise 1 written, MiniGPTWithWeightTying left as handed out. By the judge's finding on
    its tests (``Finding.unwritten``), never by their text: a row in *Needs a look* and the Students table's first
    thing to fix, not a tie test's title; a hand-in with nothing written stays "blank" and only that."""
    stub = Finding(Said("judge.starter_code", what="MiniGPTWithWeightTying", at=""))
    half = area_result({"parameter counts": stub, "argmax generation": stub, "shape flow": stub})
    wrong = area_result({"shape flow": "X failed: wrong values"})  # wrote it, got it wrong: not this
    blank = area_result(dict.fromkeys(_AREAS, stub))
    out = batch_folder({"wu": half, "al": wrong, "bo": blank})
    for language, heading, end, fix in (
        (
            "en",
            "<h2>Needs a look",
            "<h2>Class summary",
            "MiniGPTWithWeightTying not written yet (still the starter code)",
        ),
        ("zh", "<h2>需要关注", "<h2>全班概况", "MiniGPTWithWeightTying 还没有实现（仍是初始代码）"),
    ):
        report = write_report(out, language).read_text(encoding="utf-8")
        look = re.sub(r"<[^>]+>", "", report[report.index(heading) : report.index(end)])
        group = "not written" if language == "en" else "未完成的部分"
        assert group in look and re.search(r"wu\s*[:：]\s*MiniGPTWithWeightTying", look), look
        assert not re.search(r"\bal\s*[:：]", look)  # a wrong answer is for the common mistakes, not here
        students = re.sub(r"<[^>]+>", " ", report[report.index(end) :])
        assert fix in students and students.count(fix) == 1  # wu's row only: bo is blank, al wrote it
    assert [row.kind for row in load_class(out).rows] == ["graded", "blank", "graded"]


def test_the_first_thing_to_fix_counts_the_other_failing_tests_as_tests(batch_folder, area_result):
    """ "（另有 2 项）" read as two marking areas (issue 48): the other tests of the card are counted as tests."""
    same = "X failed: wrong values"
    out = batch_folder(
        {"al": area_result(dict.fromkeys(("shape flow", "parameter counts", "argmax generation"), same))}
    )
    for language, more in (("en", "(and 2 more tests fail)"), ("zh", "（另有 2 个测试未通过）")):
        report = write_report(out, language).read_text(encoding="utf-8")
        assert more in html.unescape(re.sub(r"<[^>]+>", " ", report))


def test_a_check_stopped_at_its_own_time_limit_is_not_a_run_without_errors(batch_folder):
    """w62 (issue 48): generate's check was stopped at its own 15 s and the run ended: its status said "运行完毕，
    没有出错" beside the stop. It says the run ended with a part stopped, and tells that limit from the whole run's."""
    stopped = Finding(Said("judge.did_not_finish_within", what="MiniGPTWithWeightTying.generate", n="15"))
    tests = [
        TestOutcome("test_generation.py::test_generate_greedy", 6, "argmax generation", False, stopped),
        TestOutcome("test_identity.py::test_tie", 6, "parameter identity", True),
    ]
    result = Result(tests=tests, run=RunFacts(status="ok", limit=60, required_names=["A"], defined=["A"]))
    out = batch_folder({"wei": result})
    for language, said, page_said in (
        ("zh", "超出单项时限（其余照常运行）", "运行完毕，但有一项检查超过单项时限，被终止"),
        ("en", "ran to the end, but a check ran past its time limit and was stopped", None),
    ):
        report = write_report(out, language).read_text(encoding="utf-8")
        students = re.sub(
            r"<[^>]+>", " ", report[report.index("<h2>各学生成绩" if language == "zh" else "<h2>Students") :]
        )
        assert "运行完毕，没有出错" not in students and (said in students or language == "en"), students
        page = html.unescape(feedback_html(load_class(out).rows[0].result, student="wei", language=language))
        assert (page_said or said) in page and "没有出错" not in page and "without an error" not in page
        assert "它自己的时限" not in page and "它自己的时限" not in report
    # a cell stopped while loading: the header says a cell, from the runner's word in load_errors (round 25)
    result.run.load_errors = [[4, "TimeBudgetExceeded: time budget spent"]]
    page = html.unescape(feedback_html(rendered(result, None), student="wei", language="zh"))
    assert "运行完毕，但有一个单元格超过单项时限，被终止" in page


def test_a_cell_that_raised_while_loading_reads_as_a_run_that_went_on(batch_folder, area_result):
    """Issue 48: "部分代码抛出了异常，没有正常结束" read as if the run stopped there; the rest ran on."""
    raised = area_result()
    raised.run.load_errors = [[3, "NameError: name 'tokenizer' is not defined"]]
    out = batch_folder({"ana": raised})
    for language, said in (
        ("zh", "运行完毕，但有单元格出错（其余照常运行）"),
        ("en", "ran to the end, but a cell raised (the rest ran on)"),
    ):
        page = html.unescape(feedback_html(load_class(out).rows[0].result, student="ana", language=language))
        assert said in page and "没有正常结束" not in page.split("运行状态")[-1][:40]
        report = html.unescape(write_report(out, language).read_text(encoding="utf-8"))
        assert ("有单元格出错（其余照常运行）" if language == "zh" else "cells raised") in report


def test_a_py_file_that_raised_is_worded_for_a_file(batch_folder, area_result):
    """Round 26: a .py file has no cells, and the code after its raising line did not run: neither the page, the
    class table nor the report says a cell raised and the rest ran on; the report names "the file", not "your"."""
    raised = area_result()
    raised.run.load_errors = [[0, "NameError: name 'undefined_name' is not defined"]]
    raised.run.kind, raised.run.parts = "py", 1
    out = batch_folder({"ana": raised}, suffix="py")
    for language, status, todo, where in (
        ("zh", "运行中途抛出异常（出错那一行之后的代码没有运行）", "其后定义的类或函数不存在", "文件："),
        ("en", "raised an exception part-way (the code after that line did not run)", "defined after it", "the file: "),
    ):
        result = load_class(out).rows[0].result
        page = html.unescape(feedback_html(result, student="ana", language=language))
        assert status in page and "单元格" not in page.split("运行状态")[-1][:60]
        report = html.unescape(write_report(out, language).read_text(encoding="utf-8"))
        assert todo in report and "单元格出错" not in report and "cells raised" not in report
        assert f"{where}NameError" in report and "你的文件：" not in report and "your file: " not in report
        kind = status if language == "zh" else "file raised"  # the English of a kind is the kind
        assert run_state(result) == "file raised" and report.count(kind) >= 2  # the table's status, the kind
