"""The report's misconceptions are the charges marking made: each student once per misconception, read from
the charge's id, never from a message's words; a crash or a timeout is not a misconception. A row shows what the
student's page shows under that misconception: the message its card leads with, and every test the card covers."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.result import Result, RunFacts
from autograder.outputs.charges import cards
from autograder.outputs.classview import load_class
from autograder.outputs.misconceptions import misconceptions
from autograder.outputs.report import report_html
from autograder.protocol.said import Said
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")

COPIED = Finding(Said("diag.tie.copied"), names="two_tables")
CROP = Finding(Said("suite.gen.crop_short"), names="crop")
# A student's exception that quotes a misconception's words names nothing.
FORGED = "ValueError: copied table, sampling instead of argmax, positional embedding tied"


def _counts(batch_folder, area_result, failing_by_student):
    view = load_class(batch_folder({s: area_result(f) for s, f in failing_by_student.items()}))
    return {m.key: len(m.students) for m in misconceptions(view)}


def test_each_student_counts_once_per_misconception_charged(batch_folder, area_result):
    counts = _counts(
        batch_folder,
        area_result,
        {
            "ann": {"parameter identity": COPIED, "parameter counts": COPIED, "gradient accumulation": COPIED},
            "bo": {"parameter identity": COPIED, "argmax generation": CROP},
            "cy": {"argmax generation": CROP},
        },
    )
    assert counts == {"two_tables": 2, "crop": 2}


def test_the_students_words_and_crashes_are_no_misconception(batch_folder, area_result):
    counts = _counts(batch_folder, area_result, {"eve": {"shape flow": FORGED, "argmax generation": FORGED}})
    assert counts == {}


def test_each_misconception_has_its_title_and_a_sample_in_english_when_one_is_there(batch_folder, area_result):
    view = load_class(
        batch_folder(
            {"zh": area_result({"parameter identity": COPIED}), "en": area_result({"parameter identity": COPIED})}
        )
    )
    found = misconceptions(view)
    assert [m.name for m in found] == ["a second table (copied table or untied head)"]
    assert found[0].sample_language == "en" and found[0].sample.startswith("copied table: lm_head.weight holds")


@pytest.fixture(scope="module")
def copied_head() -> Result:
    """w01 of the calibration corpus (the head a deepcopy of the table), graded in process: seven tests of
    exercise 1 fail, and the count test, ahead of the tie test in the suite, names the same misconception."""
    source = (SPEC.calibration_dir / "wrong" / "w01_deepcopy_head.py").read_text()
    _, outcomes = InProcessGrader(SPEC).grade(source, SPEC.make_plan(7), round_trip=False)
    names = list(SPEC.required_names)
    return Result(tests=list(outcomes.values()), run=RunFacts(status="ok", required_names=names, defined=names), seed=7)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_rows_sample_and_tests_are_what_the_students_page_shows_under_the_card(batch_folder, copied_head, language):
    """Issue 48: the sample was the first failing test's message naming the misconception (the count test's, which
    the page never leads with) and the report listed six of the card's seven tests."""
    view = load_class(batch_folder({"ann": replace(copied_head, language=language)}))
    result = view.judged[0].result
    card = next(c for c in cards(result.shown_in(language)) if c.misconception == "two_tables")
    assert card.lead.endswith("test_tied_lm_head_is_the_embedding_parameter") and len(card.tests) == 7
    (found,) = misconceptions(view, language)
    assert found.sample == card.message and found.sample_language == language
    assert found.tests == [item["name"] for item in card.tests]  # all of them, in the page's order
    page = report_html(view, language=language)
    row = re.search(r'<p class="msg">(.*?)</p><small>(.*?)</small>', page, re.S)
    assert row is not None and all(item["name"].replace("'", "&#39;") in row[2] for item in card.tests), row[2]


def test_students_who_read_different_messages_each_have_theirs_with_their_own_failing_tests(batch_folder, area_result):
    """Issue 48, round 15: w01 and w12 both counted under the second table, but the row showed w01's message alone
    above the union of both students' failing tests, as though w12 had read it too."""
    flag_off = Finding(Said("diag.tie.flag_off"), names="two_tables")
    view = load_class(
        batch_folder(
            {
                "ann": area_result({"parameter identity": COPIED}),
                "bo": area_result({"parameter counts": flag_off}),
                "cy": area_result({"parameter identity": COPIED}),
            }
        )
    )
    (found,) = misconceptions(view)
    assert [[row.name for row in s.students] for s in found.samples] == [["ann", "cy"], ["bo"]]  # most read first
    copied, off = found.samples
    assert copied.message.startswith("copied table") and not off.message.startswith("copied table")
    assert not set(copied.tests) & set(off.tests) and set(found.tests) == {*copied.tests, *off.tests}
    page = re.sub(r"<[^>]+>", "", report_html(view, language="en"))
    assert "Read by ann, cy:" in page and "Read by bo:" in page


def test_a_long_sample_is_cut_at_a_clause_end_or_a_whole_word_never_inside_an_identifier():
    """Issue 48, round 17, item 1: the common-mistakes table cut a sample inside "lm_head.we…"."""
    from autograder.outputs.misconceptions import cut

    zh = (
        "lm_head.weight 是 token_embed.weight 的一份拷贝，" * 3
        + "请重读 18.4.1 节：lm_head.weight 应当就是同一个参数对象"
    )
    assert cut(zh, 130) == zh[: zh.index("请重读")].rstrip()  # after the last clause end ("，") it holds
    en = "copied table: lm_head.weight holds a copy of token_embed.weight (made with .clone()) and then drifts"
    assert cut(en, 60) == "copied table: lm_head.weight holds a copy of"  # no clause end past half: a whole word
    assert cut("lm_head.weight" * 10, 30) == ("lm_head.weight" * 10)[:30]  # nothing to cut at: the limit
    assert cut("one sentence. Another one follows here", 25) == "one sentence."


def test_a_long_sample_is_cut_at_a_sentence_end_before_a_later_comma():
    """Issue 48, round 21, item 6: a sample cut at a comma read "模型一次最多读 block_size 个 token， …"."""
    from autograder.outputs.misconceptions import cut

    zh = (
        "你的 generate 没有截断上下文，序列超过了 block_size。模型一次最多读 block_size 个 token，"
        "所以每一步只能看最后 block_size 个 token"
    )
    assert cut(zh, 70) == "你的 generate 没有截断上下文，序列超过了 block_size。"  # not up to the later "，" (63)
    en = (
        "your generate does not crop the context, so it grew past block_size. The model reads at most block_size "
        "tokens, so each step crops it"
    )
    assert cut(en, 120) == "your generate does not crop the context, so it grew past block_size."
    rest = zh[zh.index("模型") :]
    assert cut(rest, 40) == "模型一次最多读 block_size 个 token，"  # no sentence end in the span: a clause end
