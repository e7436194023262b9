"""Every Chinese string the kit can show, held to the edition's glossary, to its typography, and to no English.

The strings: every registered catalog message's Chinese template (the grader's, the engine's, the pages'), and
the Chinese notebook's markdown, what its code cells print and the comments and docstrings its code carries
(their source, scripts/weight_tying_notebook/text_zh.py). A rejected variant or calque (``glossary.TERMS``,
``glossary.CALQUES``) fails naming the string's id, the term to use and the chapter's sentence the term comes
from; so does an English word outside code, the book's kept terms and the allow-list
(``glossary.ENGLISH_ALLOWED``), and punctuation a Chinese reader would not write: half-width ( ) : , ; ? !
against a Chinese character, double spaces, ASCII quotes, 「」 (the book quotes with “”), a space beside a
full-width mark, italics around Chinese, or a message of several sentences that does not end its last one.
"""

from __future__ import annotations

import re
import string

import pytest

import autograder.graders.release  # noqa: F401 - registers the self-check framework's words (coursecheck)
import autograder.graders.weight_tying.messages  # noqa: F401 - registers the grader's catalog
import autograder.grading.catalog  # noqa: F401 - registers the engine's
import autograder.outputs.messages_pages  # noqa: F401 - registers the pages'
import autograder.outputs.messages_report  # noqa: F401 - registers the instructor's report's
from autograder.graders.weight_tying import glossary
from autograder.graders.weight_tying.zh_text import english, rejected
from autograder.protocol.said import owner_of, registered
from scripts.weight_tying_notebook import text_zh

HAN = r"\u4e00-\u9fff"
# Punctuation a Chinese reader would not write (each pattern with what to write instead).
TYPOGRAPHY = {
    rf"[{HAN}][(),:;?!]|[(),:;?!][{HAN}]": "full-width （ ），：；？！ next to a Chinese character",
    r"\S  +\S": "one space",
    rf"\"[^\"\n]*[{HAN}][^\"\n]*\"|'[^'\n]*[{HAN}][^'\n]*'": "「」 or “” around Chinese, not ASCII quotes",
    rf"<em>[^<]*[{HAN}]|(?<![*A-Za-z0-9_])\*(?!\*)[^*\n]*[{HAN}][^*\n]*(?<!\*)\*(?!\*)": (
        "bold or “”, not italics on Chinese"
    ),
    r"[「」『』]": "“” (the book's quotes), not 「」",
    r"[（“，。：；！？、）”][ \t]+[^\s|]|[^\s|][ \t]+[（“，。：；！？、）”]": "no space beside a full-width mark",
    r"[。？！：，；、]。": "a sentence ends once: no 。 after ？ ！ 。 or after a colon or comma",
}
DOUBLED = list(TYPOGRAPHY)[-1]


def _strings() -> dict[str, str]:
    """id -> every Chinese string the kit can show (templates with their parameters left as {name})."""
    shown = {f"{owner_of(key)}:{key}": m.zh for key, m in registered().items() if owner_of(key) != "selftest"}
    shown.update({f"notebook:{key}": text for key, text in text_zh.TEXT.items()})
    shown["notebook:README"] = text_zh.README  # the release's README.md, beside the notebook
    shown.update({f"notebook:table_header:{i}": text for i, text in enumerate(text_zh.TABLE_HEADER)})
    # what the code cells print: their {fields} are the cells' expressions, code
    printed = {**text_zh.PRINTED, "practice_check": text_zh.PRACTICE_CHECK}
    shown.update({f"notebook:printed:{key}": re.sub(r"\{[^{}]*\}", "{}", text) for key, text in printed.items()})
    shown.update({f"notebook:comment:{english}": text for english, text in text_zh.COMMENTS.items()})
    return shown


def _prose(text: str) -> str:
    """`text` without its code spans, math and HTML tags: what typography rules apply to."""
    text = re.sub(r"```.*?```", "X", text, flags=re.S)  # a fenced block: commands, with their own comments
    text = re.sub(r"`[^`]*`|<sub>.*?</sub>|<sup>.*?</sup>|\$[^$]*\$", "X", text)
    text = re.sub(r"\n *(?:[-|] *)?", "\n", text)  # a markdown line's indent and list or table marks
    return re.sub(r"\{\w*\}", "X", text)


STRINGS = _strings()
TYPOGRAPHY_QUOTES = r"[「」『』]"  # the README's menu names once were quoted so


def test_every_catalog_owner_and_the_notebook_are_scanned():
    owners = {key.split(":")[0] for key in STRINGS}
    assert {"weight_tying", "coursecheck", "engine", "pages", "report", "notebook"} <= owners
    assert len(STRINGS) > 400  # every message, not a sample


def _anchor(use: str) -> str:
    """Where the glossary's word comes from: the chapter's sentence, or why the kit chose it."""
    term = next((t for t in glossary.TERMS if t.use == use), None)
    if term is None:
        return "a calque: glossary.CALQUES"
    section, sentence = term.book
    return f"the chapter, {section}: “{sentence}”" if sentence else f"the kit's word: {term.why}"


@pytest.mark.parametrize("key", sorted(STRINGS))
def test_the_glossarys_terms(key):
    found = rejected(STRINGS[key])
    assert not found, f"{key}: " + "; ".join(f"{v!r} -> write {use!r} ({_anchor(use)})" for v, use in found)


@pytest.mark.parametrize("key", sorted(STRINGS))
def test_no_english_outside_code_and_the_books_terms(key):
    words = english(STRINGS[key])
    assert not words, f"{key}: English {words} in {STRINGS[key]!r}"


@pytest.mark.parametrize("key", sorted(STRINGS))
def test_chinese_typography(key):
    prose = _prose(STRINGS[key])
    bad = [f"{why}: {m.group(0)!r}" for rule, why in TYPOGRAPHY.items() for m in re.finditer(rule, prose)]
    assert not bad, f"{key}: " + "; ".join(bad)


def test_every_term_names_the_chapters_sentence_or_why_not():
    """Each term the chapter names carries the sentence it comes from (its section and the sentence as the
    chapter writes it, holding the word); every other term says why the kit chose its word."""
    for term in glossary.TERMS:
        section, sentence = term.book
        if sentence:
            assert section.startswith("18.4"), (term.use, section)
            assert term.in_book.lower() in sentence.lower(), f"{term.use}: {sentence!r} does not use {term.in_book!r}"
        else:
            assert len(term.why) > 10, f"{term.use}: neither the chapter's sentence nor why the kit's word"
    tying = {t.use: t for t in glossary.TERMS}
    assert "权重绑定" in tying["weight tying"].rejected and "绑定" in tying["共享"].rejected
    assert "共享权重" in tying["共享"].book[1] and "weight tying" in tying["weight tying"].book[1]
    assert "点积" in tying["内积"].rejected and "hidden size" in tying["hidden size"].book[1]


def test_the_glossary_rejects_what_it_is_meant_to():
    """The checks are not vacuous: each kind of slip the review found is caught, with the term to use."""
    assert ("词元", "token") in rejected("新生成的词元")
    assert ("语言模型头", "LM head") in rejected("语言模型头的权重")
    assert ("提示词", "前缀") in rejected("保留提示词")
    assert ("封印", "校验码") in rejected("这条记录没有封印")
    assert ("权重绑定", "weight tying") in rejected("这就是权重绑定") and ("绑定", "共享") in rejected("绑定之后")
    assert ("点积", "内积") in rejected("分数等于点积") and ("前向计算", "forward") in rejected("前向计算之后")
    assert ("包装模型", glossary.CALQUES["包装模型"]) in rejected("包装模型的参数量")
    assert ("token 表", "token embedding 表") in rejected("token 表的形状")  # reads as the vocabulary, not the table
    assert ("两处用途", glossary.CALQUES["两处用途"]) in rejected("沿这两处用途分别走一遍")
    assert ("报出的异常", glossary.CALQUES["报出的异常"]) in rejected("generate 报出的异常：")
    assert ("log-softmax", "log_softmax") in rejected("内部会先做 log-softmax")  # round 25: as the messages write it
    assert rejected("共享权重之后，两端共享同一张表") == []
    assert english("复制了一份表（copied table）") == ["copied", "table"]
    assert english("忽略了超参数（hyper-parameter ignored (dropout)）") == ["hyper-parameter", "ignored"]
    assert english("`nn.Embedding(V, D)` 与 LM head 的 token、loss 和 logits") == []
    prose = _prose('每个位置既知道*哪个* token (见上) 和 "大"')
    assert all(re.search(rule, prose) for rule in list(TYPOGRAPHY)[:4:2] + [list(TYPOGRAPHY)[3]])
    assert all(
        re.search(rule, text)
        for rule, text in zip(list(TYPOGRAPHY)[4:], ("见「练习」", "loss（不给 targets） 是", "循环？。"), strict=True)
    )
    assert not any(re.search(rule, _prose("第 6 节“练习 1”：{x} 是 3。")) for rule in TYPOGRAPHY)
    assert re.search(TYPOGRAPHY_QUOTES, _prose("执行「Kernel → Restart」")) and "notebook:README" in STRINGS


@pytest.mark.parametrize("owner", ["weight_tying", "engine"])
def test_a_message_sent_to_reread_a_section_ends_its_sentence_once(owner):
    """Every message of the grader's and the engine's catalogs with the section to reread after it (as the suite,
    the diagnosis and the self-check join them), rendered in Chinese: one full stop where the message and
    “请重读” meet, whatever mark the message ended with (“是不是死循环？请重读”, never “？。请重读”)."""
    from autograder.graders.weight_tying.diagnosis import reread
    from autograder.protocol.said import Said, parameters, render

    bad = []
    for key, entry in registered(owner).items():
        said = Said(key, **{name: "x" for name in parameters(entry.en)})
        shown = render(said + reread(6), "zh")
        bad += [f"{key}: {shown[-60:]!r}" for _ in re.finditer(DOUBLED, shown)]
    assert not bad, "\n".join(bad)


def test_the_join_keeps_one_mark():
    """The rule the test above holds every message to is the catalog's: a full stop after a question mark or a
    full stop is dropped, one after a colon or a comma takes its place; a parameter meets its template the same way."""
    from autograder.protocol.said import Said, render

    assert render(Said("check.budget.check", seconds=3) + Said("diag.reread.and"), "zh").endswith("？和")
    question = Said("check.budget.check", seconds=3)
    for before, joined in (
        (question, "死循环？请重读"),
        (Said("check.waiting.check", need="n"), "通过之后才检查。请重读"),
    ):
        shown = render(before + Said("diag.reread", sections="x"), "zh")
        assert joined in shown and not re.search(DOUBLED, shown), shown
    inside = render(Said("diag.reread", sections=Said("verbatim", text="第 6 节。")), "zh")
    assert inside.endswith("第 6 节。") and "。。" not in inside
    assert re.search(DOUBLED, "死循环？。请重读") and re.search(DOUBLED, "如下：。")
    assert not re.search(DOUBLED, "完毕。请重读")


def test_the_notebook_and_the_self_check_name_which_table():
    """“embedding 表” alone could be the token table or the position table: what a student reads of the notebook,
    its README and the self-check (the release's catalog and coursecheck's words) says token embedding 表."""
    from autograder.graders.weight_tying.release import released_catalog

    released = {f"weight_tying:{key}" for key in released_catalog()}
    read = {k: v for k, v in STRINGS.items() if k.startswith(("notebook:", "coursecheck:")) or k in released}
    assert len(read) > 200 and "weight_tying:checkfail.positions_are_the_token_table" in read
    bare = {key: glossary.bare_in(text) for key, text in read.items() if glossary.bare_in(text)}
    assert not bare, bare
    assert glossary.bare_in("embedding 表的形状") == [("embedding 表", glossary.BARE[next(iter(glossary.BARE))])]
    assert glossary.bare_in("token embedding 表和 positional embedding 表") == []


def test_every_allowed_english_word_has_a_reason():
    assert all(isinstance(why, str) and len(why) > 10 for why in glossary.ENGLISH_ALLOWED.values())
    uses = [term.use for term in glossary.TERMS]
    assert len(uses) == len(set(uses)), "one entry per term"
    variants = [v for term in glossary.TERMS for v in term.rejected]
    assert not set(variants) & set(uses), "a term cannot be rejected and used"


def test_templates_keep_their_parameters_apart_from_words():
    """A parameter glued to Latin letters would be read as English by the scan: keep them apart."""
    for key, text in STRINGS.items():
        for _, name, _, _ in string.Formatter().parse(text) if not key.startswith("notebook") else []:
            assert name is None or re.fullmatch(r"\w*", name), (key, name)
