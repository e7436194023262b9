"""Both sides (public, copied into each release): what the weight-tying self-check says of itself, English and
Chinese side by side.

Part of the message catalog (messages.py assembles it): id -> (English template, Chinese template), for what the
self-check's framework (``coursecheck``, whose own words are ``coursecheck/messages.py``) asks of an assignment:
its practice cells' groups (``check.group.<group>``), the run's header, what the summary says the checks cover
and what only the hidden suite checks (``check.covers.<line>``: the checks package's ``COVERS``), and each
check's title (``check.title.<test name>``, the English being the ``@check`` title). The self-check knows the
student's language, so it renders these where it builds them. Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    # the practice cells' groups (practice("exercise 1", ...)), as a student reads them
    "check.group.exercise 1": ("exercise 1", "练习 1"),
    "check.group.exercise 2": ("exercise 2", "练习 2"),
    "check.group.gradients": ("gradients", "梯度"),
    "check.group.loss": ("loss", "loss 方法"),
    "check.group.generate": ("generate", "generate 方法"),
    # the run's header and the summary's words on what is checked here and what only the hidden suite checks
    "check.header": (
        "weight-tying self-check of {path}  (another file: {var}=path pytest)",
        "Weight Tying 作业自检：{path}（要检查其他文件，请运行 {var}=<文件路径> pytest）",
    ),
    "check.covers.here": (
        "Then, on small models built from your classes:",
        "然后用你的类构建几个小模型，检查：",
    ),
    "check.covers.sizes": ("other sizes, seeds and default arguments", "其他尺寸、随机种子和默认参数"),
    "check.covers.tie": (
        "the tie surviving .to(torch.float64), load_state_dict and an optimizer step",
        "经过 .to(torch.float64)、load_state_dict 和一步优化器更新之后，两端是否仍然共享同一张表",
    ),
    "check.covers.gradient": (
        "the wrapper's shared gradient and its SGD step",
        "MiniGPTWithWeightTying 共享表的梯度，以及一步 SGD 更新",
    ),
    "check.covers.generation": (
        "generation on other models and prompts, and other corner cases",
        "在其他模型和前缀上的生成，以及其他边界情况",
    ),
    # each check's title (what a pass means)
    "check.title.test_tied_table_has_shape_v_by_d": (
        "token_embed.weight is a (V, D) table",
        "token embedding 的权重是一张 (V, D) 的表",
    ),
    "check.title.test_tied_head_is_the_embedding_parameter": (
        "lm_head.weight is token_embed.weight, from construction on",
        "模型构建完成时，LM head 的权重就是 token embedding 的参数对象本身",
    ),
    "check.title.test_tied_holds_one_table_and_no_bias": (
        "the model holds V * D parameters: one table, no bias",
        "模型恰好有 V * D 个参数：一张表，没有偏置",
    ),
    "check.title.test_tied_forward_returns_logits": (
        "forward returns the logits E[ids] @ E.T, shape (B, T, V)",
        "forward 返回 logits E[ids] @ E.T，形状为 (B, T, V)",
    ),
    "check.title.test_tied_gradients_from_both_ends_add_up": (
        "the shared .grad is the lookup path's gradient plus the head path's",
        "共享表的 .grad 等于查表路径的梯度加上 LM head 路径的梯度",
    ),
    "check.title.test_wrapper_holds_a_dnnlpy_minigpt": (
        "self.minigpt is a dnnlpy MiniGPT",
        "self.minigpt 是 dnnlpy 的 MiniGPT",
    ),
    "check.title.test_wrapper_minigpt_is_tied": (
        "its head is its token table; the positional table stays separate",
        "self.minigpt 的 LM head 与 token embedding 共享同一张表；位置表保持独立",
    ),
    "check.title.test_wrapper_passes_every_hyperparameter": (
        "every hyper-parameter reaches the MiniGPT (sizes, num_heads, dropout)",
        "每个超参数都传给了 MiniGPT（各个尺寸、num_heads、dropout）",
    ),
    "check.title.test_wrapper_forward_returns_minigpt_logits": (
        "forward returns the MiniGPT's logits (B, T, V)",
        "forward 返回 MiniGPT 的 logits (B, T, V)",
    ),
    "check.title.test_wrapper_loss_without_targets": (
        "loss(ids): next-token cross-entropy of ids[:, 1:] given ids[:, :-1]",
        "不给 targets 时的 loss：由 ids[:, :-1] 预测 ids[:, 1:] 的平均交叉熵",
    ),
    "check.title.test_wrapper_loss_with_shorter_targets": (
        "loss(ids, targets) with targets of shape (B, T-1), the chapter's form",
        "targets 形状为 (B, T-1) 时的 loss（教材的写法）",
    ),
    "check.title.test_wrapper_loss_with_full_length_targets": (
        "loss(ids, targets) with targets of shape (B, T), nanoGPT's form",
        "targets 形状为 (B, T) 时的 loss（nanoGPT 的写法）",
    ),
    "check.title.test_generate_writes_its_own_loop": (
        "generate runs its own loop (no MiniGPT.generate, no dnnlpy sampling helper)",
        "generate 用的是你自己写的循环（不调用库里的 MiniGPT.generate 或采样辅助函数）",
    ),
    "check.title.test_generate_is_greedy_and_keeps_the_prompt": (
        "generate keeps the prompt and appends the argmax of the last position, step by step",
        "generate 保留前缀，每一步把最后一个位置的 argmax 接到末尾",
    ),
    "check.title.test_generate_turns_dropout_off": (
        "generate switches dropout off while it decodes, whatever mode the model is in",
        "无论模型处于哪种模式，generate 生成时都关闭 dropout",
    ),
    "check.title.test_generate_crops_past_block_size": (
        "past block_size, each step sees only the last block_size tokens",
        "超过 block_size 之后，每一步只看最后 block_size 个 token",
    ),
}
