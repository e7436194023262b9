"""Trusted: the hidden suite's test titles in Chinese, for the Chinese feedback pages.

A feedback page names each test by its readable title (``outputs.wording.readable_test``: the function name
without ``test_``, underscores as spaces). The grader's Chinese rendering (``translate``, the spec's
``translations["zh"]``) looks a whole title up here first, and leaves every other text to the message
rules of ``translate_zh``. A suite test without a title here fails ``test_titles_zh``.
"""

from __future__ import annotations

from autograder.graders.weight_tying import translate_zh

__all__ = ["TITLES", "translate"]

# test function name (without "test_") -> its title on a Chinese page
TITLES = {
    "tied_lm_counts_one_table": "TiedEmbeddingLM 只计一张表",
    "wrapper_counts_untied_minus_vd": "包装模型的参数数目等于不绑定时减去 V×D",
    "wrapper_state_dict_matches_hyperparameters": "包装模型的 state_dict 与超参数一致",
    "wrapper_num_heads_honoured": "包装模型使用传入的 num_heads",
    "wrapper_dropout_honoured": "包装模型使用传入的 dropout",
    "generate_returns_prompt_plus_int64_tokens": "generate 返回提示词加上新生成的 int64 词元",
    "generate_greedy_within_block_size": "上下文不超过 block_size 时 generate 逐步取 argmax",
    "generate_greedy_past_block_size": "上下文超过 block_size 后 generate 仍逐步取 argmax",
    "generate_is_deterministic_argmax": "generate 是确定的 argmax（不采样）",
    "generate_turns_dropout_off": "generate 解码时关闭 dropout（切换到 eval 模式）",
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
_BY_READABLE = {name.replace("_", " "): title for name, title in TITLES.items()}


def translate(text: str) -> str:
    """`text` in Chinese: a test's readable title (a parameter in brackets kept), else the message rules."""
    base, bracket, rest = text.partition(" [")
    if base in _BY_READABLE:
        return _BY_READABLE[base] + (f" [{rest}" if bracket else "")
    return translate_zh.translate(text)  # looked up at each call: the message rules stay one function
