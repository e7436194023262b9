"""What the notebook tells students about torch holds under the torch the kit installs.

Exercise 1 warns that sharing only ``.data`` is no tie: two Parameters on one storage. Whether that storage stays
shared depends on what is done to the model, and the notebook (both editions) and the diagnosis say which:
a cast or a move to another device, or ``copy.deepcopy``, gives each Parameter memory of its own; reloading a
state_dict copies values into the storage there is, so it does not (nor does a ``.to`` that changes nothing).
A real tie (one Parameter) survives each of them.
"""

from __future__ import annotations

import copy
import io
import json
import re

import pytest
import torch
import torch.nn as nn

from autograder.graders.kit import COURSE_DIR
from autograder.graders.weight_tying.messages import CATALOG
from autograder.graders.weight_tying.released_demos import DIGESTS
from coursecheck.cells import demo_digest
from scripts.weight_tying_notebook import text_en, text_zh

V, D = 10, 4


class _Pair(nn.Module):
    def __init__(self, how: str) -> None:
        super().__init__()
        self.token_embed = nn.Embedding(V, D)
        self.lm_head = nn.Linear(D, V, bias=False)
        if how == "data":
            self.lm_head.weight.data = self.token_embed.weight.data
        elif how == "new Parameter":
            self.lm_head.weight = nn.Parameter(self.token_embed.weight.data)
        else:
            self.lm_head.weight = self.token_embed.weight


def _reloaded(model: _Pair, how: str) -> _Pair:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    fresh = _Pair(how)
    fresh.load_state_dict(torch.load(buffer))
    return fresh


def _shares(model: _Pair) -> bool:
    return model.token_embed.weight.data_ptr() == model.lm_head.weight.data_ptr()


BREAKS = {
    ".to(torch.float64)": lambda m, how: m.to(torch.float64),
    ".half()": lambda m, how: m.half(),
    "copy.deepcopy": lambda m, how: copy.deepcopy(m),
}
KEEPS = {
    "load_state_dict": _reloaded,
    ".to('cpu')": lambda m, how: m.to("cpu"),
}


@pytest.mark.parametrize("how", ["data", "new Parameter"])
def test_data_sharing_breaks_on_a_cast_or_a_deepcopy_not_on_load_state_dict(how):
    assert _shares(_Pair(how)) and _Pair(how).lm_head.weight is not _Pair(how).token_embed.weight
    for name, change in BREAKS.items():
        assert not _shares(change(_Pair(how), how)), name
    for name, change in KEEPS.items():
        assert _shares(change(_Pair(how), how)), name


def test_a_real_tie_survives_each_of_them():
    for name, change in {**BREAKS, **KEEPS}.items():
        model = change(_Pair("tie"), "tie")
        assert model.lm_head.weight is model.token_embed.weight, name


def test_the_notebook_and_the_diagnosis_say_what_breaks_it():
    """Each says the casts and the deepcopy, and none says load_state_dict breaks it (it once did)."""
    said = {
        "en notebook": text_en.TEXT["exercise_1"],
        "zh notebook": text_zh.TEXT["exercise_1"],
        "en diagnosis": CATALOG["diag.tie.data_sharing"].en,
        "zh diagnosis": CATALOG["diag.tie.data_sharing"].zh,
    }
    for where, text in said.items():
        line = next(
            part
            for part in text.split("\n- ")
            if ".data" in part and ("two Parameters" in part or "两个参数对象" in part)
        )
        assert ".to(torch.float64)" in line and ".half()" in line and "copy.deepcopy" in line, where
        assert "load_state_dict" not in line, where


def test_the_notebook_says_minigpt_does_not_tie_by_default_without_crediting_the_chapter_with_it():
    """Issue 48: both editions said the chapter's MiniGPT ties only when asked; the chapter never shows its default
    (it passes weight_tying=True). What the notebook says of dnnlpy's default holds; the chapter is named only for
    passing the flag."""
    from dnnlpy.models.gpt import MiniGPT

    untied = MiniGPT(vocab_size=11, block_size=4, embed_dim=8, num_layers=1, num_heads=2)
    assert untied.lm_head.weight is not untied.token_embed.weight
    for text, default, chapter in (
        (text_en.TEXT["exercise_2"], "It does not\ntie by default", "the chapter, too, passes\n`weight_tying=True`"),
        (text_zh.TEXT["exercise_2"], "默认不共享", "教材里也是显式传入\n`weight_tying=True`"),
    ):
        assert default in text and chapter in text
        assert "Like the\nchapter's" not in text and "和教材里的一样" not in text


def _loss_on_probabilities(p: torch.Tensor, y: int) -> torch.Tensor:
    """Cross-entropy applied to probabilities: softmax twice."""
    return torch.nn.functional.cross_entropy(p.unsqueeze(0), torch.tensor([y]))


def test_the_loss_on_probabilities_stays_in_the_band_section_5_proves():
    """Issue 48: §5 once bounded the two terms apart, which gives only ln V + 1/V − 1 from below. Both editions now
    argue each end (convexity for the top, moving probability to y for the bottom); both ends are reached at a
    vertex, and no point of the simplex leaves the band."""
    import math

    n, y = 7, 2
    low, high = math.log(n - 1 + math.e) - 1, math.log(n - 1 + math.e)
    corners = torch.eye(n, dtype=torch.float64)
    assert _loss_on_probabilities(corners[y], y).item() == pytest.approx(low)
    assert _loss_on_probabilities(corners[(y + 1) % n], y).item() == pytest.approx(high)
    assert math.log(n) + 1 / n - 1 < low - 0.05  # all the old argument reached: short of the band's low end
    torch.manual_seed(0)
    for p in torch.distributions.Dirichlet(torch.full((n,), 0.3, dtype=torch.float64)).sample((500,)):
        p.requires_grad_(True)
        loss = _loss_on_probabilities(p, y)
        assert low - 1e-12 <= loss.item() <= high + 1e-12, p
        second = torch.softmax(p.detach(), 0)  # §5: close to uniform, no probability above e times another
        assert (second.max() / second.min()).item() <= math.e + 1e-12, p
        (grad,), q = torch.autograd.grad(loss, p), torch.softmax(p.detach(), 0)
        for k in range(n):  # moving probability from k to y: the rate §5 gives, below 0
            if k != y:
                assert (grad[y] - grad[k]).item() == pytest.approx((q[y] - q[k] - 1).item()) and grad[y] < grad[k]
    for text, convex, moving, ratio, aside, band in (  # each edition's lines joined as a reader reads them
        (
            " ".join(text_en.TEXT["logits"].split()),
            *("convex function", "moving a little", "more than e times another"),
            *("**Why this band (optional):**", "from ln(*V* − 1 + e) − 1 to ln(*V* − 1 + e)"),
        ),
        (
            text_zh.TEXT["logits"].replace("\n", ""),
            *("凸函数", "挪一点概率给 *y*", "任意两个概率之比不超过 e"),
            *("**为什么是这个范围（选读）：**", "ln(*V* − 1 + e) − 1 到 ln(*V* − 1 + e) 之间"),
        ),
    ):
        assert convex in text and moving in text and ratio in text
        # round 13: the band stays in the main text; its proof is an aside a student may skip
        main, _, proof = text.partition(aside)
        assert band in main and ratio in main and convex in proof and moving in proof, text
        assert convex not in main and moving not in main
        assert "nearly uniform" not in text and "几乎是均匀分布" not in text  # overstated for V = 100
        assert "the second lies between 0 and 1" not in text and "后一项在 0 和 1 之间" not in text


def test_ln_v_lies_in_the_band_near_its_top_as_section_5_says():
    """Issue 48, round 15: §5 said the band lies "right next to" ln V; ln V lies inside it. Below: ln V ≤ ln(V − 1 + e)
    as e > 1; ln(V − 1 + e) − 1 ≤ ln V as V − 1 + e ≤ eV for V ≥ 1. Nearer the top from V = 3 (a tokenizer's V is
    far larger: a byte-level one has 256 single bytes); at V = 2 ln V sits below the middle."""
    import math

    def place(v: int) -> float:  # where ln V is in the band: 0 at the bottom, 1 at the top
        return math.log(v) - (math.log(v - 1 + math.e) - 1)

    assert all(0.5 < place(v) <= 1 for v in (3, 100, 300, 50000, 10**9)) and 0 < place(2) < 0.5
    assert place(100) == pytest.approx(4.605 - 3.622, abs=2e-3)  # the figures §5 prints for V = 100
    # round 22: a loss anywhere in the band is less than 1 from ln V, as ln V is strictly inside a band 1 wide
    assert all(0 < place(v) < 1 for v in (2, 3, 100, 50000, 10**9))
    for text, said, old, within in (
        (
            " ".join(text_en.TEXT["logits"].split()),
            *("and ln *V* lies inside it, near the top", "right next to", "stays less than 1 away from it"),
        ),
        (text_zh.TEXT["logits"].replace("\n", ""), "而 ln *V* 就落在这个区间里（靠近上端）", "紧挨着", "都离它不到 1"),
    ):
        assert said in text and old not in text and within in text, text
        assert "stays near it" not in text and "都和它差不多" not in text  # vaguer than the band allows


def test_the_generation_loop_needs_what_section_9_names(solution_source):
    """Issue 48, round 15: §9 said the model and torch.argmax are all the loop needs, but each step appends its
    token: the solution's loop calls the model, argmax and torch.cat, and nothing else. Round 26: the summary left
    out the crop to the last block_size tokens the same paragraph requires; the loop slices by block_size too."""
    import ast

    generate = next(n for n in ast.walk(ast.parse(solution_source)) if getattr(n, "name", "") == "generate")
    loop = next(n for n in ast.walk(generate) if isinstance(n, ast.For))
    called = {n.func.attr for n in ast.walk(loop) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert called == {"minigpt", "argmax", "cat"}, called
    crops = [n.slice for n in ast.walk(loop) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Tuple)]
    assert any("block_size" in ast.unparse(dimension) for crop in crops for dimension in crop.elts)
    for text, said in (
        (
            " ".join(text_en.TEXT["exercise_2"].split()),
            "Keeping the last `block_size` tokens, calling the model, `torch.argmax` and concatenation (`torch.cat`)",
        ),
        (
            "".join(text_zh.TEXT["exercise_2"].split()),
            "循环里只需要保留最后`block_size`个token、调用模型、`torch.argmax`和拼接（`torch.cat`）。",
        ),
    ):
        assert said in text, text


def test_the_chinese_edition_names_the_feedback_page_as_the_terminal_and_report_do():
    """Issue 48, round 15: the notebook and README said 反馈页面 where the grader's words say 反馈页."""
    text = "".join(text_zh.TEXT.values()) + text_zh.README
    assert "反馈页" in text and "反馈页面" not in text


def test_section_8_says_why_its_figures_differ_from_the_chapter():
    """Issue 48: the chapter's V = 50000 saving, divided by 1024², prints 146.4844 and calls it MB; the notebook
    names that figure as MiB and gives it in MB too."""
    saved = 50000 * 768 * 4
    assert f"{saved / 2**20:.4f}" == "146.4844" and f"{saved / 1e6:.1f}" == "153.6"
    for text in (text_en.TEXT["savings_after"], text_zh.TEXT["savings_after"]):
        assert "50000" in text and "146.4844" in text and "MiB" in text and "153.6 MB" in text


def test_section_4_says_what_the_sum_carries_not_what_a_position_knows():
    """Issue 48, round 19: "每个位置既知道自己在哪里" read as a position knowing where it is; the sum is a vector
    that carries the token's identity and its place in the sequence."""
    for text, carries, gone in (
        (text_zh.TEXT["positions"], "每个位置上的向量既带有", "知道自己"),
        (text_en.TEXT["positions"], "the vector at each position carries both", "tells every position"),
    ):
        assert carries in " ".join(text.split()) and gone not in text


def test_the_optional_proof_names_its_rate_as_one_along_a_direction():
    """Issue 48, round 19: "loss 的变化率" read as the loss's only rate of change; the proof moves probability
    from k to y, so the rate is the derivative along that direction."""
    proof = " ".join(text_zh.TEXT["logits"].split())
    assert "loss 沿这个方向的变化率（方向导数）是" in proof and "loss 的变化率" not in proof


def _sections_with_released_demos(folder: str) -> set[int]:
    nb = json.loads((COURSE_DIR / "source" / folder / "weight_tying.ipynb").read_text(encoding="utf-8"))
    section, found = 0, set()
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        heading = re.match(r"## (\d+)\. ", source)
        if cell["cell_type"] == "markdown" and heading:
            section = int(heading.group(1))
        elif cell["cell_type"] == "code" and demo_digest(source) in DIGESTS:
            found.add(section)
    return found


@pytest.mark.parametrize("folder", ["weight_tying", "weight_tying_zh"])
def test_the_demonstration_rule_names_the_sections_whose_demonstrations_are_left_out(folder):
    """Issue 48, round 20: §7 said "the earlier examples"; it names sections 1 to 5, 7, 8 and 10 (round 23: said
    where the notebook says how to work, cell 0; round 24: as a short list after the rule, one item a section)."""
    assert _sections_with_released_demos(folder) == {1, 2, 3, 4, 5, 7, 8, 10}
    for text, names in (
        (text_en.TEXT["intro"], ("sections 1 to 5", "section 7", "section 8", "section 10")),
        (text_zh.TEXT["intro"], ("第 1 至 5 节", "第 7 节", "第 8 节", "第 10 节")),
    ):
        items = [line for line in text.splitlines() if line.startswith("  - ")]
        assert [any(name in item for item in items) for name in names] == [True] * 4, items


def test_the_round_23_prose_nits_stay_fixed():
    """Issue 48, round 23: the Chinese edition's positions demo printed "ids ... -> x" in English; a comment began
    with an ellipsis (a sentence's second half, in both editions); "最后一层 LayerNorm" read as the last layer."""
    cells = {}
    for folder in ("weight_tying", "weight_tying_zh"):
        nb = json.loads((COURSE_DIR / "source" / folder / "weight_tying.ipynb").read_text(encoding="utf-8"))
        cells[folder] = ["".join(cell["source"]) for cell in nb["cells"]]
    positions = [source for source in cells["weight_tying_zh"] if "position_table(torch.arange(T))" in source]
    assert len(positions) == 1 and "ids 的形状" in positions[0] and '"-> x"' not in positions[0], positions
    comments = [
        line.split("# ", 1)[1]
        for book in cells.values()
        for source in book
        for line in source.splitlines()
        if "# " in line
    ]
    openings = [re.sub(r"^\([^)]*\)[:：]\s*", "", comment) for comment in comments]
    assert comments and not [c for c in openings if c.startswith(("…", "..."))], openings
    zh = "\n".join(cells["weight_tying_zh"])
    assert "最后一层 LayerNorm" not in zh and "末尾的 LayerNorm" in zh


@pytest.mark.parametrize("folder", ["weight_tying", "weight_tying_zh"])
def test_the_restart_and_run_all_instruction_is_given_in_full_once_then_as_a_reminder(folder):
    """Issue 48, round 24: the menu path (Kernel → Restart Kernel and Run All Cells…) was spelled out in cell 0 and
    again before the grade cells; it is in full once, in cell 0, and the later cell points back to it."""
    nb = json.loads((COURSE_DIR / "source" / folder / "weight_tying.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in nb["cells"]]
    full = [i for i, source in enumerate(sources) if "Restart Kernel and Run All Cells" in source]
    reminders = [
        i for i, source in enumerate(sources) if re.search(r"restart the kernel|重启内核并运行所有单元格，", source)
    ]
    assert full == [0] and len(reminders) == 1 and reminders[0] > 0, (full, reminders)


def test_the_round_24_section_9_and_practice_cell_words():
    """Issue 48, round 24: "截断为最后 block_size 个 token" read oddly (only the last ones are kept), and the
    practice cell's note on its first argument said "保持原样即可" where it must not change."""
    assert "先只保留最后 `block_size` 个 token" in "".join(text_zh.TEXT["exercise_2"].split("\n  "))
    assert "截断为最后" not in text_zh.TEXT["exercise_2"]
    assert text_zh.PRACTICE_CHECK.endswith("的第一个参数是检查组的内部名称，请勿修改")


def test_the_round_25_section_9_lists_the_parts_of_minigpt_with_one_joiner():
    """Issue 48, round 25: section 9 listed MiniGPT's parts with 和, then 、, then 以及; the list now runs on 、 and
    closes with one 和."""
    text = "".join(text_zh.TEXT["exercise_2"].split())
    parts = "包括tokenembedding、positionalembedding、采用pre-LayerNorm的GPTblock、末尾的LayerNorm和LMhead；"
    assert parts in text
    assert "以及LMhead" not in text


def test_the_round_25_demo_prints_that_state_a_shape_have_a_verb():
    """Issue 48, round 25: section 4 printed "ids 的形状 (1, 8)，相加后 x 的形状 (1, 8, 16)", with no verb. A zh
    print that names a shape either labels it ("……的形状：") or says "……的形状为"."""
    bare = {
        key: line
        for key, line in text_zh.PRINTED.items()
        if re.search(r"形状(?![为：])", line)  # the shape is named, neither as a label nor with 为
    }
    assert bare == {}
    assert text_zh.PRINTED["ids_to_x"].startswith("ids 的形状为 {tuple(ids.shape)}，相加后 x 的形状为")


def test_the_round_25_demo_rule_in_cell_0_is_said_actively():
    """Issue 48, round 25: cell 0 said "演示单元格（见下列各节）的结果不被其他单元格使用" (a passive, its bracket
    pointing at the list that follows) and "其中的报错既不报告也不影响成绩". Round 26: "只要不改动它们" followed the
    practice checks, so "它们" is spelled out as the demonstration cells."""
    said = {
        text_en: ("No other cell uses what the demonstration cells (listed below) compute", "neither reported nor"),
        text_zh: (
            "演示单元格的结果不会被其他单元格用到；只要不改动演示单元格，",
            "其中的报错不会被报告，也不影响成绩；",
        ),
    }
    for book, sentences in said.items():
        intro = "".join(book.TEXT["intro"].split())
        assert all("".join(sentence.split()) in intro for sentence in sentences), (book.LANGUAGE, intro)
    assert "不被其他单元格使用" not in text_zh.TEXT["intro"] and "见下列各节" not in text_zh.TEXT["intro"]
    # round 26: "只要不改动它们" could point at the practice checks named just before; the demonstrations are named
    assert "只要不改动它们" not in text_zh.TEXT["intro"] and "leave them as released" not in " ".join(
        text_en.TEXT["intro"].split()
    )
