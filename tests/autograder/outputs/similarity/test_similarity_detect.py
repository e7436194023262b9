"""The similarity pass on the calibration corpus, at the default threshold: every disguised copy (renamed, methods
reordered, comments and prints added, a print after every statement, moved to the other edition; of correct files
and of a wrong one) is listed
with its original, and no two files written independently are; what only the starter code or most of the class
shares pairs nobody; an archive is compared, never listed as a student; bad hand-ins are listed, never a crash."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.outputs.similarity import engine, written
from autograder.outputs.similarity.detect import SimilarityOptions, run_similarity
from autograder.outputs.similarity.pages import detail
from autograder.outputs.similarity.written import COMMON_ONLY, EMPTY, HUGE, NOT_UTF8, UNREADABLE

CALIBRATION = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"
REFERENCE = get_assignment("weight_tying").solution_path
# Correct files written in their own styles (a file with notebook magics is not Python a disguise can read).
INDEPENDENT = [p for p in sorted((CALIBRATION / "correct").glob("*.py")) if "\n%" not in p.read_text(encoding="utf-8")]


def _source_of(student: str) -> str:
    return student.split("__")[0]


@pytest.fixture(scope="module")
def calibration(tmp_path_factory, corpus, hand_ins_of):
    """The corpus as a class: every original in an English notebook, each of its copies in a Chinese one (moved
    between editions on top of its disguise), the other independent files in turn a notebook and a .py, and the
    reference; the pass at the default threshold."""
    root = tmp_path_factory.mktemp("calibration") / "class"
    root.mkdir()
    files = {p.stem: p.read_text(encoding="utf-8") for p in INDEPENDENT}
    files["reference"] = REFERENCE.read_text(encoding="utf-8")
    wrong = CALIBRATION / "wrong" / "w47_skips_blocks_zero_norm.py"
    files[wrong.stem] = wrong.read_text(encoding="utf-8")
    originals = {Path(rel).stem for rel in corpus.SOURCES}
    for n, (stem, code) in enumerate(sorted(files.items())):
        if n % 2 and stem not in originals:
            (root / f"{stem}.py").write_text(code, encoding="utf-8")
        else:
            (root / f"{stem}.ipynb").write_text(corpus.in_notebook(code, "en"), encoding="utf-8")
    copies = sorted((CALIBRATION / "similarity" / "copies").glob("*.py"))
    for path in copies:
        (root / f"{path.stem}.ipynb").write_text(corpus.in_notebook(path.read_text(), "zh"), encoding="utf-8")
    outcome = run_similarity("weight_tying", root.parent / "out", hand_ins_of(root))
    return outcome, [p.stem for p in copies]


def test_every_disguised_copy_is_listed_with_its_original(calibration):
    outcome, copies = calibration
    listed = {frozenset((p.a_name, p.b_name)): p for p in outcome.pairs}
    assert len(copies) == 25 and {c.split("__")[1] for c in copies} == {
        "renamed",
        "reordered",
        "annotated",
        "all",
        "padded",
    }
    missed = [c for c in copies if frozenset((_source_of(c), c)) not in listed]
    assert missed == [], f"copies not listed with their original at {engine.DEFAULT_THRESHOLD}: {missed}"
    for copy in copies:
        pair = listed[frozenset((_source_of(copy), copy))]
        assert pair.share >= engine.DEFAULT_THRESHOLD and pair.chars >= engine.MIN_MATCH
        assert 0 < min(pair.share_a, pair.share_b) <= max(pair.share_a, pair.share_b) <= 1


def test_no_two_files_written_independently_are_listed(calibration):
    outcome, _ = calibration
    crossed = [
        (p.a_name, p.b_name, round(p.share, 2)) for p in outcome.pairs if _source_of(p.a_name) != _source_of(p.b_name)
    ]
    assert crossed == [], f"independent files listed as similar: {crossed}"
    assert outcome.hand_ins == len(INDEPENDENT) + 1 + 25  # and the reference, which has nothing of its own:
    assert [(e["name"], e["problem"]) for e in outcome.not_compared] == [("reference", COMMON_ONLY)]


def test_the_threshold_sits_between_the_two_sides_with_room(calibration):
    """The calibrated default is not a knife's edge: the copies clear it and the independent pairs stay below it."""
    outcome, _ = calibration
    copies = [p.share for p in outcome.pairs if "__" in p.a_name and "__" in p.b_name]
    originals = [p.share for p in outcome.pairs if p.a_name == _source_of(p.b_name) or p.b_name == _source_of(p.a_name)]
    assert min(originals) >= engine.DEFAULT_THRESHOLD + 0.1, sorted(originals)[:3]
    assert copies, "two disguises of one file are copies of each other too"


def test_copies_handed_in_as_py_files_are_listed_too(tmp_path, class_of, hand_ins_of):
    """The same copies as .py files (a script keeps its own signatures and order), with independent ones beside."""
    copies = sorted((CALIBRATION / "similarity" / "copies").glob("c02_*.py"))
    others = {p.stem: (p.read_text(encoding="utf-8"), "py") for p in INDEPENDENT if not p.stem.startswith("c02")}
    original = (CALIBRATION / "correct" / "c02_reverse_tie.py").read_text(encoding="utf-8")
    hand_ins = {"c02_reverse_tie": (original, "py"), **{p.stem: (p.read_text(), "py") for p in copies}, **others}
    outcome = run_similarity("weight_tying", tmp_path / "out", hand_ins_of(class_of(hand_ins)))
    listed = {frozenset((p.a_name, p.b_name)) for p in outcome.pairs if "c02_reverse_tie" in (p.a_name, p.b_name)}
    assert listed == {frozenset(("c02_reverse_tie", p.stem)) for p in copies}
    assert all(_source_of(p.a_name) == _source_of(p.b_name) for p in outcome.pairs)


def test_a_class_that_only_shares_the_starter_code_pairs_nobody(tmp_path, corpus, class_of, hand_ins_of):
    blank_en, blank_zh = corpus.in_notebook("", "en"), corpus.in_notebook("", "zh")
    root = tmp_path / "blank"
    root.mkdir()
    for name, text in {"ann": blank_en, "ben": blank_en, "cai": blank_zh, "dong": blank_zh}.items():
        (root / f"{name}.ipynb").write_text(text, encoding="utf-8")
    outcome = run_similarity("weight_tying", tmp_path / "out", hand_ins_of(root))
    assert outcome.pairs == [] and outcome.hand_ins == 0
    assert sorted((e["name"], e["problem"]) for e in outcome.not_compared) == [
        (n, EMPTY) for n in ("ann", "ben", "cai", "dong")
    ]


HELPER = '''

def count_parameters(model):
    """How many numbers the model learns, each shared one once."""
    seen, total = set(), 0
    for parameter in model.parameters():
        if id(parameter) in seen:
            continue
        seen.add(id(parameter))
        total += parameter.numel()
    return total


def describe(model, label):
    print(label, "has", count_parameters(model), "parameters")
    for name, module in model.named_children():
        print("  ", name, type(module).__name__)
'''


def test_code_most_of_the_class_shares_is_common_and_pairs_nobody(tmp_path, class_of, hand_ins_of):
    """The same helper in every hand-in of a class of 11 is common; in only two of them it is evidence."""
    everyone = {p.stem: (p.read_text(encoding="utf-8") + HELPER, "py") for p in INDEPENDENT}
    outcome = run_similarity("weight_tying", tmp_path / "out", hand_ins_of(class_of(everyone)))
    assert outcome.pairs == [] and outcome.hand_ins == len(everyone) >= engine.COMMON_MIN
    two = {k: everyone[k] for k in ("c01_chapter_way", "c13_minigpt_by_parts")}  # the least code of their own
    few = run_similarity("weight_tying", tmp_path / "out2", hand_ins_of(class_of(two, folder="two")))
    assert [(p.a_name, p.b_name) for p in few.pairs] == [tuple(two)]


def test_an_archive_is_compared_with_the_class_and_never_listed_as_a_student(tmp_path, class_of, hand_ins_of):
    original = (CALIBRATION / "correct" / "c04_einsum_manual_loss.py").read_text(encoding="utf-8")
    copy = (CALIBRATION / "similarity" / "copies" / "c04_einsum_manual_loss__all.py").read_text(encoding="utf-8")
    other = (CALIBRATION / "correct" / "c02_reverse_tie.py").read_text(encoding="utf-8")
    archive = class_of({"olga": (original, "en"), "olga_again": (original, "py")}, folder="2025")
    root = class_of({"pat": (copy, "zh"), "quinn": (other, "en")})
    outcome = run_similarity(
        "weight_tying", tmp_path / "out", hand_ins_of(root), SimilarityOptions(archives=(archive,))
    )
    assert outcome.hand_ins == 2 and outcome.archived == 2 and outcome.archives == [str(archive)]
    assert sorted((p.a_name, p.b_name, p.archived) for p in outcome.pairs) == [
        ("pat", "2025/olga", True),
        ("pat", "2025/olga_again", True),
    ]  # never olga with olga_again: two archived hand-ins are not a pair
    assert all(p.a == "pat" for p in outcome.pairs) and not outcome.not_compared
    again = run_similarity("weight_tying", tmp_path / "out", hand_ins_of(root))  # the folder keeps its archive
    assert again.archives == [str(archive)] and len(again.pairs) == 2


def test_bad_hand_ins_are_listed_and_never_stop_the_pass(tmp_path, class_of, hand_ins_of, monkeypatch):
    monkeypatch.setattr(written, "MAX_WRITTEN", 8 << 10)  # the bound made small: the same code path, faster
    code = (CALIBRATION / "correct" / "c06_custom_init_after_tie.py").read_text(encoding="utf-8")
    lines = "".join(f"value_{i} = compute({i}, table[{i % 7}])\n" for i in range(400))  # ~11 K of code
    root = class_of({"alice": (code, "en"), "аlice": (code, "zh"), "huge1": (lines, "py"), "huge2": (lines, "py")})
    (root / "empty.py").write_text("", encoding="utf-8")
    (root / "notes.py").write_text("# nothing here yet\n", encoding="utf-8")
    (root / "broken.ipynb").write_text("{not json", encoding="utf-8")
    (root / "latin.py").write_bytes(b"x = '\xe9t\xe9'\n" + code.encode())
    outside = tmp_path / "elsewhere.py"
    outside.write_text(code, encoding="utf-8")
    os.symlink(outside, root / "linked.py")
    outcome = run_similarity("weight_tying", tmp_path / "out", hand_ins_of(root))
    problems = {e["name"]: e["problem"] for e in outcome.not_compared}
    # a file of comments only is blank, as the grader says of it (submissions.holds_code): nothing written yet
    assert problems == {"empty": EMPTY, "notes": EMPTY, "broken": UNREADABLE, "linked": UNREADABLE}
    assert "link" in detail(next(e["detail"] for e in outcome.not_compared if e["name"] == "linked"))
    notes = {e["name"]: e["notes"] for e in outcome.notes}
    assert notes == {"huge1": [HUGE], "huge2": [HUGE], "latin": [NOT_UTF8]}
    huge = next(e["detail"] for e in outcome.notes if e["name"] == "huge1")
    assert "8,192 compared" in detail(huge) and "只比较了前 8,192 个" in detail(huge, "zh")  # a message, not English
    assert outcome.alike_names == {"alice": ["аlice"], "аlice": ["alice"]}
    names = {frozenset((p.a_name, p.b_name)) for p in outcome.pairs}
    assert {frozenset(("alice", "аlice")), frozenset(("huge1", "huge2"))} <= names


def test_every_corpus_copy_is_python_that_parses(corpus):
    for path in sorted((CALIBRATION / "similarity" / "copies").glob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"))


def test_a_hand_in_that_did_not_compile_is_said_so_and_the_summary_counts_who_was_left_out(tmp_path, hand_ins_of):
    """Issue 48, round 15: a file with a syntax error and too little of its own was said to hold "only comments,
    starter code, ..."; the terminal said "5 hand-ins compared" of a class of six without saying why."""
    from dataclasses import replace

    from autograder.cli.similarity import summary

    root = tmp_path / "class"
    root.mkdir()
    code = (CALIBRATION / "correct" / "c06_custom_init_after_tie.py").read_text(encoding="utf-8")
    for name in ("ann", "bo"):
        (root / f"{name}.py").write_text(code, encoding="utf-8")
    for name in ("cy", "di"):  # the same text: the grading run's value tells them apart, never the text
        (root / f"{name}.py").write_text("def f(:\n    pass\n", encoding="utf-8")
    (root / "eve.py").write_text("", encoding="utf-8")
    hand_ins = [replace(h, compile_failed=h.name == "cy") for h in hand_ins_of(root)]
    outcome = run_similarity("weight_tying", tmp_path / "out", hand_ins)
    said = {e["name"]: (e["problem"], detail(e["detail"], "zh")) for e in outcome.not_compared}
    assert said["cy"] == (
        written.SYNTAX_ERROR,
        "未参与比较：除去注释、初始代码、参考答案的代码和多数人共有的代码后，剩下的代码太少",
    )
    assert said["di"][0] == written.COMMON_ONLY and said["eve"][0] == written.EMPTY
    line = summary(outcome, tmp_path / "out", "zh")
    # round 26: each reason a whole clause with its count ("另有没有自己写的代码 1 份" broke)
    assert "比较了 2 份提交（另有 1 份空白提交、1 份提交有语法错误、1 份提交没有自己写的代码，未参与比较）" in line, (
        line
    )
    en = summary(outcome, tmp_path / "out")
    assert "2 hand-ins compared (and 1 blank, 1 with a syntax error, 1 with nothing of its own, not compared)" in en, en


def test_the_summary_counts_hand_ins_left_out_for_one_reason_once(tmp_path):
    """One reason: "（另有 1 份空白提交，未参与比较）", not the count twice ("1 份未参与比较：空白提交 1 份"); several
    reasons keep the list (the test above). Issue 48, round 16."""
    from autograder.cli.similarity import summary

    outcome = SimpleNamespace(hand_ins=5, archived=0, not_compared=[{"problem": EMPTY}], pairs=[], threshold=0.8)
    zh, en = summary(outcome, tmp_path, "zh"), summary(outcome, tmp_path)
    assert "比较了 5 份提交（另有 1 份空白提交，未参与比较）" in zh and "未参与比较：" not in zh, zh
    assert "5 hand-ins compared (and 1 blank, not compared)" in en, en
