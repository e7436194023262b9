"""The self-check in Chinese: a failure names the section to reread one way, 第 N 节“heading”, at the end of its
message whether the diagnosis names it or the check does, and the graded area on the line after it; why a
submission cannot be checked is said in Chinese too, from the catalog.

Each wrong answer is the reference with one edit, loaded and checked in-process as test_release_selfcheck.py does.
"""

from __future__ import annotations

import re

import pytest

from coursecheck.notebook import exec_source

TIE = "self.lm_head.weight = self.token_embed.weight"

# name -> (the reference's line, its wrong version, the check that must fail)
WRONG = {
    "copied table (the diagnosis names the section)": (
        TIE,
        "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())",
        "test_tied_head_is_the_embedding_parameter",
    ),
    "bias on the head (the check's hint names it)": (
        "vocab_size, bias=False)",
        "vocab_size, bias=True)",
        "test_tied_holds_one_table_and_no_bias",
    ),
    "no context crop": ("context = ids[:, -block_size:]", "context = ids", "test_generate_crops_past_block_size"),
}


@pytest.mark.parametrize("mistake", list(WRONG))
def test_a_chinese_failure_names_its_section_by_number_and_heading_once(checks, solution_source, monkeypatch, mistake):
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    old, new, failing = WRONG[mistake]
    assert old in solution_source, f"edit no longer applies: {old!r}"
    result = exec_source(solution_source.replace(old, new, 1), "submission.py")
    session = checks.SELF_CHECK.session(
        {n: result.namespace.get(n) for n in ("TiedEmbeddingLM", "MiniGPTWithWeightTying")}
    )
    message = session.outcome(failing).message
    assert len(re.findall(r"请重读第 \d+ 节“[^”]+”", message)) == 1, message
    assert "notebook 第" not in message and "）（" not in message, message
    assert re.search(r"评分项：[^\n]+。$", message), message
    # one layout whoever names the section: the message ending with where to reread, the area on a line of its own
    text, area = message.rsplit("\n", 1)
    assert re.search(r"请重读第 \d+ 节“[^”]+”(和第 \d+ 节“[^”]+”)?。$", text) and area.startswith("评分项："), message


def test_a_stub_names_where_to_reread_and_no_graded_area(checks, monkeypatch):
    """Nothing of a class is written yet: the failure sends the student to its exercise's section, and names no
    graded area (a stub is not one area's: the first check of a class is a parameter count)."""
    stub = "import torch.nn as nn\nclass TiedEmbeddingLM(nn.Module):\n    def __init__(self, *a, **k):\n"
    stub += "        raise NotImplementedError()\n"
    cls = exec_source(stub, "stub.py").namespace["TiedEmbeddingLM"]
    for language, reread, area in (
        ("en", '(reread section 6, "Exercise 1', "Graded area"),
        ("zh", "请重读第 6 节“练习 1", "评分项"),
    ):
        monkeypatch.setenv("WEIGHT_TYING_LANG", language)
        message = (
            checks.SELF_CHECK.session({"TiedEmbeddingLM": cls}).outcome("test_tied_table_has_shape_v_by_d").message
        )
        assert reread in message and area not in message, message


def test_why_the_submission_cannot_be_checked_is_said_from_the_catalog(checks, tmp_path, monkeypatch):
    """coursecheck.selfcheck gives its errors a language-free reason; the self-check words each in the student's
    language (English as dnnlpy says it), with no translation of English anywhere."""
    from autograder.graders.weight_tying.zh_text import untranslated
    from coursecheck.selfcheck import find_submission, load_submission

    monkeypatch.setenv("WEIGHT_TYING_SUBMISSION", str(tmp_path / "gone.ipynb"))
    errors = []
    for call in (
        lambda: find_submission(tmp_path, default_name="weight_tying.ipynb", env_var="WEIGHT_TYING_SUBMISSION"),
        lambda: find_submission(tmp_path, default_name="weight_tying.ipynb", env_var="NO_SUCH_SETTING"),
    ):
        with pytest.raises(FileNotFoundError) as error:
            call()
        errors.append(error.value)
    (tmp_path / "notes.txt").write_text("x")
    monkeypatch.setenv("WEIGHT_TYING_SUBMISSION", str(tmp_path / "notes.txt"))
    with pytest.raises(ValueError) as error:
        find_submission(tmp_path, default_name="weight_tying.ipynb", env_var="WEIGHT_TYING_SUBMISSION")
    errors.append(error.value)
    (tmp_path / "broken.ipynb").write_text("{not json")
    with pytest.raises(ValueError) as error:
        load_submission(tmp_path / "broken.ipynb")
    errors.append(error.value)
    monkeypatch.delenv("WEIGHT_TYING_LANG", raising=False)
    assert [checks.unloadable(e) for e in errors] == [str(e) for e in errors]  # English: dnnlpy's own words
    monkeypatch.setenv("WEIGHT_TYING_LANG", "zh")
    chinese = [checks.unloadable(e) for e in errors]
    assert [untranslated(text) for text in chinese] == [[]] * len(errors), chinese
    assert chinese[0].startswith("找不到要检查的文件 $WEIGHT_TYING_SUBMISSION=") and "找不到要检查的文件" in chinese[1]
    assert "既不是 .ipynb 也不是 .py 文件" in chinese[2] and chinese[3].startswith("无法读取你的提交：“"), chinese
