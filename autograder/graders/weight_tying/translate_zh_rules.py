"""Trusted and public: how translate_zh's rules are written, the text kept verbatim, and the keywords.

A rule is ``rule(english, chinese)``. In `english`, ``{name}`` matches a value on the same line (as little as
possible before the literal text that follows it; at the very end, a number or a name) and ``{name*}`` the
rest of the line; every other character is literal. In `chinese`, ``{name}``
puts the value back and ``⟦...⟧`` marks text later rules must not touch (a keyword, a code word). Rules are
applied in order, so a sentence rule comes before the rules for the phrases it contains.
"""

from __future__ import annotations

import re

__all__ = ["rule", "VERBATIM", "KEYWORDS", "KEYWORD_RULES", "PUNCTUATION_RULES", "AREAS"]

# Text that is not ours (what the student's code or torch raised): group 1 is kept as it is, between 「」.
VERBATIM = [
    r"“([^”\n]*)”",  # the self-check quotes it
    r"your code raised ([^\n]+)",  # the hidden suite appends it
    r"cell/part \d+ raised ([^\n]+)",  # the run summary lists the cells that raised
]

# The graded areas, as the grader tags them; the Chinese text shows both names.
AREAS = {
    "parameter identity": "参数同一性",
    "shape flow": "形状流",
    "parameter counts": "参数计数",
    "gradient accumulation": "梯度累积",
    "argmax generation": "argmax 生成",
}


def rule(english: str, chinese: str) -> tuple[str, str]:
    """(regex, re.sub template) from a readable English pattern and its Chinese rendering."""
    parts = [p for p in re.split(r"(\{\w+\*?\})", english) if p]
    pattern = ""
    for index, part in enumerate(parts):
        match = re.fullmatch(r"\{(\w+)(\*?)\}", part)
        if not match:
            pattern += re.escape(part)
        elif match.group(2):  # the rest of the line
            pattern += f"(?P<{match.group(1)}>[^\\n]*)"
        elif index == len(parts) - 1:  # a value that ends the pattern: a number, a name, a dtype
            pattern += f"(?P<{match.group(1)}>[\\w.+\\-]+)"
        else:  # a value up to the literal text that follows it
            pattern += f"(?P<{match.group(1)}>[^\\n]*?)"
    template = re.sub(r"\{(\w+)\}", r"\\g<\1>", chinese.replace("\\", "\\\\"))
    return pattern, template


# The misconception keywords (MISCONCEPTIONS.md) wherever a sentence rule has not already placed them: the
# Chinese gloss, then the keyword itself, kept in English so feedback stays searchable and countable.
KEYWORDS = {  # keyword -> its Chinese gloss
    "probabilities instead of logits": "输出了概率而不是 logits",
    "sampling instead of argmax": "用了采样而不是 argmax",
    "hyper-parameter ignored": "忽略了超参数",
    "positional embedding tied": "绑定了位置 embedding",
    "tied only after forward": "直到 forward 之后才共享",
    "batch rows not independent": "批内各行没有各自独立",
    "loss target shift wrong": "loss 的目标错位不对",
    "prompt not preserved": "没有保留 prompt",
    "bias on the head": "head 上带了 bias",
    "gradient doubled": "梯度翻倍",
    "gradient halved": "梯度减半",
    "only one path": "只有一条路径的梯度",
    "missing append": "漏了接到末尾",
    "wrong position": "取错了位置",
    "wrong crop": "截取方式不对",
    "no crop": "没有截取上下文",
    "copied table": "复制了一份表",
    ".data sharing": "只共享了 .data",
    "untied head": "head 没有共享",
    "logits scaled": "logits 被缩放",
    "loss not mean": "loss 不是平均值",
    "not implemented yet": "还没有实现",
    "loss doubled": "loss 翻倍",
    "loss halved": "loss 减半",
    "targets ignored": "忽略了 targets",
    "transposed": "转置了",
    "wrong length": "长度不对",
    "not int64": "不是 int64",
    "untied": "没有共享",
    "delegated generate": "把生成交给了库",
    "skips part of MiniGPT": "跳过了 MiniGPT 的一部分",
    "batch of one": "批大小为 1 时出错",
    "LayerNorm eps": "LayerNorm 的 eps 不对",
    "loss detached": "loss 与计算图断开",
    "did not finish": "没有在时限内结束",
}
KEYWORD_RULES = [
    (r"(?<![\w/])" + re.escape(english) + r"(?!\w)", rule("", f"{chinese}（⟦{english}⟧）")[1])
    for english, chinese in KEYWORDS.items()
]

# Last: English punctuation between Chinese sentences becomes full-width.
PUNCTUATION_RULES = [
    (r"\s*: ", "："),  # code and quoted text are out of reach here: they are still placeholders
    (r"(?<=[\u4e00-\u9fff）])\.(?=\s|$)", "。"),
]
