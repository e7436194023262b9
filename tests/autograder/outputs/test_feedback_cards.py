"""A misconception's card as the terminal and the page list it (issue 48, round 13): its tests area by area in the
areas' order, each cap note under its area's tests and never folded away, a subject said once."""

from __future__ import annotations

import re
from dataclasses import replace
from html import unescape

import pytest
from rich.console import Console

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.marking import apply_marking
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.titles import names
from autograder.outputs.charges import cards
from autograder.outputs.feedback import feedback_html
from autograder.outputs.table import render
from autograder.protocol.said import Said, verbatim

SPEC = get_assignment("weight_tying")
LEAD = "test_tied_lm_head_is_the_embedding_parameter"
RELOAD = "TiedEmbeddingLM (after a state_dict reload)"
FLOAT = "TiedEmbeddingLM (after .to(torch.float64))"


def _copied(language: str = "en") -> Result:
    """w01's seven failing tests of exercise 1 (a copied table), in the suite's order, across four areas."""
    copied = Finding(Said("diag.tie.copied"), names="two_tables")

    def knock(what: str = "TiedEmbeddingLM") -> Finding:
        said = Said("note.gradient_not_checked_not_tied_product", what=what)
        return Finding(said, waits_on=LEAD)

    failing = {
        "test_tied_lm_counts_one_table": Finding(
            Said("diag.tie.copied", what="TiedEmbeddingLM(V=11)"), names="two_tables"
        ),
        "test_tied_lm_shared_gradient_is_sum_of_paths": knock(),
        "test_tied_lm_sgd_step_updates_table_once": knock(),
        LEAD: copied,
        "test_tied_lm_tie_survives_state_dict_reload": Finding(
            Said("diag.tie.copied", what=RELOAD), names="two_tables"
        ),
        "test_tied_lm_tie_survives_to_float64": Finding(Said("diag.tie.copied", what=FLOAT), names="two_tables"),
        "test_tied_lm_float64": knock(FLOAT),
    }
    tests = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in SPEC.scheme.tests.values()
    ]
    return rendered(apply_marking(Result(tests=tests, run=RunFacts(status="ok"), language=language), SPEC.scheme), SPEC)


def test_a_cards_tests_read_area_by_area_with_each_cap_note_under_its_own():
    shown = _copied().shown_in("en")
    (card,) = cards(shown)
    areas = [a.area for a in shown.areas]
    listed = [shown.test(item["test"]).area for item in card.tests]
    assert listed == sorted(listed, key=areas.index) and len(set(listed)) == 4, listed  # not the suite's order
    capped = {shown.test(item["test"]).area: item["cap"] for item in card.tests if item["cap"]}
    assert set(capped) == {"shape flow", "gradient accumulation"}, capped
    assert "worth 9 points" in capped["gradient accumulation"] and "costs nothing more" in capped["shape flow"]
    # the terminal: each note right under its area's last test, before the next area's tests
    console = Console(width=220, record=True, color_system=None)
    render(_copied(), console=console)
    text = " ".join(console.export_text().split())
    order = [text.index(s) for s in ("(shape flow,", "costs nothing more", "(parameter counts,", "worth 9 points")]
    assert order == sorted(order), order


def test_no_test_a_cap_note_counts_is_folded_away_and_a_shared_subject_is_said_once():
    page = feedback_html(_copied(), student="w01", spec=SPEC)
    card = page.split('class="card"')[1].split("</div>")[0]
    assert "<details>" not in card and card.count("<li>") == 7, card  # the notes count the last ones listed
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert text.count(f"— checking {FLOAT}") == 1 and text.count("— checking the same as above") == 1
    assert text.index(f"— checking {FLOAT}") < text.index("— checking the same as above")
    assert f"— checking {RELOAD}" in text and "— checking TiedEmbeddingLM(V=11)" in text


def test_the_rule_says_an_area_may_cost_a_mistake_nothing_as_the_scheme_does_in_the_page_and_the_notebook():
    """The rule read "it costs a fixed amount in each area it touches", and a card then said an area charged it
    nothing: each area sets its cost, 0 in some (a misconception's costs leave areas out), everywhere it is said,
    and the notebook says the page's rule word for word after its first sentence (cell 0 of both editions)."""
    from autograder.outputs.messages_pages import PAGES
    from scripts.weight_tying_notebook import text_en, text_zh

    assert any(set(m.costs) < set(SPEC.scheme.areas) for m in SPEC.scheme.misconceptions.values())
    rule = PAGES["page.rule"]
    said = {
        "en": rule.en.split("exercise. ", 1)[1],
        "zh": rule.zh.split("只算一次。", 1)[1],
    }
    assert (
        "each graded area charges one fixed cost (it may be 0) instead of charging one by one the tests it"
        in said["en"]
    )
    # round 24: one sentence, the fixed cost first, then what it replaces and its cap; round 26: the tests it
    # replaces are named as the ones the mistake fails, so that "这些测试" has something to point back to
    assert "某种常见错误在某一评分项里只扣一个固定分数（可以是 0），而不是把因它失败的测试逐个扣分" in said["zh"]
    # round 23: a cap on the cost, not "down to" the tests' points ("最多扣到" read as a floor)
    assert "；这个固定分数不超过这些测试的分值之和" in said["zh"] and "最多扣到" not in said["zh"]
    assert "不再按失败的测试" not in said["zh"]
    assert said["en"] in rule.en and said["zh"] in rule.zh
    words = {language: "\n".join(map(str, text.TEXT.values())) for language, text in (("en", text_en), ("zh", text_zh))}
    notebook = {"en": " ".join(words["en"].split()), "zh": "".join(words["zh"].split())}
    assert said["en"] in notebook["en"] and said["zh"].replace(" ", "") in notebook["zh"]
    assert "In each graded area it touches" not in notebook["en"] + rule.en and "它涉及哪些评分项" not in notebook["zh"]
    # round 18, item 10: an example after the fixed-cost sentence, everywhere the rule is said, and true to the
    # marking: two_tables costs 6 in gradient accumulation, whose two tests are worth 9; failing both costs 6
    example = {
        "en": "For example, where an area's fixed cost is 6 and the tests involved are worth 9, they cost 6.",
        "zh": "例如某项固定扣 6 分，涉及的测试共 9 分，就只扣 6 分。",
    }
    assert example["en"] in said["en"] and example["zh"] in said["zh"]
    assert said["en"].index(example["en"]) < said["en"].index("A test that fails for any other reason")
    failing = ("test_tied_lm_shared_gradient_is_sum_of_paths", "test_tied_lm_sgd_step_updates_table_once")
    assert SPEC.scheme.misconceptions["two_tables"].costs["gradient accumulation"] == 6
    assert {SPEC.scheme.tests[t].area for t in failing} == {"gradient accumulation"}
    assert sum(SPEC.scheme.tests[t].points for t in failing) == 9
    copied = Finding(Said("diag.tie.copied"), names="two_tables")
    outcomes = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, t.name not in failing, copied)
        for t in SPEC.scheme.tests.values()
    ]
    marked = apply_marking(Result(tests=outcomes, run=RunFacts(status="ok")), SPEC.scheme)
    assert marked.score == marked.max_score - 6, marked.score


def test_a_subject_the_tests_title_names_already_is_not_said_under_it():
    """ "TiedEmbeddingLM 转为 float64 后两端仍然共享——检查对象：TiedEmbeddingLM（.to(torch.float64) 之后）" said the
    case twice: decided from the subject's catalog ids and the case the title names (messages.title_cases)."""
    after = verbatim("TiedEmbeddingLM") + Said("suite.case.after_float64")
    failing = {
        name: Finding(Said("judge.failed_your_code_raised", what=after, text="ValueError: x"))
        for name in ("test_tied_lm_tie_survives_to_float64", "test_tied_lm_shapes_and_values")
    }
    tests = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in SPEC.scheme.tests.values()
    ]
    result = rendered(apply_marking(Result(tests=tests, run=RunFacts(status="ok")), SPEC.scheme), SPEC)
    for language in ("en", "zh"):
        shown = result.shown_in(language)
        assert shown.test("x.py::test_tied_lm_tie_survives_to_float64").what == ""
        assert "float64" in shown.test("x.py::test_tied_lm_shapes_and_values").what  # its title does not say it


def _softmax_first() -> Result:
    """w73's one failing test (worth 8) charged to softmax before cross-entropy, which costs 6 in its area."""
    said = Finding(Said("suite.loss.softmax_first", call="loss(ids)", got="3.3", want="10.3"), names="loss_softmax")
    failing = {"test_wrapper_loss_values": said}
    tests = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in SPEC.scheme.tests.values()
    ]
    return rendered(apply_marking(Result(tests=tests, run=RunFacts(status="ok")), SPEC.scheme), SPEC)


def test_a_one_test_card_says_why_its_test_cost_less_than_its_worth_and_no_once():
    """Issue 48, round 15: "Costs 6, once in exercise 2:" over one 8-point test losing 6 never said why, and
    "once" spoke of several tests where there was one."""
    result = _softmax_first()
    (card,) = cards(result.shown_in("zh"))
    (item,) = card.tests
    assert (item["points"], item["lost"]) == (8, 6)
    assert item["cap"] == "这个错误在“形状与输出数值”一项固定扣 6 分，所以这个 8 分的测试只扣 6 分"
    for language, costs, once in (("zh", "扣 6 分：", "只扣一次"), ("en", "Costs 6 points:", "once in")):
        console = Console(width=220, record=True, color_system=None)
        render(replace(result, language=language), console=console)
        terminal = " ".join(console.export_text().split())
        page = feedback_html(replace(result, language=language), student="w73", spec=SPEC)
        page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
        for said in (terminal, page):
            assert costs in said and once not in said, said
    assert "so this test (worth 8 points) loses 6 for it" in page


@pytest.mark.parametrize(
    ("language", "passed", "failed"),
    [
        ("zh", r"（评分项：[^；（）]+；该测试 \d+ 分）", r"（评分项：[^；（）]+；该测试 \d+ 分，扣"),
        ("en", r" \([a-z ]+, worth \d+\)", r" \([a-z ]+, −"),
    ],
)
def test_a_passed_test_says_its_area_and_worth_in_the_form_a_failed_one_says_its_cost(language, passed, failed):
    """Issue 48, round 17, item 2: a passed test read "（形状与输出数值，1 分）" under failed ones reading
    "（评分项：…；该测试 6 分，扣 3 分）": both lists say the area, then the test's points, the same way."""
    html = feedback_html(_copied(language), student="s", spec=SPEC)
    listed = html[html.index("<details>") :]
    assert re.search(passed, listed) and re.search(failed, html), listed[:600]


def test_a_call_the_test_fed_is_labelled_the_input_used_not_what_was_checked():
    """Issue 48, round 17, item 4: "——检查对象：generate(input_ids, max_new_tokens=4)…" called the call a test fed
    the code the thing checked. The grader's catalog says which subjects are inputs (messages.subject_fed): those
    read "检查时的调用" / "the call checked" (ShownTest.fed; round 18, item 3: was "所用输入" / "input used", but
    what is shown is the whole call, the model's mode too), any other subject "检查对象" / "checking" as before."""
    call = Said("suite.case.generate_call", shape=(2, 12), n=4, block=8)
    failing = {
        "test_generate_returns_prompt_plus_int64_tokens": verbatim("MiniGPTWithWeightTying (first call)"),
        "test_generate_greedy_within_block_size": call,
        "test_generate_greedy_past_block_size": Said("suite.case.generate_call", shape=(1, 3), n=2, block=8),
    }
    failing = {
        k: Finding(Said("judge.failed_your_code_raised", what=v, text="ValueError: x")) for k, v in failing.items()
    }
    tests = [
        TestOutcome(f"x.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in SPEC.scheme.tests.values()
    ]
    result = rendered(apply_marking(Result(tests=tests, run=RunFacts(status="ok")), SPEC.scheme), SPEC)
    assert result.shown_in("en").test("x.py::test_generate_greedy_within_block_size").fed
    assert not result.shown_in("en").test("x.py::test_generate_returns_prompt_plus_int64_tokens").fed
    for language, used, checking in (
        ("zh", "——检查时的调用：generate(input_ids, max_new_tokens=", "——检查对象："),
        ("en", " — the call checked: generate(", " — checking "),
    ):
        html = feedback_html(replace(result, language=language), student="s", spec=SPEC)
        assert html.count(used) == 2 and checking not in html, html[html.index("<ul") :][:1500]
    # round 25: as a label's value the call comes first, its inputs after (no "…时，" clause left without a verb);
    # the sentence that opens with the same case keeps round 23's "…时，generate(…)运行失败" form
    page = unescape(feedback_html(replace(result, language="zh"), student="s", spec=SPEC))
    assert "——检查时的调用：generate(input_ids, max_new_tokens=4)，其中 input_ids 形状为 (2, 12)，block_size=8" in page
    assert "——检查时的调用：input_ids" not in page


@pytest.mark.parametrize(("language", "mark"), [("en", "failed"), ("zh", "未通过")])
def test_each_failed_test_on_a_card_is_marked_failed_and_no_passed_one_is(language, mark):
    """Issue 48, round 20, item 4: a card lists each failed test by what it wanted ("…是同一个参数对象"), which in
    bold alone read as passed; each carries a ✗ that says "failed" in the page's language, as the terminal's do."""
    page = feedback_html(_copied(language), student="w01", spec=SPEC)
    card = page.split('class="card"')[1].split("</div>")[0]
    items = re.findall(r"<li>(.*?)</li>", card, re.S)
    marked = f'<span class="bad" title="{mark}">✗</span> <b>'
    assert len(items) == 7 and all(item.startswith(marked) for item in items), items
    assert page.count("✗") == 7  # the passed tests under their own heading carry none


@pytest.mark.parametrize(
    ("language", "worth", "none", "six"),
    [
        ("en", "({}, worth {})", "costs nothing more", "costs a fixed 6 points"),
        ("zh", "（评分项：{}；该测试 {} 分）", "一项不再扣分", "一项固定扣 6 分"),
    ],
)
def test_a_test_in_an_area_with_a_fixed_cost_says_its_worth_and_the_area_the_cost(language, worth, none, six):
    """Issue 48 (3.2, round 24): a test of a card in an area where the mistake's fixed cost applies says its worth
    alone, and that area's note says the cost once: nothing in "shape flow", 6 in "gradient accumulation"
    (decided by the scheme's values); "扣 3 分" beside "已计入……不另扣分" and "不扣分" beside "固定扣 0 分" said one
    cost three ways. A test in an area without such a note says what it lost."""
    copied = Finding(Said("diag.tie.copied"), names="two_tables")
    tests = [
        TestOutcome("x.py::test_tied_lm_head_is_the_embedding_parameter", 8, "parameter identity", False, copied),
        # two_tables costs 6 in gradient accumulation: the area's two tests (9 points) lose 6 in all
        TestOutcome("x.py::test_tied_lm_shared_gradient_is_sum_of_paths", 6, "gradient accumulation", False, copied),
        TestOutcome("x.py::test_tied_lm_sgd_step_updates_table_once", 3, "gradient accumulation", False, copied),
        # two_tables costs nothing in shape flow: this test costs nothing at all
        TestOutcome("x.py::test_tied_lm_float64", 1, "shape flow", False, copied),
    ]
    full = [next((t for t in tests if t.name.endswith(f"::{s.name}")), None) for s in SPEC.scheme.tests.values()]
    full = [
        t or TestOutcome(f"x.py::{s.name}", s.points, s.area, True)
        for t, s in zip(full, SPEC.scheme.tests.values(), strict=True)
    ]
    result = rendered(
        apply_marking(Result(tests=full, run=RunFacts(status="ok"), language=language), SPEC.scheme), SPEC
    )
    assert "shape flow" not in SPEC.scheme.misconceptions["two_tables"].costs
    assert result.score == 100 - 8 - 6  # the 3 and the 1 cost nothing more
    html = unescape(
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", feedback_html(result, student="s", spec=SPEC)))
    )  # the English words hold an apostrophe
    area = names(SPEC, language) or str  # English names the areas as the scheme does
    for name, points in (("gradient accumulation", 6), ("gradient accumulation", 3), ("shape flow", 1)):
        assert worth.format(area(name), points) in html, (name, points)
    assert html.count(none) == 1 and html.count(six) == 1
    assert "not charged" not in html and "不扣分）" not in html and "不另扣分" not in html
