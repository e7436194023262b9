"""The self-check in Chinese: a failure names the section to reread one way, 第 N 节“heading”, at the end of its
message whether the diagnosis names it or the check does, and the graded area on the line after it.

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
    session = checks.Session({n: result.namespace.get(n) for n in ("TiedEmbeddingLM", "MiniGPTWithWeightTying")})
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
        message = checks.Session({"TiedEmbeddingLM": cls}).outcome("test_tied_table_has_shape_v_by_d").message
        assert reread in message and area not in message, message
