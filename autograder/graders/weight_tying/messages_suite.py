"""Trusted (the judge's words, never in a release): message catalog part, English and Chinese side by side.
Holds the hidden suite's messages. Part of the message catalog (messages.py assembles it): id -> (English, Chinese),
or (English, Chinese, misconception) for a message that names one of the marking scheme's misconceptions: a finding
reads that id, never the wording, so either language can be reworded without moving a mark. The suite builds each as
a value (judge/words.py ``say``); the pages render it in the reader's language. Imports nothing."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    "suite.loss.detached": (
        (
            "{call} has the right value but backward() never reaches the model's weights: loss detached"
            " (a detach(), .item() or .data on the way cuts the graph, so training would not learn)"
        ),
        (
            "{call} 的值是对的，但反向传播传不到模型的权重：loss 脱离了计算图。途中的 detach()、.item() 或 .data "
            "切断了计算图，训练因此学不到东西"
        ),
        "loss_detached",
    ),
    "suite.loss.detached_in_part": (
        (
            "{call} has the right value, but its gradient (seen on {where}) is not the gradient of that"
            " value: loss detached in part (a detach() on one path?)"
        ),
        (
            "{call} 的值是对的，但它的梯度（从 {where} 上看）不是这个值的梯度：loss "
            "有一部分脱离了计算图（是不是某条路径上有 detach()？）"
        ),
        "loss_detached",
    ),
    "suite.gen.row0_for_every_row": (
        "batch rows not independent (row 0's token for every row)",
        "batch 中各行没有各自独立计算（每一行都接上了第 0 行的 token）",
        "batch_rows",
    ),
    "suite.identity.logits_from_another_table": (
        (
            "lm_head.weight follows the embedding, but the logits do not come from that table: forward"
            " uses another table (copied table, or a head whose .weight is not what it multiplies by)"
        ),
        (
            "lm_head.weight 会跟着 token embedding 变，但 logits 不是用这张表算出来的：forward 用的是另一张表（或者 "
            "LM head 的 .weight 并不是它真正拿来相乘的那张表）"
        ),
        "two_tables",
    ),
    "suite.identity.table_not_a_parameter": (
        "token_embed.weight is not among model.parameters(), so an optimizer would never train it",
        "token_embed.weight 不在 model.parameters() 里，优化器永远不会训练它",
    ),
    "suite.identity.minigpt_table_not_a_parameter": (
        ("minigpt.token_embed.weight is not among model.parameters(), so an optimizer would never train it"),
        "minigpt.token_embed.weight 不在 model.parameters() 里，优化器永远不会训练它",
    ),
    "suite.identity.minigpt_positions_token_shape": (
        (
            "minigpt.pos_embed.weight has the token table's shape {got}, expected {want}: positional embedding"
            " tied to the token embedding (only the head shares the token table)"
        ),
        (
            "minigpt.pos_embed.weight 的形状是 token embedding 表的形状 {got}，应为 {want}："
            "positional embedding 也共享了 token embedding 表（与 token embedding 表共享的只应有 LM head）"
        ),
        "positional_tied",
    ),
    "suite.positional_embedding_tied_minigpt_lm_head": (
        "positional embedding tied: minigpt.lm_head.weight is pos_embed.weight",
        "positional embedding 也参与了共享：minigpt.lm_head.weight 就是 pos_embed.weight",
        "positional_tied",
    ),
    "suite.changing_minigpt_token_embed_weight_also": (
        "changing minigpt.token_embed.weight also changed minigpt.pos_embed.weight: positional embedding "
        "tied (only the token embedding shares its table with the head)",
        "修改 minigpt.token_embed.weight 时 minigpt.pos_embed.weight 也变了：positional embedding 也参与了共享（只有 "
        "token embedding 与 LM head 共享同一张表）",
        "positional_tied",
    ),
    "suite.identity.minigpt_head_is_positions": (
        ("minigpt.lm_head.weight equals the positional table: positional embedding tied instead of token_embed"),
        ("minigpt.lm_head.weight 等于位置表：LM head 共享的是 positional embedding 的表，而不是 token_embed 的表"),
        "positional_tied",
    ),
    "suite.identity.write_did_not_take": (
        "writing into token_embed.weight in place did not take",
        "原地写入 token_embed.weight 没有生效",
    ),
    "suite.counts.two_tables": (
        "{model} has {n} unique parameters, expected V*D = {want}: two V*D tables: copied table, untied h"
        "ead, .data sharing (two Parameters over one storage) or tied only after forward (counted right a"
        "fter construction)",
        "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 V * D = {want}，这里却有两张 (V, D) 的表。"
        "可能是复制了一份表、LM head 没有共享 token embedding 的表、只共享了 .data（同一块内存上的两个参数对象），"
        "或者直到 forward 之后才共享（参数量是在刚构造完时统计的）",
        "two_tables",
    ),
    "suite.counts.head_bias": (
        "{model} has {n} unique parameters, expected V*D = {want}: bias on the head (+V parameters)",
        ("{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 V * D = {want}：LM head 带了偏置（多出 V 个参数）"),
        "head_bias",
    ),
    "suite.counts.wrapper_two_tables": (
        "{model} has {n} unique parameters, expected {want} (untied MiniGPT {untied} minus V*D = {vd}): t"
        "hat is the untied count (copied table / untied head, or tied only after forward)",
        "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 {want}（不共享权重的 MiniGPT 有 {untied} 个，"
        "减去 V * D = {vd}）：这正是不共享时的参数量（复制了一份表、LM head 没有共享 token embedding 的表，或者直到 "
        "forward 之后才共享）",
        "two_tables",
    ),
    "suite.counts.wrapper_size_ignored": (
        (
            "{model} has {n} unique parameters, expected {want} (untied MiniGPT {untied} minus V*D = {vd}):"
            " a hyper-parameter ignored? (see the state_dict test)"
        ),
        (
            "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 {want}（不共享权重的 MiniGPT 有 {untied} "
            "个，减去 V * D = {vd}）：是不是忽略了某个超参数？（见 state_dict 那项测试）"
        ),
        "hyperparameter_ignored",
    ),
    "suite.identity.positions_token_shape": (
        "pos_embed.weight has the token table's shape: positional embedding tied to the token embedding",
        ("pos_embed.weight 的形状是 token embedding 表的形状：positional embedding 也共享了 token embedding 表"),
        "positional_tied",
    ),
    "suite.identity.head_positions_shape": (
        "lm_head.weight has the positional table's shape: positional embedding tied",
        "lm_head.weight 的形状是位置表的形状：LM head 共享的是 positional embedding 的表",
        "positional_tied",
    ),
    "suite.counts.size_ignored": (
        "hyper-parameter ignored ({name}): {key} is {got}, expected {want}",
        "忽略了超参数 {name}：{key} 是 {got}，应为 {want}",
        "hyperparameter_ignored",
    ),
    "suite.counts.blocks_ignored": (
        "hyper-parameter ignored ({name}): {got} blocks, expected {want}",
        "忽略了超参数 {name}：有 {got} 个 GPT block，应为 {want} 个",
        "hyperparameter_ignored",
    ),
    "suite.counts.num_heads_other": (
        (
            "logits differ from a MiniGPT with num_heads={want} (they match a MiniGPT with num_heads={got}):"
            " hyper-parameter ignored (num_heads)"
        ),
        ("logits 与 num_heads={want} 的 MiniGPT 不同（却与 num_heads={got} 的 MiniGPT 相同）：忽略了超参数 num_heads"),
        "hyperparameter_ignored",
    ),
    "suite.counts.num_heads_ignored": (
        "logits differ from a MiniGPT with num_heads={want}: hyper-parameter ignored (num_heads)",
        ("logits 与 num_heads={want} 的 MiniGPT 不同：忽略了超参数 num_heads"),
        "hyperparameter_ignored",
    ),
    # one probability in every Dropout layer (round 22: a Python list "[0.0]" was printed)
    "suite.counts.dropout_ignored": (
        "every Dropout layer inside minigpt has probability {got}, expected {want}: hyper-parameter ignored (dropout)",
        "minigpt 内部各 dropout 层的概率都是 {got}，应为 {want}：忽略了超参数 dropout",
        "hyperparameter_ignored",
    ),
    # several probabilities among them, each once: "0.0、0.5" (suite.counts.values_sep between them)
    "suite.counts.dropout_mixed": (
        "the Dropout layers inside minigpt have probabilities {got}, expected {want} in every one: hyper-parameter"
        " ignored (dropout)",
        "minigpt 内部各 dropout 层的概率分别是 {got}，应当都为 {want}：忽略了超参数 dropout",
        "hyperparameter_ignored",
    ),
    "suite.counts.values_sep": (", ", "、"),
    "suite.train_logits": (
        "train logits",
        "训练模式下的 logits",
    ),
    "suite.eval_mode_logits": (
        "eval-mode logits",
        "评估模式下的 logits",
    ),
    "suite.sgd.doubled": (
        "the table moved twice (gradient doubled, or the shared Parameter is stepped twice)",
        "表的变化量是应有的两倍（梯度翻倍，或者共享的参数对象被更新了两次）",
        "gradient_scaled",
    ),
    "suite.sgd.halved": (
        "the table moved by half the step (gradient halved)",
        "表的变化量只有应有的一半（梯度减半）",
        "gradient_scaled",
    ),
    "suite.sgd.one_path": (
        "the table moved by one path's gradient only (only one path: copied table / .data sharing?)",
        "表只按一条路径的梯度更新了（是复制了一份表，还是只共享了 .data？）",
        "only_one_path",
    ),
    "suite.sgd.table_not_a_parameter": (
        "the table did not move: token_embed.weight is not among model.parameters()?",
        "表完全没有更新：token_embed.weight 可能不在 model.parameters() 里",
    ),
    "suite.sgd.wrong_step": (
        "the table did not move by lr * (sum of both paths' gradients)",
        "表的变化量不等于 lr ×（两条路径的梯度之和）",
    ),
    "suite.grad.head_grad_differs": (
        (
            "lm_head.weight.grad differs from token_embed.weight.grad: .data sharing or copied table (a"
            " tied head has one Parameter, so one .grad)"
        ),
        (
            "lm_head.weight.grad 与 token_embed.weight.grad 不同：只共享了 .data，或者复制了一份表。"
            "共享权重之后两者是同一个参数对象，只有一个 .grad"
        ),
        "only_one_path",
    ),
    "suite.grad.head_grad_not_same": (
        "lm_head.weight.grad is not the same tensor as token_embed.weight.grad: .data sharing?",
        "lm_head.weight.grad 与 token_embed.weight.grad 不是同一个张量：可能只共享了 .data",
        "only_one_path",
    ),
    "suite.loss_target_shift_wrong": (
        "\n-> loss target shift wrong? {hint}",
        "\nloss 的目标是不是没有正确错开一位？{hint}",
        "loss_shift",
    ),
    "suite.loss.form_short_targets": (
        "targets of shape (B, T-1) go with the logits of input_ids[:, :-1]",
        "形状为 (B, T-1) 的 targets 对应 input_ids[:, :-1] 的 logits",
    ),
    "suite.loss.form_full_targets": (
        "targets of shape (B, T) are already shifted, so they go with the logits of all of input_ids",
        "形状为 (B, T) 的 targets 已经错开了一位，对应全部 input_ids 的 logits",
    ),
    "suite.with_no_targets_predict_input_ids": (
        "with no targets, input_ids[:, :-1] predicts input_ids[:, 1:]",
        "不给 targets 时，应由 input_ids[:, :-1] 预测 input_ids[:, 1:]",
    ),
    # each wrong target form as one sentence (the generic form below is the fallback); the form's hint ({hint}: which
    # logits go with which targets) only where the shift is the mistake (test_loss: names loss_shift)
    # why the right value is the larger (round 19): the test's model (judge_model) is untrained and holds the
    # plan's values scaled by its loss_gain, so its logits are far apart; probabilities (0 to 1) keep a loss within
    # 1 of ln V
    "suite.loss.softmax_first": (
        "{call} = {got}, expected {want}: cross-entropy of probabilities (a softmax before the cross-entropy "
        "function, F.cross_entropy or dF.cross_entropy_loss, which applies log_softmax itself: softmax applied "
        "twice). Probabilities lie between 0 and 1, so their loss always lies in a band 1 wide that holds ln V, "
        "less than 1 from it, while the grader's model is untrained and its random weights are deliberately "
        "scaled up: its logits lie far apart, so the model is “confident” and mostly wrong, and the right loss is "
        "much larger; give it the raw logits",
        "{call} 是 {got}，应为 {want}。传给交叉熵的是概率而不是 logits：调用交叉熵函数（F.cross_entropy 或 "
        "dF.cross_entropy_loss）之前做了 softmax，而这些函数内部本身就会做 log_softmax，等于做了两次 softmax。"
        "概率都在 0 到 1 之间，由它算出的 loss 总落在一个包含 ln V、宽度只有 1 的区间里，离 ln V 不到 1；"
        "而评分用的模型没有训练过，随机权重又特意放大过，logits 彼此相差很远，模型很“自信”却多半猜错，"
        "所以正确的 loss 要大得多。请直接传入 logits。",
        "loss_softmax",
    ),
    "suite.loss.nll_on_logits": (
        "{call} = {got}, expected {want}: F.nll_loss of raw logits; nll_loss expects log-probabilities, so take "
        "log_softmax first, or use F.cross_entropy, which does both",
        "{call} 是 {got}，应为 {want}。原始 logits 被直接传给了 F.nll_loss，而 nll_loss 需要的是对数概率。请先做 "
        "log_softmax，或者直接用同时完成这两步的 F.cross_entropy。",
        "loss_nll",
    ),
    "suite.loss.ignore_index": (
        "{call} = {got}, expected {want}: the loss skips the targets equal to 0 (ignore_index=0); token 0 is a "
        "token of the vocabulary like any other, so every position counts",
        "{call} 是 {got}，应为 {want}。loss 跳过了等于 0 的 targets（ignore_index=0），但 0 号 token 和词表里的"
        "其他 token 一样，每个位置都要计入。",
        "loss_ignore_index",
    ),
    # .none, .wrong_way and .wrong_way_positions are judged on the call without targets (test_loss._alternatives):
    # what was not shifted is the target the loss built from ids, "目标", not a "targets" never passed
    "suite.loss_shift.none": (
        (
            "{call} = {got}, expected {want}: loss target shift wrong, no shift (each position's logits predict its"
            " own token): {hint}"
        ),
        ("{call} 是 {got}，应为 {want}：目标没有错开一位，用每个位置的 logits 去预测这个位置自己的 token。{hint}"),
        "loss_shift",
    ),
    "suite.loss_shift.wrong_way": (
        (
            "{call} = {got}, expected {want}: loss target shift wrong, "
            "shifted the wrong way (logits of ids[:, 1:] vs ids[:, :-1]): {hint}"
        ),
        ("{call} 是 {got}，应为 {want}：目标错开的方向反了，拿 ids[:, 1:] 的 logits 去预测 ids[:, :-1]。{hint}"),
        "loss_shift",
    ),
    "suite.loss_shift.wrong_way_positions": (
        (
            "{call} = {got}, expected {want}: loss target shift wrong, "
            "shifted the wrong way (logits at positions 1.. vs tokens 0..): {hint}"
        ),
        ("{call} 是 {got}，应为 {want}：目标错开的方向反了，拿位置 1 起的 logits 去预测位置 0 起的 token。{hint}"),
        "loss_shift",
    ),
    "suite.loss_shift.targets_ignored": (
        ("{call} = {got}, expected {want}: loss target shift wrong, targets ignored (ids shifted instead): {hint}"),
        ("{call} 是 {got}，应为 {want}：没有用传入的 targets，而是把 ids 错开一位当作目标。{hint}"),
        "loss_shift",
    ),
    "suite.loss_shift.shifted_again": (
        (
            "{call} = {got}, expected {want}: loss target shift wrong, "
            "shifted again (ids[:, :-1] vs targets[:, 1:]): {hint}"
        ),
        (
            "{call} 是 {got}，应为 {want}：已经错开过的 targets 又被错开了一次，拿 ids[:, :-1] 去预测 targets[:, 1:]。"
            "{hint}"
        ),
        "loss_shift",
    ),
    "suite.loss_shift.wrong_way_targets": (
        (
            "{call} = {got}, expected {want}: loss target shift wrong, "
            "shifted the wrong way (ids[:, 1:] vs targets[:, :-1]): {hint}"
        ),
        ("{call} 是 {got}，应为 {want}：错开的方向反了，拿 ids[:, 1:] 去预测 targets[:, :-1]。{hint}"),
        "loss_shift",
    ),
    "suite.loss_shift.wrong_way_full": (
        (
            "{call} = {got}, expected {want}: loss target shift wrong, "
            "shifted the wrong way (ids[:, 1:] vs targets): {hint}"
        ),
        ("{call} 是 {got}，应为 {want}：错开的方向反了，拿 ids[:, 1:] 去预测 targets。{hint}"),
        "loss_shift",
    ),
}
