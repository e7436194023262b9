"""Both sides (public, copied into each release): the weight_tying message catalog.

Each student-facing message has an id, its parameters and its English and Chinese templates side by side
(``Message``); ``render(id, language, **params)`` fills one in where the message is built. A misconception's
keyword is a message too: its id is ``keyword.<keyword>`` and it carries the marking scheme's id of the
misconception (``marking.toml``), so the scheme and the catalog name the same things; the Chinese rendering
keeps the English keyword in brackets so that feedback in either language stays searchable and countable.

Adding or rewording a message: put ``"its.id": ("English {param}", "中文 {param}")`` in the part where it is
built (messages_diagnosis.py, messages_checks*.py, messages_suite*.py, messages_judge.py, messages_notes.py;
the engine's own words, the run summary and refused hand-ins, are in autograder/grading/catalog.py), with the
same parameters in both (test_messages.py fails on a missing or mismatched one) and, in the Chinese, every
misconception keyword of the English kept in English in brackets. Where the language is known (diagnosis.py's
``language=``, the self-check's ``tell``), build it with ``render("its.id", language, param=...)``. The hidden
suite renders with ``say("its.id", param=...)`` (judge/words.py), in the language of the judgement in
progress: every test runs in English (the marking scheme reads it), then each failed one again in the
submission's language, which the judge request carries. A message the suite composes is composed in the
catalog too ("{what}: {problem}", messages_judge.py), so that Chinese has its own punctuation; what the
student's code raised is a parameter, kept verbatim (「」 in Chinese). Then run ``python
scripts/build_notebook.py`` to refresh the release copies. Imports the standard library and its sibling
catalog parts (messages_*.py) only.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from . import (
    messages_checks,
    messages_checks_failures,
    messages_diagnosis,
    messages_judge,
    messages_notes,
    messages_suite,
    messages_suite_values,
)

# The catalog's parts (an id is unique across them: test_messages.py).
_PARTS = (
    messages_checks,
    messages_checks_failures,
    messages_diagnosis,
    messages_notes,
    messages_suite,
    messages_suite_values,
    messages_judge,
)

__all__ = [
    "LANGUAGES",
    "Message",
    "CATALOG",
    "render",
    "parameters",
    "problems",
    "area_name",
    "keyword_gloss",
    "title",
]

LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Message:
    en: str  # str.format template; {name} is a parameter
    zh: str  # the same parameters
    misconception: str | None = None  # the marking scheme's id, for a keyword

    def template(self, language: str) -> str:
        if language not in LANGUAGES:
            raise ValueError(f"no {language!r} rendering: choose one of {', '.join(LANGUAGES)}")
        return getattr(self, language)


def parameters(template: str) -> set[str]:
    """The names a template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# ---------------------------------------------------------------------------------------- graded areas
# The marking scheme's area names (marking.toml [areas]) are the English renderings.
_AREAS = {
    "parameter identity": "参数同一性",
    "shape flow": "张量形状",
    "parameter counts": "参数计数",
    "gradient accumulation": "两条路径的梯度相加",
    "argmax generation": "贪心生成",
}

# ------------------------------------------------------------------------------ misconception keywords
# keyword (MISCONCEPTIONS.md) -> (the marking scheme's misconception id, Chinese gloss)
_KEYWORDS = {
    "copied table": ("two_tables", "复制了一份表"),
    "untied head": ("two_tables", "语言模型头没有绑定"),
    ".data sharing": ("data_sharing", "只共享了 .data"),
    "tied only after forward": ("tied_after_forward", "前向传播之后才绑定"),
    "positional embedding tied": ("positional_tied", "绑定了位置嵌入"),
    "bias on the head": ("head_bias", "语言模型头带了偏置"),
    "probabilities instead of logits": ("probabilities", "输出了概率而不是 logits"),
    "transposed": ("transposed", "转置了"),
    "logits scaled": ("logits_scaled", "logits 被缩放"),
    "max_norm": ("max_norm", "嵌入设置了 max_norm"),
    "LayerNorm eps": ("layernorm_eps", "LayerNorm 的 eps 不对"),
    "skips part of MiniGPT": ("skips_minigpt", "跳过了 MiniGPT 的一部分"),
    "not implemented yet": ("loss_not_written", "还没有实现"),
    "loss target shift wrong": ("loss_shift", "损失的目标错位不对"),
    "targets ignored": ("loss_shift", "忽略了目标"),
    "loss not mean": ("loss_not_mean", "损失不是平均值"),
    "loss doubled": ("loss_scaled", "损失翻倍"),
    "loss halved": ("loss_scaled", "损失减半"),
    "loss detached": ("loss_detached", "损失与计算图断开"),
    "hyper-parameter ignored": ("hyperparameter_ignored", "忽略了超参数"),
    "only one path": ("only_one_path", "只有一条路径的梯度"),
    "gradient doubled": ("gradient_scaled", "梯度翻倍"),
    "gradient halved": ("gradient_scaled", "梯度减半"),
    "padding_idx": ("embedding_gradient_option", "嵌入设置了 padding_idx"),
    "scale_grad_by_freq": ("embedding_gradient_option", "嵌入设置了 scale_grad_by_freq"),
    "delegated generate": ("delegated_generate", "把生成交给了库"),
    "sampling instead of argmax": ("sampling", "用了采样而不是 argmax"),
    "no crop": ("crop", "没有截取上下文"),
    "wrong crop": ("crop", "截取方式不对"),
    "wrong position": ("position_or_append", "取错了位置"),
    "missing append": ("position_or_append", "漏了接到末尾"),
    "prompt not preserved": ("prompt_not_preserved", "没有保留提示词"),
    "wrong length": ("prompt_not_preserved", "长度不对"),
    "not int64": ("ids_dtype", "不是 int64"),
    "batch rows not independent": ("batch_rows", "批内各行没有各自独立"),
    "batch of one": ("batch_rows", "批大小为 1 时出错"),
    # named in messages, charged through the keywords above
    "untied": (None, "没有绑定"),
    "delegated tie": ("delegated_tie", "绑定交给了库"),
    "loss raises": ("loss_not_written", "损失函数抛出了异常"),
    "dropout on while decoding": ("dropout_in_generate", "解码时没有关闭 dropout"),
    "did not finish": (None, "没有在时限内结束"),
}

# ------------------------------------------------------------------------------------ hidden suite titles
# test function name without "test_" -> its Chinese title (the English title is the name, spaced)
_TITLES = {
    "tied_lm_counts_one_table": "TiedEmbeddingLM 只计一张表",
    "wrapper_counts_untied_minus_vd": "包装模型的参数数目等于不绑定时减去 V×D",
    "wrapper_state_dict_matches_hyperparameters": "包装模型的 state_dict 与超参数一致",
    "wrapper_num_heads_honoured": "包装模型使用传入的 num_heads",
    "wrapper_dropout_honoured": "包装模型使用传入的 dropout",
    "generate_returns_prompt_plus_int64_tokens": "生成结果是提示词加上新生成的 int64 词元",
    "generate_greedy_within_block_size": "上下文不超过 block_size 时逐步取 argmax",
    "generate_greedy_past_block_size": "上下文超过 block_size 后仍逐步取 argmax",
    "generate_is_deterministic_argmax": "生成是确定的 argmax（不采样）",
    "generate_turns_dropout_off": "生成时关闭 dropout（切换到评估模式）",
    "tied_lm_shared_gradient_is_sum_of_paths": "TiedEmbeddingLM 共享表的梯度是两条路径的梯度之和",
    "tied_lm_sgd_step_updates_table_once": "TiedEmbeddingLM 一步 SGD 只更新这张表一次",
    "wrapper_shared_gradient_is_sum_of_paths": "包装模型共享表的梯度是两条路径的梯度之和",
    "wrapper_sgd_step_updates_table_once": "包装模型一步 SGD 只更新这张表一次",
    "tied_lm_head_is_the_embedding_parameter": "TiedEmbeddingLM 的语言模型头就是词元嵌入的参数",
    "tied_lm_tie_survives_state_dict_reload": "TiedEmbeddingLM 重新加载 state_dict 后仍然绑定",
    "tied_lm_tie_survives_to_float64": "TiedEmbeddingLM 转为 float64 后仍然绑定",
    "wrapper_head_is_the_embedding_parameter": "包装模型的语言模型头就是词元嵌入的参数",
    "wrapper_positional_embedding_not_tied": "包装模型的位置嵌入不参与绑定",
    "wrapper_tie_survives_state_dict_reload": "包装模型重新加载 state_dict 后仍然绑定",
    "wrapper_tie_survives_to_float64": "包装模型转为 float64 后仍然绑定",
    "wrapper_loss_without_targets": "不给目标时包装模型的损失（目标由输入右移一位得到）",
    "wrapper_loss_with_shorter_targets": "目标比输入短一位时包装模型的损失",
    "wrapper_loss_with_full_length_targets": "目标与输入等长时包装模型的损失",
    "tied_lm_shapes_and_values": "TiedEmbeddingLM 的输出形状与数值",
    "tied_lm_float64": "TiedEmbeddingLM 在 float64 下的输出",
    "wrapper_shapes_and_values": "包装模型的输出形状与数值",
    "wrapper_float64": "包装模型在 float64 下的输出",
}

# ---------------------------------------------------------------------- the notebook's sections, reread
# number -> (English heading, Chinese heading): diagnosis.SECTIONS and the notebooks' "## N. ..." headings
SECTION_HEADINGS = {
    2: ("An embedding is a lookup, not arithmetic on ids", "嵌入是查表，而不是拿 id 做算术"),
    4: ("Positions have their own table, and it is never tied", "位置有自己的表，而且从不参与绑定"),
    5: ("Logits, not probabilities", "输出的是 logits，不是概率"),
    6: ("Exercise 1: `TiedEmbeddingLM`", "练习 1：`TiedEmbeddingLM`"),
    7: ("Gradients from both ends add up", "两端的梯度相加"),
    8: ("What tying saves", "绑定省下了多少"),
    9: ("Exercise 2: `MiniGPTWithWeightTying`", "练习 2：`MiniGPTWithWeightTying`"),
}

CATALOG: dict[str, Message] = {
    **{f"area.{en}": Message(en, zh) for en, zh in _AREAS.items()},
    **{f"keyword.{en}": Message(en, zh, misconception) for en, (misconception, zh) in _KEYWORDS.items()},
    **{f"title.{name}": Message(name.replace("_", " "), zh) for name, zh in _TITLES.items()},
    **{f"section.{n}": Message(en, zh) for n, (en, zh) in SECTION_HEADINGS.items()},
    **{key: Message(en, zh) for part in _PARTS for key, (en, zh) in part.MESSAGES.items()},
}


def render(key: str, language: str = "en", /, **params: object) -> str:
    """The message `key` in `language`, its parameters filled in; KeyError naming the id when unknown."""
    try:
        message = CATALOG[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in the weight_tying catalog: add it to messages.py") from None
    return message.template(language).format(**params)


def area_name(area: str, language: str = "en") -> str:
    """A graded area's name (as marking.toml spells it) in `language`: in Chinese, both names."""
    if language == "en" or f"area.{area}" not in CATALOG:
        return area
    return render(f"area.{area}", language)


def keyword_gloss(keyword: str, language: str = "en") -> str:
    """A misconception's keyword in `language`: in Chinese, the gloss with the keyword in brackets."""
    if language == "en" or f"keyword.{keyword}" not in CATALOG:
        return keyword
    return f"{render(f'keyword.{keyword}', language)}（{keyword}）"


def title(readable: str, language: str = "en") -> str | None:
    """A hidden-suite test's title (its readable name, a parameter in brackets kept) in `language`; None when
    the catalog has no title for it."""
    base, bracket, rest = readable.partition(" [")
    key = f"title.{base.replace(' ', '_')}"
    if key not in CATALOG:
        return None
    return render(key, language) + (f" [{rest}" if bracket else "")


def problems() -> list[str]:
    """Why the catalog is incomplete: an id without a rendering in some language, or with parameters that
    differ between languages. Empty when every message can be rendered in every language."""
    out = []
    for key, message in CATALOG.items():
        wanted = parameters(message.en)
        for language in LANGUAGES:
            template = message.template(language)
            if not template.strip():
                out.append(f"{key}: no {language} template")
            elif parameters(template) != wanted:
                out.append(f"{key}: {language} fills {sorted(parameters(template))}, English {sorted(wanted)}")
    return out
