"""A student's feedback page: the mark's charges first, one card each, summing to the points lost; readable
names; the same cards in either language; nothing of the grader."""

from __future__ import annotations

import re

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.marking import apply_marking
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.feedback import feedback_html, write_feedback
from autograder.protocol.said import Said, verbatim

SPEC = get_assignment("weight_tying")
RAISED = "NotImplementedError:   (at <notebook> [cell 25]:16 in __init__)"


def _raised(what: str) -> Finding:
    return Finding(Said("judge.failed_your_code_raised", what=what, text=RAISED))


def _marked(tests: list[TestOutcome], run: RunFacts | None = None, language: str = "en") -> Result:
    every = {t.name.rpartition("::")[2]: t for t in tests}
    full = [
        every.get(t.name) or TestOutcome(f"x.py::{t.name}", t.points, t.area, True) for t in SPEC.scheme.tests.values()
    ]
    result = apply_marking(Result(tests=full, run=run or RunFacts(status="ok"), language=language), SPEC.scheme)
    return rendered(result, SPEC)


_FAILING = {
    "test_wrapper_head_is_the_embedding_parameter": "MiniGPTWithWeightTying (identity check)",
    "test_wrapper_counts_untied_minus_vd": "MiniGPTWithWeightTying(vocab_size=17)",
    "test_wrapper_float64": "MiniGPTWithWeightTying (.to(torch.float64))",
}


def _stub(language: str = "en") -> Result:
    tests = [
        TestOutcome(f"x.py::{name}", SPEC.scheme.tests[name].points, SPEC.scheme.tests[name].area, False, _raised(what))
        for name, what in _FAILING.items()
    ]
    run = RunFacts(status="ok", load_errors=[[19, "NotImplementedError: "]], stderr_tail="Traceback: /kit/runner.py")
    return _marked(tests, run, language)


def _copied(language: str = "en") -> Result:
    copied = Finding(Said("diag.tie.copied"), names="two_tables")
    knock = Finding(
        Said("note.gradient_not_checked_not_tied_product", what="TiedEmbeddingLM"),
        waits_on="test_tied_lm_head_is_the_embedding_parameter",
    )
    tests = [
        TestOutcome("x.py::test_tied_lm_head_is_the_embedding_parameter", 8, "parameter identity", False, copied),
        TestOutcome("x.py::test_tied_lm_tie_survives_to_float64", 2, "parameter identity", False, copied),
        TestOutcome("x.py::test_tied_lm_shared_gradient_is_sum_of_paths", 6, "gradient accumulation", False, knock),
        TestOutcome("x.py::test_tied_lm_sgd_step_updates_table_once", 3, "gradient accumulation", False, knock),
        # a knock-on in an area the misconception costs nothing: it costs nothing at all, as one naming it would
        TestOutcome("x.py::test_tied_lm_float64", 1, "shape flow", False, knock),
        TestOutcome("x.py::test_wrapper_float64", 1, "shape flow", False, _raised("MiniGPTWithWeightTying")),
    ]
    return _marked(tests, language=language)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_one_exception_behind_many_tests_is_said_once_with_the_tests_under_it():
    html = feedback_html(_stub(), student="stub", assignment="weight_tying", spec=SPEC)
    assert html.count("your code raised NotImplementedError (at cell 26, line 16, in __init__)") == 1
    lost = sum(SPEC.scheme.tests[n].points for n in _FAILING)
    assert html.count('class="card"') == 1 and f"Costs {lost:g} points over 3 tests" in html
    assert "wrapper head is the embedding parameter" in html and "test_identity.py" not in html
    assert "Cells are numbered from 1" in html
    assert "/kit/runner.py" not in html and "Traceback" not in html  # grader internals stay out


def test_a_misconception_is_one_card_charged_once_and_the_cards_add_up_to_the_points_lost():
    result = _copied()
    html = _text(feedback_html(result, student="ann", assignment="weight_tying", spec=SPEC))
    assert "a second table (copied table or untied head)" in html  # the misconception's title
    costs = SPEC.scheme.misconceptions["two_tables"].costs  # at most the points of the tests it fails
    cost = min(costs["parameter identity"], 8 + 2) + min(costs["gradient accumulation"], 6 + 3)
    assert f"Costs {cost:g} points, once in exercise 1 over 5 tests" in html
    # in an area whose note says the mistake's fixed cost there (nothing in "shape flow", 6 in "gradient
    # accumulation"), a test says its worth alone: the note says the cost, once (issue 48, round 24); the others
    # say what they lost
    assert "(shape flow, worth 1) In “shape flow” this mistake costs nothing more" in html
    assert "(gradient accumulation, worth 3) In “gradient accumulation” this mistake costs a fixed 6 points" in html
    assert "(gradient accumulation, worth 6)" in html and "(parameter identity, −8 of its 8)" in html
    assert "not charged" not in html and "of its 6)" not in html
    lost = 100 - result.score
    costs = [float(n) for n in re.findall(r"Costs (\d+(?:\.\d+)?) points?", html)]
    assert sum(costs) == lost and f"Points the grader took off: {lost:g} points, the sum of the charges below." in html
    assert "How the marks are given: a common mistake is charged once within the same exercise." in html
    assert html.index("What to fix") < html.index("Passed (")


def test_the_chinese_page_groups_and_charges_exactly_as_the_english_one():
    for make in (_stub, _copied):
        english = feedback_html(make(), student="s", spec=SPEC)
        chinese = feedback_html(make("zh"), student="s", spec=SPEC)
        assert english.count('class="card"') == chinese.count('class="card"')
        assert re.findall(r"Costs (\d+)", english) == re.findall(r"(?<![共计定])扣 (\d+) 分[，：]", chinese)


def test_student_text_is_escaped_and_a_lone_surrogate_still_writes_the_page(tmp_path):
    evil = "<script>alert('x')</script> \udcff"
    finding = Finding(Said("judge.failed_your_code_raised", what="x", text=evil))
    result = rendered(Result(tests=[TestOutcome("t.py::test_a", 1, "a", False, finding)], run=RunFacts("ok")), None)
    path = write_feedback(result, tmp_path / "fb" / "eve.html", student="<b>eve</b>", assignment="selftest")
    page = path.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page and "&lt;b&gt;eve" in page
    assert "\\udcff" in page


def test_a_result_with_missing_fields_still_gets_a_page(tmp_path):
    weird = Result(tests=[TestOutcome("?", 0.0, "other", False, Finding(verbatim("")))], run=None)  # no run facts
    page = write_feedback(rendered(weird, None), tmp_path / "w.html").read_text()
    assert "Score: 0 / 0" in page and "status: unknown" in page and 'class="card"' in page
    with pytest.raises(TypeError, match="Result"):
        write_feedback({"score": 1}, tmp_path / "x.html")


@pytest.mark.parametrize(
    ("language", "beside"), [("en", " (late penalty −15: 80 before it)"), ("zh", "（迟交扣 15 分：扣分前为 80）")]
)
def test_a_late_pages_headline_is_the_final_mark_with_the_penalty_beside_it(language, beside):
    """Issue 45: a late student's page headlined 100 / 100 and put the 95 in a sentence below."""
    from autograder.outputs.lateness import Late

    result = Result(tests=[TestOutcome("t.py::test_a", 80.0, "a", True)], run=RunFacts("ok"), language=language)
    result.tests.append(TestOutcome("t.py::test_b", 20.0, "a", False, _raised("x"), 20.0, "test"))
    result = rendered(result, None)
    late = Late("2026-05-04 14:30:00 UTC", "", "2026-05-04 12:00:00 UTC", 9000.0, 15.0)
    page = feedback_html(result, student="ben", late=late)
    headline = re.search(r'<p class="score">(.*?)</p>', page).group(1)
    assert re.sub(r"<[^>]+>", "", headline) == ("Score: 65 / 100" if language == "en" else "得分：65 / 100") + beside
    on_time = feedback_html(result, student="ann", late=Late("2026-05-04 11:00:00 UTC", "", "2026-05-04 12:00:00 UTC"))
    assert re.search(r'<p class="score">([^<]*)</p>', on_time).group(1).endswith("80 / 100")


def test_the_cell_counting_note_sits_under_what_names_a_cell_and_checking_a_bare_class_is_not_said():
    """Issue 48: a run that went well names no cell, so the note goes under the charge that names one (here the
    exception of cell 26), never under "your code ran to the end"; a test's "checking TiedEmbeddingLM" under a
    title that names the class says nothing more and is left out, a subject with more in it stays, except under
    the test whose message the card shows (round 12: that message opens with the very subject)."""
    tests = [
        TestOutcome("x.py::test_tied_lm_shapes_and_values", 8, "shape flow", False, _raised("TiedEmbeddingLM")),
        TestOutcome("x.py::test_wrapper_float64", 1, "shape flow", False, _raised("MiniGPTWithWeightTying (float64)")),
        TestOutcome("x.py::test_wrapper_loss_values", 8, "shape flow", False, _raised("MiniGPTWithWeightTying (x2)")),
    ]
    for language, checking in (("en", "— checking "), ("zh", "——检查对象：")):
        page = feedback_html(_marked(tests, language=language), student="wang", language=language, spec=SPEC)
        card = page.split('<div class="card"', 1)[1].split("</div>", 1)[0]
        note = {"en": "Cells are numbered from 1", "zh": "单元格的序号从"}[language]
        assert note in card and page.count(note) == 1, page
        assert f"{checking}TiedEmbeddingLM<" not in page
        # one card for the wrapper's two tests: its message names the first's subject, the other's is said
        assert page.count(f"{checking}MiniGPTWithWeightTying (") == 1, page


def test_a_misconceptions_card_opens_with_its_most_precise_diagnosis():
    """Issue 48: a copied table fails the count (whose message lists four possible causes) and the identity test
    (which names the copy); the card opens with the test of the area where the misconception costs most."""
    count = Finding(Said("suite.counts.two_tables", model="M", n=2, want=1), names="two_tables")
    copied = Finding(Said("diag.tie.copied"), names="two_tables")
    tests = [
        TestOutcome("x.py::test_tied_lm_counts_one_table", 4, "parameter counts", False, count),
        TestOutcome("x.py::test_tied_lm_head_is_the_embedding_parameter", 8, "parameter identity", False, copied),
    ]
    rest = [TestOutcome(f"x.py::{t.name}", t.points, t.area, True) for t in SPEC.scheme.tests.values()]
    rest = [t for t in rest if t.name not in {u.name for u in tests}]
    for language in ("en", "zh"):  # the count first, as the suite runs it
        result = apply_marking(Result(tests=tests + rest, run=RunFacts(status="ok"), language=language), SPEC.scheme)
        page = feedback_html(rendered(result, SPEC), student="wang", language=language, spec=SPEC)
        reason = re.search(r'<p class="msg">([^<]*)</p>', page).group(1)
        assert reason.startswith({"en": "copied table", "zh": "复制了一份表"}[language]), reason


def test_a_page_is_titled_by_the_assignment_and_says_when_part_of_the_code_did_not_run():
    """Issue 48: the title names the assignment as its notebook does ("Weight Tying"), not its folder; a run that
    ended normally while a part of a .py file never compiled is not "ok" (nor "运行完毕"); the page's lang is
    zh-CN, so a browser draws the mainland's glyphs; the names a hand-in does not define read as a list ("A 和 B 都
    没有定义", the last joined with 和)."""
    run = RunFacts(
        status="ok",
        load_errors=[[0, "SyntaxError: invalid syntax (line 19: def forward(self,,)"]],
        required_names=["TiedEmbeddingLM", "MiniGPTWithWeightTying"],
    )
    for language, title, status, undefined in (
        (
            "en",
            "Weight Tying: feedback for wang",
            "status: syntax error",
            "neither TiedEmbeddingLM nor MiniGPTWithWeightTying",
        ),
        (
            "zh",
            "Weight Tying 作业反馈：wang",
            "运行状态：语法错误",
            "TiedEmbeddingLM 和 MiniGPTWithWeightTying 都没有定义",
        ),
    ):
        result = _marked([], run=run, language=language)
        page = feedback_html(result, student="wang", assignment="weight_tying_zh", kind="py", spec=SPEC)
        assert f"<h1>{title}</h1>" in page and status in page and undefined in page, page
        assert f'<html lang="{ {"en": "en", "zh": "zh-CN"}[language] }">' in page
    zh = feedback_html(_marked([], run=run, language="zh"), student="wang", kind="py", spec=SPEC)
    assert "出错的那一部分（以 # %% 分隔）一行都没有运行" in zh and "单元格" not in zh.split("代码的运行情况")[1]
    assert "由于这个语法错误，TiedEmbeddingLM" in zh and "运行完毕" not in zh and "NameError" not in zh
    # the code did not run: the page says so first, before the charges that follow from it
    assert "需要修改的地方" not in zh or zh.index("代码的运行情况") < zh.index("需要修改的地方")
    fine = feedback_html(_marked([], language="zh"), student="wang", assignment="weight_tying", spec=SPEC)
    assert "运行状态：运行完毕，没有出错" in fine


def test_a_test_charged_only_in_part_says_why_and_a_blank_hand_in_is_named_blank():
    """Issue 48: "该测试 6 分，扣 3 分" unexplained read as a mistake; the page says what of the test is not
    charged and why: the mistake's cost in the area, once per area (not under each test, as if the cap were the
    test's), and a test covered at no cost of its own is "已计入该评分项的固定扣分，不另扣分" (round 20: was
    "已含在固定扣分里"; round 22: "本项" named no area), never "已算在这项扣分里" (its points are not in the
    charge). A hand-in with no code leads with that one fact and what to do, no card for each test."""
    zh = _text(feedback_html(_copied("zh"), student="dara", spec=SPEC))
    # the area's two tests say their worth alone, its cap note the cost: 6 in all (round 24: "扣 3 分" beside it
    # read as a second account of the same cost)
    assert "（评分项：两条路径的梯度相加；该测试 6 分）" in zh and "（评分项：两条路径的梯度相加；该测试 3 分）" in zh
    cap = "这个错误在“两条路径的梯度相加”一项固定扣 6 分，"
    cap += "所以上面属于这一项的 2 个测试（共 9 分）合计只扣 6 分。"  # how many, and their worth (round 13)
    assert zh.count(cap) == 1 and zh.index(cap) > zh.index("两条路径的梯度相加；该测试 3 分）")
    # the card lists its tests area by area, in the areas' order, each cap note right under its area's tests
    # (one test in shape flow: 上面这个测试, round 16)
    # 这个错误 said once, why it costs nothing in the brackets beside the 0 (round 19, item 2: it was said three times)
    # one form in every cap note: 这个错误, never 该错误 (round 20, item 2)
    none = "这个错误在“形状与输出数值”一项不再扣分（已在其他评分项扣过），所以上面这个测试虽然因此失败，但不扣分"
    assert (
        "（评分项：形状与输出数值；该测试 1 分）" in zh and none in zh and "已算在" not in zh and "不扣分）" not in zh
    )
    assert "该错误" not in zh
    areas = [zh.index(f"评分项：{a}；") for a in ("共享同一参数对象", "形状与输出数值", "两条路径的梯度相加")]
    assert areas == sorted(areas) and areas[1] < zh.index(none) < areas[2], areas
    # a run that went well is said once, by the status (no "代码的运行情况" section repeating it)
    assert "运行状态：运行完毕，没有出错" in zh and "从头到尾" not in zh and "代码的运行情况" not in zh
    missing = Finding(Said("judge.class_not_defined", what="TiedEmbeddingLM", name="TiedEmbeddingLM"))
    failed = [TestOutcome(f"x.py::{t.name}", t.points, t.area, False, missing) for t in SPEC.scheme.tests.values()]
    run = RunFacts(status="ok", required_names=["TiedEmbeddingLM", "MiniGPTWithWeightTying"], empty=True)
    result = rendered(Result(tests=failed, run=run, language="zh"), SPEC)
    page = _text(feedback_html(result, student="kong", spec=SPEC))
    assert "运行状态：空白提交" in page and "空白提交：没有代码，或只有初始代码。 请完成练习" in page
    assert "运行状态：运行完毕" not in page and 'class="card"' not in page and "扣" not in page


def test_a_mistake_is_said_in_full_once_and_referred_to_after():
    """Issue 48: one test showing two misconceptions printed its whole message in both cards, and two classes
    missing behind one syntax error said the same sentence twice. The second card refers to the first, and the two
    classes read in the notebook's order (exercise 2's card, worth more, came first and said exercise 1's class was
    missing "therefore")."""
    said = Said("suite.loss.ignore_index", call="loss(ids)", got="1", want="2", hint="x")
    both = Finding(said, names="loss_ignore_index", also=("loss_shift",))
    page = feedback_html(
        _marked([TestOutcome("x.py::test_wrapper_loss_values", 8, "shape flow", False, both)], language="zh"),
        student="s",
        spec=SPEC,
    )
    message = both.render("zh")
    assert page.count(message) == 1 and page.count('class="card"') == 2, page
    assert "消息见上面的“loss 设置了 ignore_index”：同一个测试显示了不止一个错误。" in page
    names = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")
    run = RunFacts(status="ok", load_errors=[[0, "SyntaxError: bad (line 3: def f(:)"]], required_names=list(names))
    tests = [
        TestOutcome(
            f"x.py::{t.name}",
            t.points,
            t.area,
            False,
            Finding(Said("judge.class_not_defined_syntax", name=names[t.exercise - 1])),
        )
        for t in SPEC.scheme.tests.values()
    ]
    for language, first, again in (
        (
            "zh",
            "由于语法错误，TiedEmbeddingLM 没有定义",
            "同一个语法错误也让 MiniGPTWithWeightTying 没有定义，用到它的测试同样无法运行。",
        ),
        (
            "en",
            "TiedEmbeddingLM is not defined because of the syntax error",
            "The same syntax error leaves MiniGPTWithWeightTying undefined too",
        ),
    ):
        text = _text(feedback_html(_marked(tests, run, language), student="s", kind="py", spec=SPEC))
        assert text.count(first) == 1 and again in text and text.index(first) < text.index(again), text


@pytest.mark.parametrize(
    "language, all_failed, some_failed",
    [
        ("en", "What to fix (all 27 tests failed)", "What to fix (3 of 27 tests failed)"),
        ("zh", "需要修改的地方（27 个测试全部未通过）", "需要修改的地方（27 个测试中有 3 个未通过）"),
    ],
)
def test_the_heading_says_all_failed_when_every_test_did(language, all_failed, some_failed):
    """Issue 48: "27 of 27 failed" read as a sum to check; every test failing is said as such."""
    everything = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, False, _raised("MiniGPTWithWeightTying"))
        for t in SPEC.scheme.tests.values()
    ]
    assert len(everything) == 27
    html = _text(feedback_html(_marked(everything, language=language), student="s", spec=SPEC))
    assert all_failed in html
    assert some_failed in _text(feedback_html(_stub(language), student="s", spec=SPEC))


def test_full_marks_say_that_every_test_passed_on_the_page_and_in_the_terminal():
    """Issue 48 (round 8): a 100/100 page said nothing where the charges would be; now it says every test passed."""
    from rich.console import Console

    from autograder.outputs.table import render

    n = len(SPEC.scheme.tests)
    for language, said in (
        ("en", f"All {n} tests passed: nothing to fix."),
        ("zh", f"{n} 个测试全部通过，没有需要修改的地方。"),
    ):
        full = _marked([], language=language)
        assert said in _text(feedback_html(full, student="dara", spec=SPEC))
        console = Console(width=120, record=True, color_system=None)
        render(full, console=console)
        assert said in console.export_text()
        assert said not in _text(feedback_html(_copied(language), student="dara", spec=SPEC))  # only at full marks


@pytest.mark.parametrize("syntax", [True, False])
def test_how_the_code_ran_sits_under_the_score_its_lead_a_sentence_its_details_a_list(syntax):
    """Issue 48 (round 11): the page said how the code ran first for a syntax error and last otherwise, where the
    terminal always says it under the score; and its lead ("你的代码有语法错误，…") was a list bullet, like the
    lines it introduces. One place, under the score (and the late line), the lead a paragraph, the cells a list."""
    error = "SyntaxError: invalid syntax (line 19: def forward(self,,)" if syntax else "ValueError: bad shape"
    run = RunFacts(status="ok", load_errors=[[3, error]], required_names=["TiedEmbeddingLM"], defined=[])
    failing = [t for t in _stub("zh").tests if not t.passed]
    page = feedback_html(_marked(failing, run=run, language="zh"), student="wang", kind="py", spec=SPEC)
    lead = "语法错误，出错的那一部分（以 # %% 分隔）一行都没有运行：" if syntax else "其中有 1 个部分没有正常结束："
    block = page.split("<h2>代码的运行情况</h2>", 1)[1]
    assert re.match(r"\s*<p>[^<]*" + re.escape(lead) + r"</p>\s*<ul>\s*<li>", block), block[:300]
    assert page.index('<p class="score">') < page.index("代码的运行情况") < page.index("需要修改的地方")
    assert page.count("代码的运行情况") == 1


def test_a_chinese_page_names_the_usual_chinese_fonts_before_system_ui():
    """Issue 48 (round 11): the pages' font stack named two Chinese fonts after system-ui, which on some systems draws
    汉字 in a Japanese face. A Chinese page lists a simplified-Chinese font of each system, in that order, first."""
    page = feedback_html(_copied("zh"), student="dara", spec=SPEC)
    stack = re.search(r"html:lang\(zh\) body\{font-family:([^}]*)\}", page)
    assert stack is not None and '<html lang="zh-CN">' in page
    fonts = [f.strip().strip('"') for f in stack.group(1).split(",")]
    chinese = ["PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC"]
    assert [f for f in fonts if f in chinese] == chinese
    assert fonts.index("Source Han Sans SC") < fonts.index("system-ui")


def test_the_passed_tests_are_listed_in_the_areas_order_as_the_area_table_lists_them(monkeypatch):
    """Review round 14: "已通过" listed 参数量 → 贪心生成 → 梯度 → 共享 → 形状 (the run's files' order), an order
    nothing else on the page uses: the passed tests follow the areas' order (the area table's)."""
    from autograder.grading.shown import Shown
    from autograder.outputs.feedback import feedback_context

    # a run reports its tests in its files' order, not the areas': here, the suite's backwards
    monkeypatch.setattr(Shown, "passed", property(lambda self: [t for t in reversed(self.tests) if t.passed]))
    result = _copied("zh")
    shown = result.shown_in("zh")
    areas = [a.name for a in shown.areas]
    assert [t.area_name for t in shown.passed] != sorted((t.area_name for t in shown.passed), key=areas.index)
    listed = [t["area"] for t in feedback_context(result, student="s", spec=SPEC)["passed"]]
    assert len(set(listed)) > 2 and listed == sorted(listed, key=areas.index), listed


@pytest.mark.parametrize(
    ("status", "also", "en", "zh"),
    [
        ("ok", [], "status: ran to the end, but a cell ran past", "运行状态：运行完毕，但有一个单元格超过单项时限"),
        ("timeout", [], "status: stopped at the run&#39;s total time limit", "运行状态：超出总时限，被终止"),
        ("ok", [[1, "SyntaxError: invalid syntax (line 3: x(:)"]], "status: syntax error", "运行状态：语法错误"),
    ],
)
def test_a_cell_stopped_at_its_budget_names_the_status_only_where_the_run_is_named_by_it(status, also, en, zh):
    """Review: a run that timed out after a cell was stopped at its budget read "status: timeout cell" (in Chinese
    too); the cell's word belongs to the "time budget" state alone."""
    run = RunFacts(status=status, limit=60, load_errors=[[2, "TimeBudgetExceeded: stopped after 12 s"], *also])
    for language, said in (("en", en), ("zh", zh)):
        page = feedback_html(_marked([], run=run, language=language), student="s", spec=SPEC)
        assert said in page, page
