"""A Chinese column heading breaks where a reader would (after a linking word), never inside a word
(``html.phrase_breaks``); the report's table of students uses it for its area columns."""

from __future__ import annotations

from autograder.outputs.html import id_breaks, phrase_breaks
from autograder.outputs.report import write_report


def test_a_chinese_label_may_break_only_after_a_linking_word():
    assert str(phrase_breaks("形状与输出数值")) == "形状与<wbr>输出数值"
    assert str(phrase_breaks("两条路径的梯度相加")) == "两条路径的<wbr>梯度相加"
    assert str(phrase_breaks("共享同一参数对象")) == "共享同一参数对象"  # no linking word: one unbroken label
    assert str(phrase_breaks("与")) == "与"  # nothing after it: no break offered at the end


def test_a_label_is_escaped_and_english_is_unchanged():
    assert str(phrase_breaks("a<b & c")) == "a&lt;b &amp; c"
    assert str(phrase_breaks("shape flow")) == "shape flow"
    assert str(phrase_breaks("与<i>")) == "与<wbr>&lt;i&gt;"  # the text around a break stays escaped


def test_the_chinese_report_heads_its_area_columns_with_the_breaks(batch_folder, area_result):
    report = write_report(batch_folder({"alice": area_result()}), "zh").read_text(encoding="utf-8")
    students = report[report.index('<table class="sticky students') :]
    assert '<th class="num">形状与<wbr>输出数值</th>' in students[: students.index("</thead>")]


def test_a_student_id_breaks_only_after_an_underscore():
    """Round 25: the narrow 涉及的学生 column broke ids mid-word ("w09_tied_in_forwa / rd"): an id may break only
    after an underscore (a <wbr> there; the column's links keep words whole), and stays escaped."""
    assert str(id_breaks("w09_tied_in_forward")) == "w09_<wbr>tied_<wbr>in_<wbr>forward"
    assert str(id_breaks("a<b")) == "a&lt;b" and "\u202e" not in str(id_breaks("x_\u202ey"))
