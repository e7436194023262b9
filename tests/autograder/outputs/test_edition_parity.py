"""Both editions' pages of the same hand-in say the same things: as many cards, every explanation in both.

A stub (every method still raises NotImplementedError) once showed 13 repeated cards in Chinese where the
English page grouped them into one: the grouping must read findings, never words. A syntax error's and the
starter code's explanations once had no Chinese. Graded in process (the engine's path minus the sandbox).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from rich.console import Console

from autograder.graders import get_assignment
from autograder.graders.weight_tying.zh_text import english
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts
from autograder.grading.titles import names
from autograder.outputs.charges import cards
from autograder.outputs.feedback import feedback_html
from autograder.outputs.table import render as render_table
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")

STUB = """
import torch.nn as nn


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        raise NotImplementedError()


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, **kwargs):
        super().__init__()
        raise NotImplementedError()
"""


@pytest.fixture(scope="module")
def stub_result() -> Result:
    grader = InProcessGrader(SPEC)
    _, outcomes = grader.grade(STUB, SPEC.make_plan(7), round_trip=False)
    run = RunFacts(status="ok", required_names=list(SPEC.required_names), defined=list(SPEC.required_names))
    return Result(tests=list(outcomes.values()), run=run, seed=7)


def _text(html: str) -> str:
    html = re.sub(r"<style.*?</style>|<code>.*?</code>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", "\n", html)


def test_a_stubs_pages_have_as_many_cards_in_both_editions(stub_result):
    en, zh = rendered(stub_result, SPEC, language="en"), rendered(stub_result, SPEC, language="zh")
    assert len(cards(en.shown_in())) == len(cards(zh.shown_in())) <= 2, [c.title for c in cards(zh.shown_in())]
    pages = {lang: feedback_html(r, student="s", spec=SPEC) for lang, r in (("en", en), ("zh", zh))}
    assert pages["en"].count('class="card"') == pages["zh"].count('class="card"')


def test_the_chinese_stub_page_has_no_english_outside_code(stub_result):
    page = feedback_html(rendered(stub_result, SPEC, language="zh"), student="s", spec=SPEC)
    words = [w for line in _text(page).splitlines() for w in english(line)]
    assert words == [], words


@pytest.mark.parametrize(
    "error, english_words, chinese_words",
    [
        ("SyntaxError: invalid syntax (line 2: def f(:)", "syntax error", "语法错误"),
        ("NotImplementedError", "starter code", "初始代码"),
    ],
)
def test_every_explanation_of_a_cell_that_raised_exists_in_both_languages(error, english_words, chinese_words):
    run = RunFacts(status="ok", load_errors=[[14, error]], cells={"14": ["6. 练习 1", "class A:"]})
    assert english_words in run.summary("en") and chinese_words in run.summary("zh")


def test_a_stubs_chinese_page_says_the_starter_code_its_score_and_areas_as_the_notebook_does(stub_result):
    zh = rendered(stub_result, SPEC, language="zh")
    messages = "\n".join(t.message for t in zh.shown_in("zh").tests)
    assert "还没有实现：第 8 行仍是初始代码" in messages and "你的代码抛出了异常" not in messages  # nothing written yet
    # what is not written yet is named (the class whose constructor raised), not the test's call
    assert "TiedEmbeddingLM 还没有实现" in messages and "） 还没有实现" not in messages and "时） " not in messages
    # the page of a hand-in with nothing written yet leads with that one fact and what to do, not a card per test
    text = " ".join(_text(feedback_html(zh, student="s", spec=SPEC)).split())
    assert "得分：0 / 100 空白提交：没有代码，或只有初始代码。 请完成练习" in text  # no space after a "："
    assert "扣" not in text and "需要修改的地方" not in text
    table = Console(record=True, width=200)
    render_table(zh, console=table)
    assert table.export_text().splitlines() == [
        "得分：0 / 100",
        "空白提交：没有代码，或只有初始代码。",
        "请完成练习，在作业文件夹中运行自检（pytest），然后重新提交。",
    ]
    # one that wrote something is graded, the areas named in the notebook's order
    first = stub_result.tests[0]
    written = replace(stub_result, tests=[replace(first, passed=True, finding=None, charged=0.0, charged_to="")])
    written.tests += stub_result.tests[1:]
    text = _text(feedback_html(rendered(written, SPEC, language="zh"), student="s", spec=SPEC))
    shown = [name for name in map(names(SPEC, "zh"), SPEC.scheme.areas) if name in text]
    assert shown == sorted(shown, key=text.index) and len(shown) == len(SPEC.scheme.areas)  # the notebook's order


def test_a_cell_stopped_at_its_time_budget_is_said_in_the_students_language():
    stopped = "TimeBudgetExceeded: this cell was stopped after 12 s, its share of the run's 60 s time limit"
    run = RunFacts(status="ok", load_errors=[[29, stopped]], cells={"29": ["10. 动手试试", "torch.manual_seed(0)"]})
    assert "被终止了" in run.summary("zh") and "TimeBudgetExceeded" not in run.summary("zh")
    assert "was stopped at its time budget" in run.summary("en")
    # a stopped cell raised nothing: the run's first line does not say it did
    assert "抛出了错误" not in run.summary("zh") and "raised" not in run.summary("en")
