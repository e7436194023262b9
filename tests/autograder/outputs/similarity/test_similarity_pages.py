"""The instructor's pages of the pass: a side-by-side page per pair, every byte of a student's code escaped and the
shared pieces marked; the section's context; each pair in Needs a look, linked."""

from __future__ import annotations

from autograder.outputs.similarity.engine import Match
from autograder.outputs.similarity.pages import Linked, needs_a_look, section, segments, write_index, write_pages
from autograder.outputs.similarity.store import Outcome, Pair

HOSTILE = "x = '</pre><script>alert(1)</script>'  # {{ 7*7 }} \u202egnp.exe \0 \udcff &amp;\n"


def test_segments_cover_the_text_once_with_the_shared_pieces_merged_and_clipped():
    text = "()[]{}<>!?"
    pieces = segments(text, ((2, 4), (3, 6), (8, 50), (-5, 1)))
    assert "".join(p for p, _ in pieces) == text
    assert [(p, shared) for p, shared in pieces] == [
        ("(", True),
        (")", False),
        ("[]{}", True),
        ("<>", False),
        ("!?", True),
    ]
    assert segments("", ()) == [("", False)]
    assert segments("self.token_embed(x)", ((7, 10),)) == [("self.", False), ("token_embed", True), ("(x)", False)]


def _pair(a="alice", b="bob", archived=False) -> Pair:
    return Pair(a, a, b, b, archived, 0.9, 0.6, 200, "similar/0123456789abcdef.html")


def test_a_pair_page_escapes_every_byte_and_marks_what_is_shared(tmp_path):
    text = "def f(x):\n    return x\n" + HOSTILE
    match = Match(0.9, 0.6, 200, ((0, 9), (24, 40)), ((0, 5),))
    page = write_pages(tmp_path, _pair(b="<b>bob</b>"), match, text, "other " + HOSTILE).read_text()
    assert "<script>" not in page and "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "\u202e" not in page and "\\u202e" in page and "\0" not in page and "{{ 7*7 }}" in page
    assert "&amp;amp;" in page and "&lt;b&gt;bob&lt;/b&gt;" in page
    assert page.count("<mark>") == 3 and "<mark>def f(x):</mark>" in page
    assert "90%" in page and "60%" in page


def test_an_archived_hand_in_is_named_as_one(tmp_path):
    match = Match(0.9, 0.6, 200, ((0, 3),), ((0, 3),))
    page = write_pages(tmp_path, _pair(b="2025/olga", archived=True), match, "abc", "abc").read_text()
    assert "archived hand-in 2025/olga" in page and "not a student of this class" in page


def test_the_section_says_what_was_compared_and_what_was_not(tmp_path):
    assert section(None) is None
    outcome = Outcome(threshold=0.55, hand_ins=4, pairs=[_pair(), _pair("alice", "аlice")])
    outcome.alike_names = {"alice": ["аlice"], "аlice": ["alice"]}
    outcome.not_compared = [{"uid": "cy", "name": "<i>cy</i>", "problem": "empty", "detail": ""}]
    context = section(outcome)
    assert "55% or more" in context["rule"] and [p["alike"] for p in context["pairs"]] == [False, True]
    page = write_index(tmp_path, outcome, "weight_tying").read_text()
    assert '<h1 id="similar">weight_tying: similar hand-ins</h1>' in page and "<h2" not in page  # one title
    assert "one student twice?" in page and "&lt;i&gt;cy&lt;/i&gt;: blank" in page
    assert page.count('href="similar/0123456789abcdef.html"') == 2


def test_a_chinese_instructor_reads_the_section_and_the_pages_in_chinese(tmp_path):
    """grade --language zh: similarity.html, each pair's page and the pair in Needs a look, in the report's words
    (messages_similarity); a not-compared hand-in's kind and detail too (the pass stores the detail as a message)."""
    outcome = Outcome(threshold=0.6, hand_ins=6, pairs=[_pair()], when="2026-05-04T09:30:00Z")
    outcome.not_compared = [
        {"uid": "cy", "name": "cy", "problem": "empty", "detail": {"id": "report.similar.detail.empty", "params": {}}}
    ]
    page = write_index(tmp_path, outcome, "Weight Tying", "zh").read_text()
    assert '<html lang="zh-CN">' in page and '<h1 id="similar">Weight Tying 作业：代码相似的提交</h1>' in page
    assert "<h2" not in page and "共比较了 6 份提交（2026-05-04 09:30:00 UTC）。" in page  # the title once
    assert "60% 或更多" in page and "cy：空白提交（没有代码，或只有初始代码）" in page
    assert "提交 A</th>" in page and "A 自己写的代码中与 B 重合的比例" in page and "没有达到阈值的一对" not in page
    assert "hand-ins" not in page and "compare<" not in page and "查看</a>" in page
    match = Match(0.9, 0.6, 200, ((0, 3),), ((0, 3),))
    places = {"part": "# 第 1 段"}  # as read_written writes the place lines in the page's language
    pair = write_pages(tmp_path, _pair(), match, "# 第 1 段\nabc", "# 第 2 段\nabc", "zh", places=places).read_text()
    assert "alice 与 bob：相似的代码" in pair and "所有相似的提交" in pair and "Marked" not in pair
    # a .py hand-in's pieces are parts: the note quotes what the page shows above them, never a notebook's cell
    assert "每一段上方的注释（如“# 第 1 段”）" in pair and "单元格" not in pair.split("<pre")[0]
    assert "“# 第 N 段”指 .py 文件中以 # %% 分隔的第 N 段。" in pair and "# part" not in pair  # round 8: in Chinese
    assert "高亮部分是两份提交共有、又不属于初始代码或多数人共有代码的代码" in pair

    class Row:
        uid = "alice"

    assert needs_a_look([Row()], outcome, "zh")[0][1] == "与 bob 相似（占这份提交的 90%，占对方的 60%）"


def test_each_pair_is_a_linked_line_of_needs_a_look():
    class Row:
        def __init__(self, uid):
            self.uid = uid

    outcome = Outcome(threshold=0.55, pairs=[_pair(), _pair("ghost", "bob")])
    found = needs_a_look([Row("alice"), Row("bob")], outcome)
    assert len(found) == 1  # a pair of a student no longer in the class waits for the next pass
    row, detail = found[0]
    assert row.uid == "alice" and isinstance(detail, Linked) and detail.href == "similar/0123456789abcdef.html"
    assert detail == "with bob: 90% of this hand-in, 60% of the other's"
    assert needs_a_look([Row("alice")], None) == []
