"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds the self-check's failure sentences (weight_tying_checks/tied.py, wrapper.py, generation.py). Part of the
message catalog (messages.py assembles it): id -> (English, Chinese). The checks raise them in English; say()
renders them. The English is matched where the Chinese is wanted ({name} a value, {name*} the rest of the line;
see translate_zh.py), and ⟦...⟧ in the Chinese marks text kept as it is. Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    "checkfail.dropout_on_while_decoding": (
        (
            "on a model with dropout=1.0 in train mode, generate returned new tokens {got} where the greedy ones are "
            "{want}: dropout on while decoding (in train mode dropout zeroes random activations, so the argmax is no "
            "longer the model's choice; a decoder switches the model to evaluation mode while it decodes)"
        ),
        (
            "模型的 dropout=1.0 且处于训练模式时，生成得到的新词元是 {got}，而贪心解码应得 {want}：解码时没有关闭 "
            "dropout（⟦dropout on while decoding⟧；训练模式下 dropout 会随机把激活置零，argmax 就不再是模型本身的选择；"
            "解码器在解码时应把模型切换到评估模式）"
        ),
    ),
    "checkfail.delegated_tie": (
        (
            "token_embed.weight is the table of a dnnlpy MiniGPT built with weight_tying=True inside __init__: "
            "delegated tie (the library tied that pair, not your code); this exercise builds its own embedding and "
            "head and ties them itself"
        ),
        (
            "词元嵌入的表是构造时创建的一个 dnnlpy MiniGPT（weight_tying=True）的表：绑定交给了库（⟦delegated tie⟧；"
            "这对嵌入和语言模型头是库绑定的，不是你的代码）；这道练习要自己创建词元嵌入和语言模型头，并亲手把它们绑定"
        ),
    ),
    "checkfail.loss_raises": (
        (
            "\nloss raises: loss() stops with an error instead of returning the mean next-token cross-entropy, so "
            "the model has no training objective"
        ),
        "\n损失函数抛出了异常（⟦loss raises⟧）：它没有返回下一个词元交叉熵的平均值，模型因此没有训练目标",
    ),
    "checkfail.is_not_implemented_yet_replace_raise": (
        "{what} is not implemented yet: replace `raise NotImplementedError()` in its cell",
        ("{what} 还没有实现（⟦not implemented yet⟧）：把它所在单元格里的 `raise NotImplementedError()` 换成你的代码"),
    ),
    "checkfail.has_no_attribute_the_contract_requires": (
        "{owner} has no attribute {name}: the contract requires self.{attr*}",
        "{owner} 没有属性 {name}：题目要求有 self.{attr}",
    ),
    "checkfail.no_submission_at_set": (
        "no submission at ${var}={path}: set {hint*}",
        "在 ${var}={path} 找不到提交：请设置 {hint}",
    ),
    "checkfail.no_submission_at_the_default_set": (
        "no submission at the default {path}: set {hint*}",
        "在默认位置 {path} 找不到提交：请设置 {hint}",
    ),
    "checkfail.is_neither_a_ipynb_nor_a": (
        "{path} is neither a .ipynb nor a .py file: point {var} at your notebook",
        "{path} 既不是 .ipynb 也不是 .py 文件：请让 {var} 指向你的 notebook",
    ),
    "checkfail.is_not_a_notebook_invalid_json": (
        "{path} is not a notebook (invalid JSON: {why}); for a .py file use exec_source()",
        "{path} 不是 notebook（JSON 无效：「{why}」）；请检查文件是否完整保存",
    ),
    "checkfail.is_not_a_language_of_this": (
        "{var}={value} is not a language of this assignment: use one of {langs*}",
        "{var}={value} 不是本作业支持的语言：请从 {langs} 中选一个",
    ),
    "checkfail.token_embed_weight_is_a_expected": (
        "{owner}.token_embed.weight is a {kind}, expected an nn.Parameter",
        "{owner}.token_embed.weight 是 {kind}，应为 nn.Parameter",
    ),
    "checkfail.lm_head_weight_is_a_the": (
        "{owner}.lm_head.weight is a {kind}: the head must hold the one shared nn.Parameter",
        "{owner}.lm_head.weight 是 {kind}：语言模型头应当持有那一个共享的 nn.Parameter",
    ),
    "checkfail.token_embed_weight_has_shape_expected": (
        "token_embed.weight has shape {got}, expected (V, D) = {want*}",
        "token_embed.weight 的形状是 {got}，应为 (V, D) = {want}",
    ),
    "checkfail.lm_head_has_a_bias_of": (
        (
            "lm_head has a bias of shape {shape}: bias on the head (the tied head is the table alone,"
            " so logits = E[ids] @ E.T with nothing added)"
        ),
        (
            "lm_head 带有形状为 {shape} 的 bias：语言模型头上带了 bias（⟦bias on the head⟧；绑定的语"
            "言模型头只有这张表，logits = ⟦E[ids] @ E.T⟧，不再加任何东西）"
        ),
    ),
    "checkfail.holds_parameters_expected_v_d_a": (
        (
            "{model} holds {n} parameters {names}, expected V * D = {want}: a second (V, D) table: copied"
            " table or untied head"
        ),
        (
            "{model} 有 {n} 个参数 {names}，应为 V * D = {want}：多了第二张 (V, D) 的表：复制了一份表"
            "或语言模型头没有绑定（⟦copied table⟧ / ⟦untied head⟧）"
        ),
    ),
    "checkfail.holds_parameters_expected_v_d_extra": (
        "{model} holds {n} parameters {names}, expected V * D = {want}: extra parameters",
        "{model} 有 {n} 个参数 {names}，应为 V * D = {want}：多了额外的参数",
    ),
    "checkfail.the_logits_grow_like_the_table": (
        (
            "the logits grow like the table, not like its square, when token_embed.weight is scaled: the"
            " head scores with another table (copied table, or a head whose .weight is not what it multiplies"
            " by)"
        ),
        (
            "把 token_embed.weight 放大时，logits 与表成正比增长，而不是随它的平方增长：语言模型头是"
            "用另一张表打分的（⟦copied table⟧，或者语言模型头的 .weight 并不是它真正拿来相乘的那个）"
        ),
    ),
    "checkfail.self_minigpt_is_a_it_must": (
        "self.minigpt is a {kind}: it must be a dnnlpy.models.gpt.MiniGPT",
        "self.minigpt 是 {kind}：它必须是 dnnlpy.models.gpt.MiniGPT",
    ),
    "checkfail.minigpt_pos_embed_weight_is_the": (
        (
            "minigpt.pos_embed.weight is the token table, of shape {shape}, where a (block_size, D) ="
            " {want} table of positions belongs: positional embedding tied to the token table (only the"
            " head shares the token table)"
        ),
        (
            "minigpt.pos_embed.weight 就是 token 表，形状为 {shape}，而这里应当是一张 (block_size, D)"
            " = {want} 的位置表：位置嵌入 绑到了 token 表上（⟦positional embedding tied⟧；只有语言模"
            "型头与 token 表共享）"
        ),
    ),
    "checkfail.the_minigpt_is_untied_or_wrongly": (
        "the MiniGPT is untied or wrongly tied: ",
        "这个 MiniGPT 没有绑定或者共享方式不对：",
    ),
    "checkfail.changing_token_embed_weight_also_changed": (
        "changing token_embed.weight also changed pos_embed.weight: positional embedding tied",
        ("修改 token_embed.weight 时 pos_embed.weight 也变了：绑定了位置嵌入（⟦positional embedding tied⟧）"),
    ),
    "checkfail.self_minigpt_was_built_with_not": (
        ("self.minigpt was built with {name}={got}, not the {name2}={want} given: hyper-parameter ignored ({name3})"),
        (
            "self.minigpt 是用 {name}={got} 构建的，而不是传入的 {name2}={want}：忽略了超参数（⟦hyper-paramete"
            "r ignored ({name3})⟧）"
        ),
    ),
    "checkfail.self_minigpt_s_weights_have_other": (
        "self.minigpt's weights have other shapes than a MiniGPT({args}): pass every size on",
        "self.minigpt 的权重形状与 MiniGPT({args}) 不同：请把每个尺寸参数都传下去",
    ),
    "checkfail.self_minigpt_computes_with_num_heads": (
        (
            "self.minigpt computes with num_heads={got}, not the num_heads={want} given: hyper-parameter"
            " ignored (num_heads)"
        ),
        (
            "self.minigpt 实际用的是 num_heads={got}，而不是传入的 num_heads={want}：忽略了超参数（⟦hyper-para"
            "meter ignored (num_heads)⟧）"
        ),
    ),
    "checkfail.self_minigpt_s_logits_are_not": (
        "self.minigpt's logits are not those of a MiniGPT with these weights and hyper-parameters",
        "self.minigpt 的 logits 与持有这些权重、使用这些超参数的 MiniGPT 不一致",
    ),
    "checkfail.with_dropout_0_5_two_forward": (
        ("with dropout=0.5, two forward passes in train mode gave the same logits: hyper-parameter ignored (dropout)"),
        (
            "dropout=0.5 时，train 模式下两次前向计算得到的 logits 完全相同：忽略了超参数（⟦hyper-parameter"
            " ignored (dropout)⟧）"
        ),
    ),
    "checkfail.targets_of_shape_b_t_1": (
        "targets of shape (B, T-1) (the chapter's form) are the next tokens of input_ids[:, :-1]",
        "形状为 (B, T-1) 的目标（教材的写法）是 input_ids[:, :-1] 各位置的下一个 token",
    ),
    "checkfail.targets_of_shape_b_t_nanogpt": (
        ("targets of shape (B, T) (nanoGPT's form) are already shifted: they go with the logits of all of input_ids"),
        "形状为 (B, T) 的目标（nanoGPT 的写法）已经错开了一位：它们对应全部 input_ids 的 logits",
    ),
    "checkfail.loss_target_shift_wrong": (
        ": loss target shift wrong?",
        "：loss 的目标错位不对（⟦loss target shift wrong⟧）？",
    ),
    "checkfail.returned_expected_a_scalar_tensor_the": (
        "{what} returned {got}, expected a scalar tensor: the mean cross-entropy over positions",
        "{what} 返回的是 {got}，应为标量张量：各位置交叉熵的平均值",
    ),
    "checkfail.loss_doubled_so_the_shared_table": (
        (
            ": loss doubled, so the shared table's gradient is doubled too (gradient doubled): autograd"
            " already adds both paths"
        ),
        (
            "：loss 翻倍（⟦loss doubled⟧），共享表的梯度也随之翻倍（⟦gradient doubled⟧）：autograd 已"
            "经把两条路径加起来了"
        ),
    ),
    "checkfail.loss_halved_so_the_shared_table": (
        (
            ": loss halved, so the shared table's gradient is halved too (gradient halved): autograd already"
            " adds both paths"
        ),
        ("：loss 减半（⟦loss halved⟧），共享表的梯度也随之减半（⟦gradient halved⟧）：autograd 已经把两条路径加起来了"),
    ),
    "checkfail.x_the_mean_cross_entropy": (
        "{call} = {got}, {k} x the mean cross-entropy {want}",
        "{call} = {got}，是平均交叉熵 {want} 的 {k} 倍",
    ),
    "checkfail.generate_called_delegated_generate_the_library": (
        (
            "generate called {names}: delegated generate (the library decodes, not your code). Write the"
            " loop yourself: the forward pass self.minigpt(...) and torch.argmax are all it needs"
        ),
        (
            "生成方法调用了 {names}：把生成交给了库（⟦delegated generate⟧；是库在解码，而不是你的代"
            "码）。请自己写这个循环：只需要前向计算 ⟦self.minigpt(...)⟧ 和 torch.argmax"
        ),
    ),
    "checkfail.generate_works_for_one_row_but": (
        (
            "\ngenerate works for one row but not for a batch of {n}: batch rows not independent (a .item()"
            " or row 0 used for the whole batch?)"
        ),
        (
            "\ngenerate 对一行输入能运行，对 {n} 行的批却不行：批内各行没有各自独立（⟦batch rows not independe"
            "nt⟧；是不是用了 .item()，或者拿第 0 行代替了整个批？）"
        ),
    ),
    "checkfail.the_tokens_are_those_of_a": (
        "\nThe tokens are those of a decoder with this mistake: ",
        "\n这些 token 与犯了下面这种错误的解码器结果一致：",
    ),
    "checkfail.missing_append_every_step_sees_the": (
        "missing append (every step sees the prompt only)",
        "漏了接到末尾（⟦missing append⟧；每一步看到的都只是 prompt）",
    ),
    "checkfail.no_crop_past_block_size_the": (
        (
            "\nno crop: past block_size the position table has no row for the new positions; feed the"
            " model only the last block_size tokens at each step"
        ),
        (
            "\n没有截取上下文（⟦no crop⟧）：超过 block_size 之后，位置表里没有新位置对应的行；每一步"
            "只把最后 block_size 个 token 送进模型"
        ),
    ),
    "checkfail.generate_works_for_one_row": (
        "generate works for one row",
        "生成方法对一行输入能运行",
    ),
    "checkfail.generate_works_for_a_batch_of": (
        (
            "\ngenerate works for a batch of 3 but not for a batch of one: batch of one (a squeeze() that"
            " also drops the batch dimension when B = 1?)"
        ),
        (
            "\ngenerate 对 3 行的批能运行，批大小为 1 时却不行（⟦batch of one⟧；是不是 squeeze() 在 B"
            " = 1 时把批这一维也去掉了？）"
        ),
    ),
    "checkfail.token_embed_was_built_with_its": (
        (
            "token_embed was built with {name}={value}: its row gets no gradient from the lookup ({kw});"
            " a plain nn.Embedding(V, D) is the table"
        ),
        (
            "token_embed 构建时用了 {name}={value}：这一行得不到查表路径的梯度（⟦{kw}⟧）；这张表应当"
            "就是普通的 nn.Embedding(V, D)"
        ),
    ),
    "checkfail.token_embed_was_built_with_each": (
        (
            "token_embed was built with {name}={value}: each lookup renormalises, and rewrites, the rows"
            " it reads ({kw}); a plain nn.Embedding(V, D) is the table"
        ),
        (
            "token_embed 构建时用了 {name}={value}：每次查表都会把读到的行重新归一化，并写回表里（⟦{kw}"
            "⟧）；这张表应当就是普通的 nn.Embedding(V, D)"
        ),
    ),
    "checkfail.token_embed_was_built_with_an": (
        (
            "token_embed was built with {name}={value}: an id looked up k times gets 1/k of its lookup"
            " gradient ({kw}); a plain nn.Embedding(V, D) is the table"
        ),
        (
            "token_embed 构建时用了 {name}={value}：一个 id 被查了 k 次，只得到查表梯度的 1/k（⟦{kw}⟧"
            "）；这张表应当就是普通的 nn.Embedding(V, D)"
        ),
    ),
    "checkfail.self_minigpt_has_where_minigpt_s": (
        (
            "self.minigpt.{layer} has {setting}={got} where MiniGPT's own layer has {setting2}={want}:"
            " {kw} (a replaced or rebuilt layer must compute exactly what MiniGPT's does)"
        ),
        (
            "self.minigpt.{layer} 的 {setting}={got}，而 MiniGPT 自己的这一层是 {setting2}={want}：⟦{kw}"
            "⟧（替换或重建的层必须与 MiniGPT 原来的层算得完全一样）"
        ),
    ),
    "checkfail.forward_s_logits_differ_from_self": (
        (
            "forward's logits differ from self.minigpt(input_ids) (largest difference {d}): forward skips"
            " part of MiniGPT or computes a part differently (positional embedding, blocks, final norm,"
            " head: all of them, in order)"
        ),
        (
            "前向传播的 logits 与 self.minigpt(input_ids) 不同（最大差值 {d}）：前向传播跳过了 MiniGPT"
            " 的一部分（⟦skips part of MiniGPT⟧），或者某一部分算法不同（位置嵌入、解码块、最后的 norm"
            "、语言模型头，一个都不能少，顺序也不能变）"
        ),
    ),
}
