"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds the loss checks' failure sentences (weight_tying_checks/wrapper.py: each call of loss, the rule it follows,
and what went wrong); the other checks' are messages_checks_failures.py. Part of the message catalog (messages.py
assembles it): id -> (English, Chinese), the misconception named as a third item. A loss check's failure that a
check above has said in full is said short, as its id's ``.again`` (``coursecheck.checks``). Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

_AUTOGRAD_EN = "autograd already adds both paths"
_AUTOGRAD_ZH = "autograd 本来就会把两条路径的梯度加起来，不需要额外的系数"

MESSAGES = {
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
        "With no targets, predict input_ids[:, 1:] from input_ids[:, :-1]",
        "不给 targets 时，应当由 input_ids[:, :-1] 预测 input_ids[:, 1:]。",
    ),
    "checkfail.rule.short": (
        "Targets of shape (B, T-1) (the chapter's form) are the next tokens of input_ids[:, :-1]",
        "形状为 (B, T-1) 的 targets（教材的写法）是 input_ids[:, :-1] 各位置的下一个 token。",
    ),
    "checkfail.rule.full": (
        "Targets of shape (B, T) (nanoGPT's form) are already shifted, so they go with the logits of all of input_ids",
        "形状为 (B, T) 的 targets（nanoGPT 的写法）已经错开了一位，对应全部 input_ids 的 logits。",
    ),
    "checkfail.loss_raises": (
        "{failure}\nloss raises: loss() stops with an error instead of returning the mean next-token cross-entropy,"
        " so the model has no training objective",
        "{failure}\nloss 抛出了异常，没有返回预测下一个 token 的平均交叉熵，因此算不出训练用的 loss",
        "loss_not_written",
    ),
    "checkfail.loss_head_is_the_positional_table": (  # under the tie check that said it in full, in another cell
        "the same mistake as the check “{check}”: lm_head.weight has the positional table's shape {shape},"
        " not (V, D) = {want}, so {what} gets logits for {width} tokens, not for the vocabulary's {v}",
        "与“{check}”这项检查是同一个错误：LM head 的权重形状是位置表的 {shape}，而不是 (V, D) = {want}，"
        "所以 {what} 得到的 logits 只覆盖 {width} 个 token，而不是词表的 {v} 个",
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
    # the next three are reached only when loss is called with no targets (the self-check's form "none"): the
    # Chinese names what is predicted as 目标, not as the targets argument the student never passed
    "checkfail.shift.none": (
        "{what} = {got}, expected {want}: loss target shift wrong, no shift (each position's logits predict its"
        " own token). {rule}",
        "{what} 是 {got}，应为 {want}：目标没有错开一位，用每个位置的 logits 去预测这个位置自己的 token。{rule}",
        "loss_shift",
    ),
    "checkfail.shift.wrong_way": (
        "{what} = {got}, expected {want}: loss target shift wrong, shifted the wrong way (logits of ids[:, 1:] vs"
        " ids[:, :-1]). {rule}",
        "{what} 是 {got}，应为 {want}：目标错开的方向反了，拿 ids[:, 1:] 的 logits 去预测 ids[:, :-1]。{rule}",
        "loss_shift",
    ),
    "checkfail.shift.wrong_way_positions": (
        "{what} = {got}, expected {want}: loss target shift wrong, shifted the wrong way (logits at positions 1.."
        " vs tokens 0..). {rule}",
        "{what} 是 {got}，应为 {want}：目标错开的方向反了，拿位置 1 起的 logits 去预测位置 0 起的 token。{rule}",
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
}
