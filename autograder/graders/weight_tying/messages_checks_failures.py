"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds the weight-tying checks' failure sentences (weight_tying_checks/tied.py, wrapper.py, generation.py; the loss
checks' are messages_checks_loss.py; how a call into the student's code failed and why a submission could not be
loaded are the framework's words, ``coursecheck/messages.py``). Part of the message catalog (messages.py assembles
it): id -> (English, Chinese). The self-check knows the student's language, so each check renders its message with
``tell("checkfail....", ...)`` where it raises it; a misconception keyword the English names stays, in English, in
the Chinese. A parameter appears once in a template (a value used twice has two names). A check's failure that a
check above has said in full is said short, as its id's ``.again`` (``coursecheck.checks``). Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

_PLAIN_EN = "; a plain nn.Embedding(V, D) is the table"
_PLAIN_ZH = "；这张表应当就是普通的 nn.Embedding(V, D)"

MESSAGES = {
    # tied.py
    "checkfail.with_embedding_option": ("{problem}: {option}", "{problem}：{option}"),
    "checkfail.table_not_parameter": (
        "{owner}.token_embed.weight is a {kind}, expected an nn.Parameter",
        "{owner}.token_embed.weight 是 {kind}，应为 nn.Parameter",
    ),
    "checkfail.head_not_parameter": (
        "{owner}.lm_head.weight is a {kind}: the head must hold the one shared nn.Parameter",
        "{owner}.lm_head.weight 是 {kind}：LM head 应当持有那一个共享的 nn.Parameter",
    ),
    "checkfail.embedding.padding_idx": (
        "token_embed was built with padding_idx={value}: its row gets no gradient from the lookup (padding_idx)"
        + _PLAIN_EN,
        "token embedding 构建时用了 padding_idx={value}：这一行得不到查表路径的梯度" + _PLAIN_ZH,
        "embedding_gradient_option",
    ),
    "checkfail.embedding.max_norm": (
        "token_embed was built with max_norm={value}: each lookup renormalises, and rewrites, the rows it reads"
        " (max_norm)" + _PLAIN_EN,
        "token embedding 构建时用了 max_norm={value}：每次查表都会把读到的行重新归一化，并写回表里" + _PLAIN_ZH,
        "max_norm",
    ),
    "checkfail.embedding.scale_grad_by_freq": (
        "token_embed was built with scale_grad_by_freq={value}: an id looked up k times gets 1/k of its lookup"
        " gradient (scale_grad_by_freq)" + _PLAIN_EN,
        "token embedding 构建时用了 scale_grad_by_freq={value}：一个 id 被查了 k 次，只得到查表梯度的 1/k" + _PLAIN_ZH,
        "embedding_gradient_option",
    ),
    "checkfail.table_shape": (
        "token_embed.weight has shape {got}, expected (V, D) = {want}",
        "token_embed.weight 的形状是 {got}，应为 (V, D) = {want}",
    ),
    "checkfail.delegated_tie": (
        "token_embed.weight is the table of a dnnlpy MiniGPT built with weight_tying=True inside __init__: "
        "delegated tie (the library tied that pair, not your code); this exercise builds its own embedding and "
        "head and ties them itself",
        "token embedding 表来自构建时创建的一个 dnnlpy MiniGPT（weight_tying=True）：weight tying 交给了库。这一对 "
        "token embedding 和 LM head 是库让它们共享的，不是你的代码；这道练习要求你自己创建 token embedding 和 LM "
        "head，再亲手让它们共享同一张表",
        "delegated_tie",
    ),
    "checkfail.head_bias": (
        "lm_head has a bias of shape {shape}: bias on the head (the tied head is the table alone, so logits ="
        " E[ids] @ E.T with nothing added)",
        "LM head 带有形状为 {shape} 的偏置：共享权重的 LM head 应当只有这张表，logits = E[ids] @ E.T，不再加任何东西",
        "head_bias",
    ),
    "checkfail.count_two_tables": (
        "{model} holds {n} parameters ({names}), expected V * D = {want}: a second (V, D) table: copied table or"
        " untied head",
        "{model} 有 {n} 个参数（{names}），应为 V * D = {want}：多了第二张 (V, D) 的表，可能是复制了一份表，或者 LM "
        "head 没有共享 token embedding 的表",
        "two_tables",
    ),
    "checkfail.count_two_tables.again": (  # under a check just above that named the copy or the untied head
        "the same mistake as the check above: {model} holds {n} parameters ({names}), expected V * D = {want}, a"
        " second (V, D) table",
        "与上一项是同一个错误：{model} 有 {n} 个参数（{names}），应为 V * D = {want}，多了第二张 (V, D) 的表",
    ),
    "checkfail.count_two_parameters": (  # two nn.Parameter objects, one storage: both listed, both counted
        "{model} holds {n} parameters ({names}), expected V * D = {want}: one storage, two Parameters; the"
        " memory is one table, but parameters() lists both Parameter objects over it, so the count is V * D too"
        " many",
        "{model} 有 {n} 个参数（{names}），应为 V * D = {want}：一块内存，两个参数对象。内存里只有一张表，但"
        " parameters() 会把共用它的两个参数对象都列出来，所以参数量多算了一倍",
        "data_sharing",
    ),
    "checkfail.count_two_parameters.again": (  # under a check just above that named the same mistake
        "the same mistake as the check above: {model} holds {n} parameters ({names}), expected V * D = {want}, two"
        " Parameter objects over the same memory, both counted",
        "与上一项是同一个错误：{model} 有 {n} 个参数（{names}），应为 V * D = {want}，两个参数对象共用同一块内存，"
        "parameters() 把两个都算了进去",
    ),
    "checkfail.count_extra": (
        "{model} holds {n} parameters ({names}), expected V * D = {want}: extra parameters",
        "{model} 有 {n} 个参数（{names}），应为 V * D = {want}：多了额外的参数",
    ),
    "checkfail.logits_grow_like_table": (
        "the logits grow like the table, not like its square, when token_embed.weight is scaled: the head scores"
        " with another table (copied table, or a head whose .weight is not what it multiplies by)",
        "把 token embedding 表放大时，logits 与表成正比增长，而不是随它的平方增长：LM head 是用另一张表打分的"
        "（复制了一份表；或者 LM head 的 .weight 并不是它真正拿来相乘的那张表）",
        "two_tables",
    ),
    # wrapper.py: the model
    "checkfail.not_minigpt": (
        "self.minigpt is a {kind}: it must be a dnnlpy.models.gpt.MiniGPT",
        "self.minigpt 是 {kind}：它必须是 dnnlpy.models.gpt.MiniGPT",
    ),
    "checkfail.layer_setting": (
        "self.minigpt.{layer} has {setting}={got} where MiniGPT's own layer has {same_setting}={want}: {keyword} (a"
        " replaced or rebuilt layer must compute exactly what MiniGPT's does)",
        "self.minigpt.{layer} 的 {setting}={got}，而 MiniGPT 自己的这一层是 {same_setting}={want}：{keyword}"
        "（替换或重建的层必须与 MiniGPT 原来的层算得完全一样）",
    ),
    "checkfail.positions_are_the_token_table": (
        "minigpt.pos_embed.weight is the token table, of shape {shape}, where a (block_size, D) = {want} table"
        " of positions belongs: positional embedding tied (only the head shares the token table)",
        "positional embedding 的表就是 token embedding 表，形状为 {shape}，而这里应当是一张 (block_size, D) = "
        "{want} 的位置表：与 token embedding 表共享的只应有 LM head",
        "positional_tied",
    ),
    "checkfail.positions_are_the_token_table.again": (  # the weights' shapes, under the check that said it in full
        "the same mistake as the check above: pos_embed.weight has the token table's shape {shape}, not"
        " (block_size, D) = {want}, so the weights' shapes are not a MiniGPT's",
        "与上一项是同一个错误：pos_embed.weight 的形状是 token embedding 表的 {shape}，而不是 (block_size, D) = "
        "{want}，所以权重形状与 MiniGPT 的不同",
    ),
    "checkfail.head_is_the_positional_table": (
        "self.minigpt.lm_head.weight has the positional table's shape {shape}, where the token table's (V, D) ="
        " {want} belongs: positional embedding tied instead of token_embed",
        "self.minigpt 的 LM head 权重形状是位置表的 {shape}，而这里应当是 token embedding 表的 (V, D) = {want}："
        "LM head 共享的是 positional embedding 的表，而不是 token embedding 的表",
        "positional_tied",
    ),
    "checkfail.head_is_the_positional_table.again": (  # the weights' shapes, under the tie check that said it
        "the same mistake as the check above: lm_head.weight has the positional table's shape {shape}, not"
        " (V, D) = {want}, so the weights' shapes are not a MiniGPT's",
        "与上一项是同一个错误：LM head 的权重形状是位置表的 {shape}，而不是 (V, D) = {want}，所以权重形状与"
        " MiniGPT 的不同",
    ),
    "checkfail.positions_follow_the_table": (
        "changing token_embed.weight also changed pos_embed.weight: positional embedding tied",
        "修改 token embedding 表时，位置表也跟着变了：positional embedding 也参与了共享",
        "positional_tied",
    ),
    "checkfail.size_ignored": (
        "self.minigpt was built with {name}={got}, not the {same_name}={want} given: hyper-parameter ignored ({which})",
        "self.minigpt 是用 {name}={got} 构建的，而不是传入的 {same_name}={want}，说明没有把超参数 {which} 传给 MiniGPT",
        "hyperparameter_ignored",
    ),
    "checkfail.other_shapes": (
        "self.minigpt's weights have other shapes than a MiniGPT({args}): pass every size on",
        "self.minigpt 的权重形状与 MiniGPT({args}) 不同：请把每个尺寸参数都传下去",
    ),
    "checkfail.num_heads_ignored": (
        "self.minigpt computes with num_heads={got}, not the num_heads={want} given: hyper-parameter ignored"
        " (num_heads)",
        "self.minigpt 实际用的是 num_heads={got}，而不是传入的 num_heads={want}，"
        "说明没有把超参数 num_heads 传给 MiniGPT",
        "hyperparameter_ignored",
    ),
    "checkfail.logits_not_minigpts": (
        "self.minigpt's logits are not those of a MiniGPT with these weights and hyper-parameters",
        "self.minigpt 的 logits 不对：用同样的权重和超参数构建的 MiniGPT 会给出不同的 logits",
    ),
    "checkfail.dropout_ignored": (
        "with dropout=0.5, two forward passes in train mode gave the same logits: hyper-parameter ignored (dropout)",
        "dropout=0.5 时，训练模式下两次 forward 得到的 logits 完全相同，说明没有把超参数 dropout 传给 MiniGPT",
        "hyperparameter_ignored",
    ),
    "checkfail.forward_skips": (
        "forward's logits differ from self.minigpt(input_ids) (largest difference {d}): forward skips part of"
        " MiniGPT or computes a part differently (positional embedding, blocks, final norm, head: all of them,"
        " in order)",
        "forward 的 logits 与 self.minigpt(input_ids) 不同（最大差值 {d}）：forward 跳过了 MiniGPT 的一部分，"
        "或者某一部分的算法不同。positional embedding、GPT block、末尾的 LayerNorm 和 LM head 一个都不能少，"
        "顺序也不能变",
        "skips_minigpt",
    ),
    # generation.py
    "checkfail.call.generate": (
        "{cls}.generate(input_ids of shape {shape}, max_new_tokens={steps})",
        "{cls}.generate(input_ids, max_new_tokens={steps})（input_ids 形状为 {shape}）",
    ),
    "checkfail.delegated_generate": (
        "generate called {names}: delegated generate (the library decodes, not your code). Write the loop"
        " yourself: it only needs to call self.minigpt(...), torch.argmax and torch.cat",
        "generate 调用了 {names}，把生成交给了库：逐个生成 token 的是库，而不是你的代码。请自己写这个循环，只需要调用 "
        "self.minigpt(...)、torch.argmax 和 torch.cat",
        "delegated_generate",
    ),
    "checkfail.batch_fails": (
        "{failure}\ngenerate works for one row but not for a batch of {n}: batch rows not independent (a .item()"
        " or row 0 used for the whole batch?)",
        "{failure}\ngenerate 对一行输入能运行，对 {n} 行的 batch 却不行：batch 中各行没有各自独立计算（是不是用了 "
        ".item()，或者拿第 0 行代替了整个 batch？）",
        "batch_rows",
    ),
    "checkfail.batch_of_one": (
        "{failure}\ngenerate works for a batch of 3 but not for a batch of one: batch of one (a squeeze() that"
        " also drops the batch dimension when B = 1?)",
        "{failure}\ngenerate 对 3 行的 batch 能运行，batch 只有 1 行时却不行（是不是 squeeze() 在 B = 1 时把 batch "
        "这一维也去掉了？）",
        "batch_rows",
    ),
    "checkfail.rows_alike": (
        "every row continues like row 0: batch rows not independent (.item() or row 0 used for the batch?)",
        "每一行都像第 0 行那样续写：batch 中各行没有各自独立计算（是不是用了 .item()，或者拿第 0 行代替了整个 batch？"
        "）",
        "batch_rows",
    ),
    "checkfail.variant": (
        "{problem}\nIt matches a decoder with this mistake: {name}",
        "{problem}\n出错原因：{name}",
    ),
    "checkfail.variant.first_block": (
        "wrong crop (first block_size tokens)",
        "截断方式不对（保留了前 block_size 个 token）",
        "crop",
    ),
    "checkfail.variant.short_block": (
        "wrong crop (block_size - 1 tokens)",
        "截断方式不对（只保留了 block_size - 1 个 token）",
        "crop",
    ),
    "checkfail.variant.first_position": (
        "wrong position (logits of the first position)",
        "取错了位置（用了第一个位置的 logits）",
        "position_or_append",
    ),
    "checkfail.variant.missing_append": (
        "missing append (every step sees the prompt only)",
        "没有把新 token 接到末尾（每一步看到的都只是前缀）",
        "position_or_append",
    ),
    "checkfail.dropout_on": (
        "on a model with dropout=1.0 in train mode, generate returned new tokens {got} where the greedy ones are"
        " {want}: dropout on while decoding (in train mode dropout zeroes random activations, so the argmax no"
        " longer reflects the model's own prediction; a decoder switches the model to evaluation mode while it"
        " decodes)",
        "模型的 dropout=1.0 且处于训练模式时，generate 生成的新 token 是 {got}，贪心生成应得 {want}：生成时没有关闭 "
        "dropout。训练模式下 dropout 会随机把激活置零，argmax 反映的就不再是模型本身的预测，所以 generate "
        "应当先调用 self.eval()，把模型切换到评估模式",
        "dropout_in_generate",
    ),
    "checkfail.no_crop": (
        "no crop: past block_size the position table has no row for the new positions; feed the model only the last"
        " block_size tokens at each step. The call, in detail:\n{failure}",
        "没有截断上下文：超过 block_size 之后，位置表里没有新位置对应的行（位置表只有 block_size 行，模型一次最多读"
        " block_size 个 token）；每一步都应当只把最后 block_size 个 token 送进模型。这次调用的详细情况：\n{failure}",
        "crop",
    ),
}
