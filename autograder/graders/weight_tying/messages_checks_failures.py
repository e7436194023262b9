"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds the weight-tying checks' failure sentences (weight_tying_checks/tied.py, wrapper.py, generation.py; how a
call into the student's code failed and why a submission could not be loaded are the framework's words,
``coursecheck/messages.py``). Part of the message catalog (messages.py assembles it): id -> (English, Chinese).
The self-check knows the student's language, so each check renders its message with ``tell("checkfail....",
...)`` where it raises it; a misconception keyword the English names stays, in English, in the Chinese. A
parameter appears once in a template (a value used twice has two names). A loss check's failure that a check above
has said in full is said short, as its id's ``.again`` (``coursecheck.checks``). Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

_PLAIN_EN = "; a plain nn.Embedding(V, D) is the table"
_PLAIN_ZH = "；这张表应当就是普通的 nn.Embedding(V, D)"
_AUTOGRAD_EN = "autograd already adds both paths"
_AUTOGRAD_ZH = "autograd 本来就会把两条路径的梯度加起来，不需要额外的系数"

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
    "checkfail.positions_follow_the_table": (
        "changing token_embed.weight also changed pos_embed.weight: positional embedding tied",
        "修改 token embedding 表时，位置表也跟着变了：positional embedding 也参与了共享",
        "positional_tied",
    ),
    "checkfail.size_ignored": (
        "self.minigpt was built with {name}={got}, not the {same_name}={want} given: hyper-parameter ignored ({which})",
        "self.minigpt 是用 {name}={got} 构建的，而不是传入的 {same_name}={want}：忽略了超参数 {which}",
        "hyperparameter_ignored",
    ),
    "checkfail.other_shapes": (
        "self.minigpt's weights have other shapes than a MiniGPT({args}): pass every size on",
        "self.minigpt 的权重形状与 MiniGPT({args}) 不同：请把每个尺寸参数都传下去",
    ),
    "checkfail.num_heads_ignored": (
        "self.minigpt computes with num_heads={got}, not the num_heads={want} given: hyper-parameter ignored"
        " (num_heads)",
        "self.minigpt 实际用的是 num_heads={got}，而不是传入的 num_heads={want}：忽略了超参数 num_heads",
        "hyperparameter_ignored",
    ),
    "checkfail.logits_not_minigpts": (
        "self.minigpt's logits are not those of a MiniGPT with these weights and hyper-parameters",
        "self.minigpt 的 logits 不对：用同样的权重和超参数构建的 MiniGPT 会给出不同的 logits",
    ),
    "checkfail.dropout_ignored": (
        "with dropout=0.5, two forward passes in train mode gave the same logits: hyper-parameter ignored (dropout)",
        "dropout=0.5 时，训练模式下两次 forward 得到的 logits 完全相同：忽略了超参数 dropout",
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
    # wrapper.py: the loss (each call, its rule, and what went wrong)
    "checkfail.call.none": ("loss(ids)", "loss(ids)（不给 targets 时）"),
    "checkfail.call.short": (
        "loss(ids, targets of shape (B, T-1))",
        "loss(ids, targets)（targets 形状为 (B, T-1) 时）",
    ),
    "checkfail.call.full": (
        "loss(ids, targets of shape (B, T))",
        "loss(ids, targets)（targets 形状为 (B, T) 时）",
    ),
    "checkfail.rule.none": (
        "with no targets, predict input_ids[:, 1:] from input_ids[:, :-1]",
        "不给 targets 时，应当由 input_ids[:, :-1] 预测 input_ids[:, 1:]。",
    ),
    "checkfail.rule.short": (
        "targets of shape (B, T-1) (the chapter's form) are the next tokens of input_ids[:, :-1]",
        "形状为 (B, T-1) 的 targets（教材的写法）是 input_ids[:, :-1] 各位置的下一个 token。",
    ),
    "checkfail.rule.full": (
        "targets of shape (B, T) (nanoGPT's form) are already shifted, so they go with the logits of all of input_ids",
        "形状为 (B, T) 的 targets（nanoGPT 的写法）已经错开了一位，对应全部 input_ids 的 logits。",
    ),
    "checkfail.loss_raises": (
        "{failure}\nloss raises: loss() stops with an error instead of returning the mean next-token cross-entropy,"
        " so the model has no training objective",
        "{failure}\nloss 抛出了异常，没有返回预测下一个 token 的平均交叉熵，模型因此没有训练目标",
        "loss_not_written",
    ),
    "checkfail.shapes_do_not_pair": (
        "{failure}\n{rule}: loss target shift wrong?",
        "{failure}\n{rule}这里 logits 与 targets 的形状对不上，可能是 loss 的目标没有正确错开一位",
        "loss_shift",
    ),
    "checkfail.loss_not_scalar": (
        "{what} returned {got}, expected a scalar tensor: the mean cross-entropy over positions",
        "{what} 返回的是 {got}，应为标量张量，即各位置交叉熵的平均值",
    ),
    "checkfail.loss_detached": (
        "{what} has the right value but backward() never reaches the model's weights: loss detached (a detach(),"
        " .item() or .data on the way cuts the graph, so training would not learn)",
        "{what} 的值是对的，但反向传播传不到模型的权重：loss 脱离了计算图。计算过程中的 detach()、.item() 或 .data "
        "切断了计算图，训练因此学不到东西",
        "loss_detached",
    ),
    "checkfail.loss_detached.again": (
        "the same mistake as the check above: {what} has the right value but is detached from the graph",
        "与上一项是同一个错误：{what} 的值是对的，但脱离了计算图",
    ),
    "checkfail.shift.none": (
        "{what} = {got}, expected {want}: loss target shift wrong, no shift (logits of ids vs ids). {rule}",
        "{what} 是 {got}，应为 {want}：targets 没有错开一位，拿 ids 的 logits 去预测 ids 本身。{rule}",
        "loss_shift",
    ),
    "checkfail.shift.wrong_way": (
        "{what} = {got}, expected {want}: loss target shift wrong, shifted the wrong way (logits of ids[:, 1:] vs"
        " ids[:, :-1]). {rule}",
        "{what} 是 {got}，应为 {want}：targets 错开的方向反了，拿 ids[:, 1:] 的 logits 去预测 ids[:, :-1]。{rule}",
        "loss_shift",
    ),
    "checkfail.shift.wrong_way_positions": (
        "{what} = {got}, expected {want}: loss target shift wrong, shifted the wrong way (logits at positions 1.."
        " vs tokens 0..). {rule}",
        "{what} 是 {got}，应为 {want}：targets 错开的方向反了，拿位置 1 起的 logits 去预测位置 0 起的 token。{rule}",
        "loss_shift",
    ),
    "checkfail.shift.targets_ignored": (
        "{what} = {got}, expected {want}: loss target shift wrong, targets ignored (ids shifted instead). {rule}",
        "{what} 是 {got}，应为 {want}：没有用传入的 targets，而是把 ids 错开一位当作目标。{rule}",
        "loss_shift",
    ),
    "checkfail.shift.shifted_again": (
        "{what} = {got}, expected {want}: loss target shift wrong, shifted again (ids[:, :-1] vs targets[:, 1:])."
        " {rule}",
        "{what} 是 {got}，应为 {want}：已经错开过的 targets 又被错开了一次，拿 ids[:, :-1] 去预测 "
        "targets[:, 1:]。{rule}",
        "loss_shift",
    ),
    "checkfail.loss_not_mean": (
        "{what} = {got} = {n} x {want}: loss not mean (summed over the {count} positions; use the mean cross-entropy)",
        "{what} 是 {got}，恰为 {want} 的 {n} 倍：loss 不是平均值，而是 {count} 个位置的和；应取交叉熵的平均值",
        "loss_not_mean",
    ),
    "checkfail.loss_not_mean.again": (
        "the same mistake as the check above: {what} = {got} = {n} x {want}, a sum, not the mean",
        "与上一项是同一个错误：{what} 是 {got}，恰为 {want} 的 {n} 倍，是求和而不是平均值",
    ),
    "checkfail.loss_scaled.doubled": (
        "{what} = {got}, {k} x the mean cross-entropy {want}: loss doubled, so the shared table's gradient is"
        " doubled too (gradient doubled): " + _AUTOGRAD_EN,
        "{what} 是 {got}，恰为平均交叉熵 {want} 的 {k} 倍：loss 翻倍了，共享表的梯度也随之翻倍。" + _AUTOGRAD_ZH,
        "loss_scaled",
    ),
    "checkfail.loss_scaled.doubled.again": (
        "the same mistake as the check above: {what} = {got}, {k} x the mean cross-entropy {want}, loss doubled",
        "与上一项是同一个错误：{what} 是 {got}，恰为平均交叉熵 {want} 的 {k} 倍，loss 翻倍了",
    ),
    "checkfail.loss_scaled.halved": (
        "{what} = {got}, {k} x the mean cross-entropy {want}: loss halved, so the shared table's gradient is"
        " halved too (gradient halved): " + _AUTOGRAD_EN,
        "{what} 是 {got}，恰为平均交叉熵 {want} 的 {k} 倍：loss 减半了，共享表的梯度也随之减半。" + _AUTOGRAD_ZH,
        "loss_scaled",
    ),
    "checkfail.loss_scaled.halved.again": (
        "the same mistake as the check above: {what} = {got}, {k} x the mean cross-entropy {want}, loss halved",
        "与上一项是同一个错误：{what} 是 {got}，恰为平均交叉熵 {want} 的 {k} 倍，loss 减半了",
    ),
    "checkfail.loss_softmax": (
        "{what} = {got}, expected {want}: cross-entropy of probabilities (a softmax before the cross-entropy"
        " function, F.cross_entropy or dF.cross_entropy_loss, which applies log_softmax itself: softmax applied"
        " twice); give it the raw logits. The right loss is the larger"
        " one here because this check's model is untrained and its random weights are deliberately scaled up: its"
        " logits lie far apart, so the model is “confident” and mostly wrong, while a loss taken on probabilities"
        " always lies in a band 1 wide that holds ln V, so it is less than 1 from ln V",
        "{what} 是 {got}，应为 {want}：传给交叉熵的是概率而不是 logits。调用交叉熵函数（F.cross_entropy 或"
        " dF.cross_entropy_loss）之前做了 softmax，而这些函数内部本身就会做 log_softmax，等于做了两次 softmax，"
        "应直接传入 logits。"
        "这里正确的 loss 反而更大，是因为这项检查用的模型没有训练过，随机权重又特意放大过，logits 彼此相差很远，"
        "模型很“自信”却多半猜错；而用概率算出的 loss 总落在一个包含 ln V、宽度只有 1 的区间里，离 ln V 不到 1",
        "loss_softmax",
    ),
    "checkfail.loss_softmax.again": (
        "the same mistake as the check above: {what} = {got}, expected {want}, cross-entropy of probabilities, not"
        " of logits",
        "与上一项是同一个错误：{what} 是 {got}，应为 {want}，传给交叉熵的是概率而不是 logits",
    ),
    "checkfail.loss_nll": (
        "{what} = {got}, expected {want}: F.nll_loss of raw logits (nll_loss takes log-probabilities: "
        "log_softmax first), or use F.cross_entropy, which does both",
        "{what} 是 {got}，应为 {want}。原始 logits 被直接传给了 F.nll_loss，而 nll_loss 需要的是对数概率"
        "（先做 log_softmax）。请先做 log_softmax，或者直接用同时完成这两步的 F.cross_entropy。",
        "loss_nll",
    ),
    "checkfail.loss_nll.again": (
        "the same mistake as the check above: {what} = {got}, expected {want}, raw logits given to F.nll_loss",
        "与上一项是同一个错误：{what} 是 {got}，应为 {want}，原始 logits 被直接传给了 F.nll_loss",
    ),
    "checkfail.variant.argmax_positions": (
        "argmax over the positions (dim=1), not over the vocabulary of the last position",
        "argmax 取在了位置这一维（dim=1）上，而不是最后一个位置的词表这一维",
        "argmax_axis",
    ),
    "checkfail.loss_ignore_index": (
        "{what} = {got}, expected {want}: the loss skips the targets equal to 0 (ignore_index=0); token 0 is a "
        "token of the vocabulary like any other, so every position counts",
        "{what} 是 {got}，应为 {want}：loss 跳过了等于 0 的 targets（ignore_index=0）；0 号 token 和词表里的其他 "
        "token 一样，每个位置都要计入",
        "loss_ignore_index",
    ),
    "checkfail.loss_ignore_index.again": (
        "the same mistake as the check above: {what} = {got}, expected {want}, the targets equal to 0 skipped",
        "与上一项是同一个错误：{what} 是 {got}，应为 {want}，loss 跳过了等于 0 的 targets",
    ),
    "checkfail.loss_wrong": (
        "{what} = {got}, expected the mean next-token cross-entropy {want}. {rule}",
        "{what} 是 {got}，应为预测下一个 token 的平均交叉熵 {want}。{rule}",
    ),
    # generation.py
    "checkfail.call.generate": (
        "{cls}.generate(input_ids of shape {shape}, max_new_tokens={steps})",
        "{cls}.generate(input_ids, max_new_tokens={steps})（input_ids 形状为 {shape}）",
    ),
    "checkfail.delegated_generate": (
        "generate called {names}: delegated generate (the library decodes, not your code). Write the loop"
        " yourself: the forward pass self.minigpt(...), torch.argmax and torch.cat are all it needs",
        "generate 调用了 {names}，把生成交给了库：逐个生成 token 的是库，而不是你的代码。请自己写这个循环，只需要用到 "
        "self.minigpt(...) 的 forward、torch.argmax 和拼接（torch.cat）",
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
        "{problem}\n这正是“{name}”会产生的结果",
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
