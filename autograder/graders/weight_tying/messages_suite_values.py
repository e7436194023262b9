"""Trusted (the judge's words, never in a release): message catalog part, English and Chinese side by side.
Holds the hidden suite's messages on counts, gradients, generation and values (the second half of
messages_suite.py), and the judge's generic ones (``suite_api``: missing records, shapes, dtypes). Part of the
message catalog (messages.py assembles it): id -> (English, Chinese), or (English, Chinese, misconception) for a
message that names one of the marking scheme's misconceptions: a finding reads that id, never the wording, so either
language can be reworded without moving a mark. The suite builds each as a value (judge/words.py ``say``); the pages
render it in the reader's language. Imports nothing."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    # generation in train mode, the tie and the loss (issue 19: named causes)
    "suite.generate_train_mode_what": (
        "{what}, dropout={p}, the model in train mode",
        "模型处于训练模式（dropout={p}），{what}",
    ),
    "suite.dropout_on_while_decoding": (
        "{what}: the new tokens {got} are those of the model with its dropout still on: dropout on while "
        "decoding (in train mode dropout zeroes random activations, so the greedy choice no longer reflects the"
        " model's own prediction; a decoder switches the model to evaluation mode first)",
        "{what}：新生成的 token {got} 是 dropout 仍然开着时模型给出的，说明生成时没有关闭 dropout。训练模式下 dropout "
        "会随机把激活置零，贪心选出的 token 反映的就不再是模型本身的预测；generate 应当先把模型切换到评估模式",
        "dropout_in_generate",
    ),
    "suite.dropout_not_checked_eval_wrong": (
        "{what}: the tokens are those of eval mode, but that is not credited: eval mode does not give the greedy "
        "tokens (see “{test}”)",
        "{what}：生成的 token 与评估模式下的相同，但这一项不给分，因为评估模式下得到的也不是贪心生成的结果"
        "（见“{test}”）",
    ),
    "suite.generate_depends_on_mode": (
        (
            "{what}: new tokens {got}, expected the greedy tokens {want}, which the same call gives in eval mode: "
            "generate depends on the mode the model is in"
        ),
        (
            "{what}：新生成的 token 是 {got}，应当是贪心生成的 {want}（同样的调用在评估模式下就给出它们），"
            "说明生成的结果取决于模型所处的模式"
        ),
    ),
    "suite.delegated_tie": (
        (
            "TiedEmbeddingLM: its token table is the table of a dnnlpy MiniGPT built with weight_tying=True inside "
            "__init__: delegated tie (the library tied that pair, not your code); exercise 1 builds its own "
            "embedding and head and ties them itself"
        ),
        (
            "TiedEmbeddingLM 的 token embedding 表来自构造时创建的一个 dnnlpy MiniGPT（weight_tying=True）："
            "weight tying 交给了库。这一对 token embedding 和 LM head 是库让它们共享的，不是你的代码；"
            "练习 1 要自己创建 token embedding 和 LM head，再亲手让它们共享同一张表"
        ),
        "delegated_tie",
    ),
    "suite.loss.wrong_value": (
        "{call} = {got}, expected the mean next-token cross-entropy {want} of the model's logits",
        "{call} 是 {got}，应为预测下一个 token 的平均交叉熵 {want}（按模型自己的 logits 计算）",
    ),
    "suite.loss.not_scalar": (
        "{call} returned shape {got}, expected a 0-dim scalar (the mean over positions)",
        "{call} 返回的形状是 {got}，应为 0 维标量（所有位置的平均值）",
    ),
    "suite.gen.ids_out_of_range": (
        "token ids outside [0, V)",
        "token id 超出了 [0, V)",
    ),
    "suite.gen.matches_decoder": (
        "it matches a decoder with this mistake: {labels}",
        "这正是{labels}的结果",
    ),
    # the same, with what the mistake misses said apart from its name (``Decoder.gloss``)
    "suite.gen.matches_decoder.gloss": (
        "it matches a decoder with this mistake: {labels} ({gloss})",
        "这正是{labels}的结果：{gloss}",
    ),
    "suite.gen.crop_first": (
        "wrong crop (first block_size tokens)",
        "截断方式不对（保留了前 block_size 个 token）",
        "crop",
    ),
    "suite.gen.crop_short": (
        "wrong crop (block_size - 1 tokens)",
        "截断方式不对（只保留了 block_size - 1 个 token）",
        "crop",
    ),
    "suite.gen.first_position": (
        "wrong position (logits of the first position)",
        "取错了位置（用了第一个位置的 logits）",
        "position_or_append",
    ),
    "suite.gen.second_to_last_position": (
        "wrong position (logits of the second-to-last position)",
        "取错了位置（用了倒数第二个位置的 logits）",
        "position_or_append",
    ),
    # what follows the exception generate raised: its card's title names the mistake ("no crop or wrong crop"), so
    # this says what to do, not the title again
    "suite.gen.no_crop": (
        (
            "\n-> the model reads at most block_size tokens, so each step feeds it only the last block_size tokens "
            "of the context"
        ),
        "\n模型一次最多读 block_size 个 token，所以每一步都应当只把上下文中最后 block_size 个 token 送进模型",
        "crop",
    ),
    "suite.case.after_reload": (
        " after load_state_dict into a fresh model",
        "（把 state_dict 加载进一个新模型之后）",
    ),
    "suite.case.after_float64": (
        " after .to(torch.float64)",
        "（.to(torch.float64) 之后）",
    ),
    "suite.identity_check": (
        " (identity check)",
        "（是否为同一个参数对象）",
    ),
    "suite.parameter_count": (
        " (parameter count)",
        "（统计参数量时）",
    ),
    "suite.backward": (
        " (backward)",
        "（反向传播时）",
    ),
    "suite.sgd_step": (
        " (SGD step)",
        "（做一步 SGD 时）",
    ),
    "suite.state_dict_save_load": (
        " (state_dict save/load)",
        "（把 state_dict 加载进一个新模型之后）",
    ),
    "suite.to_torch_float64": (
        " (.to(torch.float64))",
        "（.to(torch.float64) 之后）",
    ),
    "suite.three_target_forms": (
        " (three target forms)",
        "（三种目标形式）",
    ),
    "suite.minigptwithweighttying_num_heads": (
        "MiniGPTWithWeightTying (num_heads)",
        "MiniGPTWithWeightTying（num_heads）",
    ),
    "suite.minigptwithweighttying_dropout": (
        "MiniGPTWithWeightTying (dropout)",
        "MiniGPTWithWeightTying（dropout）",
    ),
    "suite.case.more": (
        " (and {n} more input(s))",
        "。另有 {n} 组输入同样没有通过。",
    ),
    "suite.case.generate_call": (
        "generate(input_ids of shape {shape}, max_new_tokens={n}) with block_size={block}",
        "input_ids 形状为 {shape}、block_size={block} 时，generate(input_ids, max_new_tokens={n})",
    ),
    # the same call where it stands alone, a label's value ("检查时的调用：…", rendering.standalone): the call first,
    # its inputs after it, not a "…时，" clause that a sentence's verb would finish
    "suite.case.generate_call.label": (
        "generate(input_ids, max_new_tokens={n}), where input_ids has shape {shape} and block_size={block}",
        "generate(input_ids, max_new_tokens={n})，其中 input_ids 形状为 {shape}，block_size={block}",
    ),
    # the train-mode call, likewise (test_generation.train_mode_what carries the call's inputs for it)
    "suite.generate_train_mode_what.label": (
        "generate(input_ids, max_new_tokens={n}), where the model is in train mode (dropout={p}), input_ids has "
        "shape {shape} and block_size={block}",
        "generate(input_ids, max_new_tokens={n})，其中模型处于训练模式（dropout={p}），input_ids 形状为 {shape}，"
        "block_size={block}",
    ),
    # the loss's three calls, named in words (after the sentences that quote them)
    "suite.call.loss_short": ("loss(ids, targets of shape (B, T-1))", "targets 形状为 (B, T-1) 时，loss(ids, targets)"),
    "suite.call.loss_full": ("loss(ids, targets of shape (B, T))", "targets 形状为 (B, T) 时，loss(ids, targets)"),
    "suite.call.loss_none": ("loss(ids)", "不给 targets 时，loss(ids)"),
    "suite.call.loss_short.label": (
        "loss(ids, targets), where targets has shape (B, T-1)",
        "loss(ids, targets)，其中 targets 形状为 (B, T-1)",
    ),
    "suite.call.loss_full.label": (
        "loss(ids, targets), where targets has shape (B, T)",
        "loss(ids, targets)，其中 targets 形状为 (B, T)",
    ),
    "suite.call.loss_none.label": ("loss(ids), without targets", "loss(ids)，不给 targets"),
}
