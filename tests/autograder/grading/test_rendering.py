"""Step 8's words: a marked result rendered once per language into what every output shows (``Shown``): the run
in the catalog's sentences, where the time ran out, the charges and tests by their titles; it travels with the
result, and showing it neither marks nor renders anything again."""

from __future__ import annotations

import json

import pytest

from autograder.graders import get_assignment
from autograder.grading import marking
from autograder.grading.findings import Finding
from autograder.grading.pipeline import mark
from autograder.grading.rendering import rendered, stopped_at
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.shown import Shown
from autograder.protocol.said import Said

SPEC = get_assignment("weight_tying")


def _copied() -> Result:
    copied = Finding(Said("diag.tie.copied"), names="two_tables")
    tests = [
        TestOutcome(
            "test_identity.py::test_tied_lm_head_is_the_embedding_parameter", 8, "parameter identity", False, copied
        ),
        TestOutcome("test_identity.py::test_tied_lm_tie_survives_to_float64", 2, "parameter identity", False, copied),
        TestOutcome("test_counts.py::test_tied_lm_counts_one_table", 4, "parameter counts", True),
    ]
    return mark(Result(tests=tests, run=RunFacts(status="ok"), seed=3), SPEC)


def test_the_run_is_told_in_the_catalogs_sentences_with_the_cells_that_raised():
    run = RunFacts(
        status="ok",
        load_errors=[[1, "NotImplementedError: "]],
        required_names=["A", "B"],
        defined=["A"],
        cells={"1": ["Title", "model = TiedEmbeddingLM(4, 2)"]},  # as pipeline.named_cells reads the notebook
    )
    lines = rendered(Result(tests=[], run=run), None).shown_in("en").run_lines
    assert lines[0] == "The grader ran your notebook from the top; 1 of its cells did not finish:"
    assert lines[1].startswith(
        "cell 2 (in “Title”, starting “model = TiedEmbeddingLM(4, 2)”) raised NotImplementedError: it uses"
    )
    # how cells are counted, after the cells it counts: not between the colon and its item (issue 48)
    assert lines[2] == "Cells are numbered from 1 at the top of the notebook, text cells included."
    assert "  " not in lines[1] and lines[3] == "Not defined by your submission: B (check the exact class names)."
    py = rendered(Result(tests=[], run=RunFacts(status="ok", load_errors=[[0, "ValueError: x"]])), None, kind="py")
    assert py.shown_in("en").run_lines[1] == "part 1 raised ValueError: x"  # the header said the grader ran it
    zh = py.shown_in("zh").run_lines
    assert zh[0] == "评分程序从头运行了你的文件，其中有 1 个部分没有正常结束：", zh
    assert zh[1] == "第 1 部分出错：“ValueError: x”。", zh  # "加载" not a second time
    failed = Result.grader_failure("boom")
    assert failed.shown_in("en").run_lines == ("The grader could not grade this submission: boom",)
    assert failed.shown_in("zh").summary == "评分程序无法评阅这份提交：boom" and failed.shown_in("zh").charges == ()


def test_a_cell_a_finding_names_by_its_number_is_named_as_the_self_check_names_it(tmp_path):
    """Issue 48: the terminal said "第 15 个单元格第 3 行" where the self-check names the section and the first line
    (Jupyter numbers no cells): the pipeline reads the cells the findings name, and their words say them."""
    from autograder.grading.judge.suite_api import say
    from autograder.grading.pipeline import named_cells, read

    at = say(
        "judge.raised_at", place=Said("cell.place.bare", number=3), line=2, function=say("judge.raised_in", name="f")
    )
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# 6. 练习 1"}] + [
        {"cell_type": "code", "metadata": {}, "source": f"x = {i}\n", "outputs": [], "execution_count": None}
        for i in range(3)
    ]
    path = tmp_path / "s.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    failed = [TestOutcome("t.py::test_tied_lm_float64", 1, "shape flow", False, Finding(at))]
    run = RunFacts(status="ok")
    run.cells = named_cells(read(path), run, failed)
    assert run.cells == {"2": ["6. 练习 1", "x = 1"]}
    shown = rendered(Result(tests=failed, run=run, language="zh"), SPEC).shown_in("zh")
    # one pair of brackets: the cell and line, then where that cell is (round 19, item 3: three were nested)
    assert (
        shown.tests[0].message
        == "（出错的位置：第 3 个单元格第 2 行，在 f 中；该单元格位于“6. 练习 1”一节，以“x = 1”开头）。"
    ), shown.tests[0]
    english = rendered(Result(tests=failed, run=run, language="en"), SPEC).shown_in("en").tests[0].message
    assert english == "(at cell 3, line 2, in f; that cell is in “6. 练习 1”, starting “x = 1”)", english
    bare = rendered(Result(tests=failed, run=RunFacts(status="ok"), language="zh"), SPEC).shown_in("zh")
    assert bare.tests[0].message == "（第 3 个单元格第 2 行，在 f 中）。"  # a run that knows no cell: its number


def test_a_run_stopped_in_a_check_names_it_by_its_title_in_the_students_language():
    run = RunFacts(status="timeout", limit=60, running={"check": "gpt_generate"}, required_names=["A"])
    assert stopped_at(run, spec=SPEC) == (
        "while the grader was calling your code for the check 'MiniGPTWithWeightTying.generate'"
    )
    assert (
        stopped_at(run, spec=SPEC, language="zh")
        == "：当时评分程序正在为检查“MiniGPTWithWeightTying.generate 的生成”调用你的代码"
    )
    assert "gpt_generate" in stopped_at(run)  # no grader to ask: the runner's word as it came
    forged = RunFacts(status="timeout", limit=60, running={"check": "page.score"}, required_names=["A"])
    assert "page.score" in stopped_at(forged, spec=SPEC, language="zh")  # never read as an id
    result = rendered(Result(tests=[], run=run), SPEC)
    for language in ("en", "zh"):
        shown = result.shown_in(language)
        assert shown.stopped == stopped_at(run, spec=SPEC, language=language)
        assert shown.run_lines[-1].endswith(shown.stopped + ("." if language == "en" else "。"))
    cell = rendered(
        Result(tests=[], run=RunFacts(status="timeout", running={"cell": 4}, cells={"4": ["Try it", "spin()"]})), SPEC
    )
    assert cell.shown_in("en").stopped == "while running cell 5 (in “Try it”, starting “spin()”)"
    assert rendered(Result(tests=[], run=RunFacts(status="ok")), SPEC).shown_in("en").stopped == ""


def test_the_charges_are_rendered_in_every_language_from_the_marking_once():
    result = rendered(_copied(), SPEC, language="zh")
    assert result.language == "zh" and set(result.shown) == {"en", "zh"}
    en, zh = result.shown_in("en"), result.shown_in("zh")
    assert [c.misconception for c in en.charges] == [c.misconception for c in zh.charges] == ["two_tables"]
    assert en.charges[0].title == SPEC.catalog.misconception_title("two_tables", "en")
    assert zh.charges[0].title == SPEC.catalog.misconception_title("two_tables", "zh")
    assert en.charges[0].points == 10 and sum(p for _, p, _ in en.charges[0].tests) == 10
    assert en.charges[0].lead == "test_identity.py::test_tied_lm_head_is_the_embedding_parameter"
    assert en.test(en.charges[0].lead).message.startswith("copied table")
    assert [a.area for a in zh.areas] == [a for a in SPEC.scheme.areas if a in result.areas]  # the scheme's order
    assert zh.areas[0].name != zh.areas[0].area and en.areas[0].name == en.areas[0].area  # named in Chinese
    assert result.shown_in("fr") is en  # a language the kit does not speak reads as English
    with pytest.raises(ValueError, match="never rendered"):
        _copied().shown_in()


def test_the_rendering_travels_with_the_result_and_a_bad_one_is_refused_by_name():
    result = rendered(_copied(), SPEC)
    back = Result.from_wire(json.loads(json.dumps(result.to_wire())))
    assert back.shown == result.shown and isinstance(back.shown["zh"], Shown)
    wire = result.to_wire()
    wire["shown"]["en"]["charges"][0]["tests"] = [["x", "2", ""]]
    with pytest.raises(ValueError, match="test id, points, part"):
        Result.from_wire(wire)
    wire = result.to_wire()
    wire["shown"]["fr"] = wire["shown"]["en"]
    with pytest.raises(ValueError, match="shown in en, zh"):
        Result.from_wire(wire)


def test_showing_a_rendered_result_never_calls_into_the_marking(monkeypatch):
    from autograder.grading.gradescope.results import gradescope_results
    from autograder.outputs.feedback import feedback_html
    from autograder.outputs.table import render

    result = rendered(_copied(), SPEC)

    def refused(*args, **kwargs):
        raise AssertionError("showing a result called into the marking")

    for name in ("breakdown", "apply_marking", "load_scheme"):
        monkeypatch.setattr(marking, name, refused)
    monkeypatch.setattr(marking.Scheme, "charges", refused)
    from rich.console import Console

    render(result, console=Console(file=open("/dev/null", "w"), width=100))
    assert gradescope_results(result)["tests"][-1]["name"] == SPEC.catalog.misconception_title("two_tables", "en")
    assert "copied table" in feedback_html(result, student="s", spec=SPEC)


@pytest.mark.parametrize("parts", [0, 1])
def test_the_run_line_says_a_check_was_stopped_not_without_an_error(parts):
    """w62 (round 25): the run line said "你的文件从头到尾运行完毕，没有出错。" above generate's stopped check; it
    names what the check was calling, from the finding's values."""
    stopped = Finding(Said("judge.did_not_finish_within", what="MiniGPTWithWeightTying.generate", n="15"))
    tests = [
        TestOutcome("test_generation.py::test_generate_greedy", 6, "argmax generation", False, stopped),
        TestOutcome("test_generation.py::test_generate_batch", 6, "argmax generation", False, stopped),
    ]
    run = RunFacts(status="ok", limit=60, parts=parts, kind="py" if parts else "ipynb")
    out = rendered(Result(tests=tests, run=run), None, kind="py" if parts else "ipynb", language="zh")
    first = "你的文件" if parts else "notebook 的各单元格"
    assert (
        out.output.splitlines()[0]
        == f"{first}从头到尾运行完毕；但检查 MiniGPTWithWeightTying.generate 时超过了单项时限，见下文。"
    )
    assert "without an error" not in out.shown["en"].summary and "ran past its time limit" in out.shown["en"].summary
    assert rendered(Result(tests=tests[:0], run=run), None, language="zh").output.endswith("没有出错。")
