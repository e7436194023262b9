"""Trusted and public: translate_zh's rules for the hidden suite's messages and the run summary."""

from __future__ import annotations

from .translate_zh_rules import AREAS, rule

__all__ = ["RULES"]

_SUITE = [
    # test_loss.py: a loss that backward() cannot reach through (whole or in part)
    rule(
        "{call} has the right value but backward() never reaches the model's weights: loss detached (a detach(), "
        ".item() or .data on the way cuts the graph, so training would not learn)",
        "{call} 的值是对的，但 backward() 传不到模型的权重：loss detached（途中的 detach()、.item() 或 .data "
        "切断了计算图，训练因此学不到东西）",
    ),
    rule(
        "{call} has the right value, but its gradient (seen on {where}) is not the gradient of that value: loss "
        "detached in part (a detach() on one path?)",
        "{call} 的值是对的，但它的梯度（在 {where} 上观察）不是这个值的梯度：loss detached，部分断开（是不是某条路径上"
        "有 detach()？）",
    ),
    # reference.DECODE_VARIANTS: the decoding mistake with its explanation
    rule(
        "batch rows not independent (row 0's token for every row)",
        "批内各行没有各自独立（⟦batch rows not independent⟧：每一行都接上了第 0 行的 token）",
    ),
    # parameter identity
    rule(
        "lm_head.weight follows the embedding, but the logits do not come from that table: forward uses another "
        "table (copied table, or a head whose .weight is not what it multiplies by)",
        "lm_head.weight 会跟着 embedding 变，但 logits 不是用这张表算出来的：forward 用的是另一张表（⟦copied table⟧，"
        "或者 head 的 .weight 并不是它真正拿来相乘的那个）",
    ),
    rule(
        "the logits for the judge's ids are not those of a MiniGPT holding the recorded weights with the table just "
        "written into token_embed.weight: forward uses another table (copied table, or a head whose .weight is not "
        "what it multiplies by)",
        "对评分程序给出的 id，logits 与一个持有所记录权重、且 token_embed.weight 为刚写入的表的 MiniGPT 不一致："
        "forward 用的是另一张表（⟦copied table⟧，或者 head 的 .weight 并不是它真正拿来相乘的那个）",
    ),
    rule(
        "token_embed.weight is not among model.parameters(), so an optimizer would never train it",
        "token_embed.weight 不在 model.parameters() 里，优化器永远不会训练它",
    ),
    rule(
        "minigpt.token_embed.weight is not among model.parameters(), so an optimizer would never train it",
        "minigpt.token_embed.weight 不在 model.parameters() 里，优化器永远不会训练它",
    ),
    rule(
        "minigpt.pos_embed.weight has the token table's shape {got}, expected {want}: positional embedding tied to "
        "the token embedding (only the head shares the token table)",
        "minigpt.pos_embed.weight 的形状是 token 表的形状 {got}，应为 {want}：位置 embedding 绑到了 token embedding 上"
        "（⟦positional embedding tied⟧；只有 head 与 token 表共享）",
    ),
    rule(
        "positional embedding tied: minigpt.lm_head.weight is pos_embed.weight",
        "绑定了位置 embedding（⟦positional embedding tied⟧）：minigpt.lm_head.weight 就是 pos_embed.weight",
    ),
    rule(
        "changing minigpt.token_embed.weight also changed minigpt.pos_embed.weight: positional embedding tied (only "
        "the token embedding shares its table with the head)",
        "修改 minigpt.token_embed.weight 时 minigpt.pos_embed.weight 也变了：绑定了位置 embedding（⟦positional "
        "embedding tied⟧；只有 token embedding 与 head 共享它的表）",
    ),
    rule(
        "minigpt.lm_head.weight equals the positional table: positional embedding tied instead of token_embed",
        "minigpt.lm_head.weight 等于位置表：绑定的是位置 embedding 而不是 token_embed（⟦positional embedding tied⟧）",
    ),
    rule(
        "model.minigpt.state_dict()['pos_embed.weight'] is not the reported positional table: positional embedding "
        "tied or replaced",
        "model.minigpt.state_dict()['pos_embed.weight'] 不是报告的那张位置表：位置 embedding 被绑定或被替换了"
        "（⟦positional embedding tied⟧）",
    ),
    rule("writing into token_embed.weight in place did not take", "原地写入 token_embed.weight 没有生效"),
    rule("token_embed(input_ids) is not the rows E[input_ids]", "token_embed(input_ids) 不是 E[input_ids] 这些行"),
    rule("token_embed(input_ids) is not E[input_ids]", "token_embed(input_ids) 不等于 E[input_ids]"),
    # parameter counts
    rule(
        "{model} has {n} unique parameters, expected V*D = {want}: two V*D tables: copied table, untied head, .data "
        "sharing (two Parameters over one storage) or tied only after forward (counted right after construction)",
        "{model} 有 {n} 个不重复的参数，应为 V*D = {want}：出现了两张 V*D 的表：可能是复制了一份表（⟦copied table⟧）、"
        "head 没有共享（⟦untied head⟧）、只共享了 .data（⟦.data sharing⟧，即同一块内存上的两个 Parameter），"
        "或者直到 forward 之后才共享（⟦tied only after forward⟧，参数是在刚构造完时统计的）",
    ),
    rule(
        "{model} has {n} unique parameters, expected V*D = {want}: bias on the head (+V parameters)",
        "{model} 有 {n} 个不重复的参数，应为 V*D = {want}：head 上带了 bias（⟦bias on the head⟧；多出 V 个参数）",
    ),
    rule(
        "{model} has {n} unique parameters, expected {want} (untied MiniGPT {untied} minus V*D = {vd}): that is the "
        "untied count (copied table / untied head, or tied only after forward)",
        "{model} 有 {n} 个不重复的参数，应为 {want}（不共享（⟦untied⟧）的 MiniGPT 有 {untied} 个，减去 V*D = {vd}）："
        "这正是不共享"
        "时的参数个数（⟦copied table⟧ / ⟦untied head⟧，或 ⟦tied only after forward⟧）",
    ),
    rule(
        "{model} has {n} unique parameters, expected {want} (untied MiniGPT {untied} minus V*D = {vd}): a "
        "hyper-parameter ignored? (see the state_dict test)",
        "{model} 有 {n} 个不重复的参数，应为 {want}（不共享（⟦untied⟧）的 MiniGPT 有 {untied} 个，减去 V*D = {vd}）："
        "是不是忽略了"
        "某个超参数（⟦hyper-parameter ignored⟧）？（见 state_dict 那项测试）",
    ),
    rule(
        "pos_embed.weight has the token table's shape: positional embedding tied to the token embedding",
        "pos_embed.weight 的形状是 token 表的形状：位置 embedding 绑到了 token embedding 上"
        "（⟦positional embedding tied⟧）",
    ),
    rule(
        "lm_head.weight has the positional table's shape: positional embedding tied",
        "lm_head.weight 的形状是位置表的形状：绑定了位置 embedding（⟦positional embedding tied⟧）",
    ),
    rule(
        "hyper-parameter ignored ({name}): {key} is {got}, expected {want*}",
        "忽略了超参数（⟦hyper-parameter ignored ({name})⟧）：{key} 是 {got}，应为 {want}",
    ),
    rule(
        "hyper-parameter ignored ({name}): {got} blocks, expected {want*}",
        "忽略了超参数（⟦hyper-parameter ignored ({name})⟧）：有 {got} 个解码块，应为 {want} 个",
    ),
    rule(
        "logits differ from a MiniGPT with num_heads={want} (they match a MiniGPT with num_heads={got}): "
        "hyper-parameter ignored (num_heads)",
        "logits 与 num_heads={want} 的 MiniGPT 不同（却与 num_heads={got} 的 MiniGPT 相同）：忽略了超参数"
        "（⟦hyper-parameter ignored (num_heads)⟧）",
    ),
    rule(
        "logits differ from a MiniGPT with num_heads={want}: hyper-parameter ignored (num_heads)",
        "logits 与 num_heads={want} 的 MiniGPT 不同：忽略了超参数（⟦hyper-parameter ignored (num_heads)⟧）",
    ),
    rule(
        "two train-mode forward passes gave the same logits, so no dropout is applied: hyper-parameter ignored "
        "(dropout)",
        "train 模式下两次前向计算得到的 logits 完全相同，说明根本没有用 dropout：忽略了超参数"
        "（⟦hyper-parameter ignored (dropout)⟧）",
    ),
    rule(
        "with dropout=0.0 two train-mode forward passes differ: hyper-parameter ignored (dropout)",
        "dropout=0.0 时 train 模式下两次前向计算结果不同：忽略了超参数（⟦hyper-parameter ignored (dropout)⟧）",
    ),
    rule(
        "dropout probabilities inside minigpt are {got}, expected {want} everywhere: hyper-parameter ignored (dropout)",
        "minigpt 内部的 dropout 概率是 {got}，应当处处为 {want}：忽略了超参数（⟦hyper-parameter ignored (dropout)⟧）",
    ),
    rule(
        "eval-mode logits differ from a MiniGPT with these hyper-parameters",
        "eval 模式下的 logits 与用这些超参数构建的 MiniGPT 不一致",
    ),
    rule("train logits", "train 模式的 logits"),
    rule("eval-mode logits", "eval 模式的 logits"),
    # gradient accumulation
    rule(
        "after one SGD step (optimizer built over model.parameters()) ",
        "在一步 SGD 之后（优化器基于 model.parameters() 构建），",
    ),
    rule(
        "the table moved twice (gradient doubled, or the shared Parameter is stepped twice)",
        "表被更新了两次的量（⟦gradient doubled⟧，或者共享的 Parameter 被更新了两次）",
    ),
    rule("the table moved by half the step (gradient halved)", "表只更新了一半的量（⟦gradient halved⟧）"),
    rule(
        "the table moved by one path's gradient only (only one path: copied table / .data sharing?)",
        "表只按一条路径的梯度移动了（⟦only one path⟧：⟦copied table⟧ / ⟦.data sharing⟧？）",
    ),
    rule(
        "the table did not move: token_embed.weight is not among model.parameters()?",
        "表根本没有动：token_embed.weight 不在 model.parameters() 里？",
    ),
    rule(
        "the table did not move by lr * (sum of both paths' gradients)",
        "表的移动量不等于 lr *（两条路径梯度之和）",
    ),
    rule(
        "lm_head.weight.grad differs from token_embed.weight.grad: .data sharing or copied table (a tied head has "
        "one Parameter, so one .grad)",
        "lm_head.weight.grad 与 token_embed.weight.grad 不同：⟦.data sharing⟧ 或 ⟦copied table⟧（共享的 head 只有一个 "
        "Parameter，因此只有一个 .grad）",
    ),
    rule(
        "lm_head.weight.grad is not the same tensor as token_embed.weight.grad: .data sharing?",
        "lm_head.weight.grad 与 token_embed.weight.grad 不是同一个张量：⟦.data sharing⟧？",
    ),
    rule("\n-> loss target shift wrong? {hint*}", "\n→ loss 的目标错位不对（⟦loss target shift wrong⟧）？{hint}"),
    rule(
        "targets of shape (B, T-1) go with the logits of input_ids[:, :-1]",
        "形状为 (B, T-1) 的 targets 对应 input_ids[:, :-1] 的 logits",
    ),
    rule(
        "targets of shape (B, T) are already shifted: use the logits of all of input_ids",
        "形状为 (B, T) 的 targets 已经错开了一位：应使用全部 input_ids 的 logits",
    ),
    rule(
        "with no targets, predict input_ids[:, 1:] from input_ids[:, :-1]",
        "不给 targets 时，用 input_ids[:, :-1] 预测 input_ids[:, 1:]",
    ),
    rule(
        "{call} = {got}, expected {want}: loss target shift wrong, {name*}",
        "{call} = {got}，应为 {want}：loss 的目标错位不对（⟦loss target shift wrong⟧），{name}",
    ),
    rule("no shift (logits of ids vs ids)", "没有错位（拿 ids 的 logits 对 ids 本身）"),
    rule(
        "shifted the wrong way (logits of ids[:, 1:] vs ids[:, :-1])",
        "错位方向反了（拿 ids[:, 1:] 的 logits 对 ids[:, :-1]）",
    ),
    rule(
        "shifted the wrong way (logits at positions 1.. vs tokens 0..)",
        "错位方向反了（拿位置 1.. 的 logits 对 token 0..）",
    ),
    rule("targets ignored (ids shifted instead)", "忽略了 targets（⟦targets ignored⟧；改为错位 ids）"),
    rule("shifted again (ids[:, :-1] vs targets[:, 1:])", "又错位了一次（拿 ids[:, :-1] 对 targets[:, 1:]）"),
    rule("shifted the wrong way (ids[:, 1:] vs targets[:, :-1])", "错位方向反了（拿 ids[:, 1:] 对 targets[:, :-1]）"),
    rule("shifted the wrong way (ids[:, 1:] vs targets)", "错位方向反了（拿 ids[:, 1:] 对 targets）"),
    rule(
        "{call} = {got} = {n} x {want}: loss not mean (summed over the {m} positions; use the mean cross-entropy)",
        "{call} = {got} = {n} × {want}：loss 不是平均值（⟦loss not mean⟧；对 {m} 个位置求了和，应取交叉熵的平均）",
    ),
    rule(
        "{call} = {got}, {k} x the mean cross-entropy {want}: loss doubled",
        "{call} = {got}，是平均交叉熵 {want} 的 {k} 倍：loss 翻倍（⟦loss doubled⟧）",
    ),
    rule(
        "{call} = {got}, {k} x the mean cross-entropy {want}: loss halved",
        "{call} = {got}，是平均交叉熵 {want} 的 {k} 倍：loss 减半（⟦loss halved⟧）",
    ),
    rule(
        "{call} = {got}, expected the mean next-token cross-entropy {want*}",
        "{call} = {got}，应为下一个 token 的平均交叉熵 {want}",
    ),
    rule("{call} returned shape {got}, expected a scalar (the mean)", "{call} 返回的形状是 {got}，应为标量（平均值）"),
    # argmax generation
    rule("token ids outside [0, V)", "token id 超出了 [0, V)"),
    rule(
        ": new tokens {got}, expected the greedy (argmax) tokens {want}; first difference at new token {n}: ",
        "：新 token 为 {got}，贪心（argmax）解码应得 {want}；第一处差异在第 {n} 个新 token：",
    ),
    rule("it matches a decoder with this mistake: {labels*}", "它与犯了这种错误的解码器结果一致：{labels}"),
    rule(" / wrong crop (first block_size tokens)", " / 截取方式不对（⟦wrong crop⟧；截取了前 block_size 个 token）"),
    rule(" / wrong crop (block_size - 1 tokens)", " / 截取方式不对（⟦wrong crop⟧；只截取了 block_size - 1 个 token）"),
    rule("wrong crop (first block_size tokens)", "截取方式不对（⟦wrong crop⟧；截取了前 block_size 个 token）"),
    rule("wrong crop (block_size - 1 tokens)", "截取方式不对（⟦wrong crop⟧；只截取了 block_size - 1 个 token）"),
    rule("wrong position (logits of the first position)", "取错了位置（⟦wrong position⟧；用了第一个位置的 logits）"),
    rule(
        "wrong position (logits of the second-to-last position)",
        "取错了位置（⟦wrong position⟧；用了倒数第二个位置的 logits）",
    ),
    rule(
        "every row continues like row 0: batch rows not independent (.item() or row 0 used for the batch?)",
        "每一行都和第 0 行续写得一样：批内各行没有各自独立（⟦batch rows not independent⟧；是不是用了 .item()，或者拿"
        "第 0 "
        "行代替了整个批？）",
    ),
    rule(
        "it matches no greedy decoder: sampling instead of argmax, or a wrong position / crop / append",
        "它与任何一种贪心解码器都对不上：用了采样而不是 argmax（⟦sampling instead of argmax⟧），或者位置、截取、接续"
        "有误",
    ),
    rule(
        "\n-> transposed / wrong matmul: logits = x @ W.T with W of shape (V, D)",
        "\n→ 转置了或矩阵乘法写错了（⟦transposed⟧）：logits = ⟦x @ W.T⟧，其中 W 的形状为 (V, D)",
    ),
    rule(
        "the grader hit an internal error ({what*}); tell your instructor", "评分程序内部出错（{what}）；请告诉你的老师"
    ),
    # Last, the phrases the sentences above are built from: the judge's evidence helpers
    # (autograder/judge/evidence.py) and what each experiment is about.
    rule("{what} failed: ", "{what} 运行失败：你的代码抛出了异常 "),
    rule("your code raised ", ""),
    rule("no evidence for {what}: {why*}", "没有 {what} 的结果：{why}"),
    rule("the experiment did not report (see the run output)", "这项实验没有返回结果（见运行输出）"),
    rule("the submission stopped before it ran", "提交在运行到这里之前就停止了"),
    rule("the submission was stopped at the time limit before it ran", "提交在运行到这里之前就因超时被终止"),
    rule("the submission ran out of memory before it ran", "提交在运行到这里之前就耗尽了内存"),
    rule("the submission crashed before it ran", "提交在运行到这里之前就崩溃了"),
    rule(
        "the submission exited early (sys.exit / os._exit) before it ran",
        "提交在运行到这里之前就提前退出了（⟦sys.exit⟧ / ⟦os._exit⟧）",
    ),
    rule("{label} has shape {got}, expected {want*}", "{label} 的形状是 {got}，应为 {want}"),
    rule("{label} has dtype {got}, expected {want*}", "{label} 的 dtype 是 {got}，应为 {want}"),
    rule("{label} contains NaN or inf", "{label} 含有 NaN 或 inf"),
    rule("{label} is a {kind}, expected a plain torch.Tensor", "{label} 是 {kind}，应为普通的 torch.Tensor"),
    rule("no value recorded for {label*}", "没有记录到 {label} 的值"),
    rule("no state_dict recorded for {label*}", "没有记录到 {label} 的 state_dict"),
    rule("malformed evidence for {what*}", "{what} 的记录格式不对"),
    rule("malformed evidence: {what*}", "记录格式不对：{what}"),
    # what each experiment is about
    rule(" after load_state_dict into a fresh model", "（把 state_dict 加载进一个新模型之后）"),
    rule(" after .to(torch.float64)", "（.to(torch.float64) 之后）"),
    rule(" (identity check)", "（同一性检查）"),
    rule(" (parameter count)", "（参数计数）"),
    rule(" (backward)", "（反向传播）"),
    rule(" (loss backward)", "（对 loss 反向传播）"),
    rule(" (SGD step)", "（一步 SGD）"),
    rule(" (state_dict save/load)", "（保存并加载 state_dict）"),
    rule(" (.to(torch.float64))", "（.to(torch.float64)）"),
    rule(" (three target forms)", "（三种 targets 形式）"),
    rule("MiniGPTWithWeightTying (num_heads)", "MiniGPTWithWeightTying（num_heads）"),
    rule("MiniGPTWithWeightTying (dropout)", "MiniGPTWithWeightTying（dropout）"),
    (r" on input_ids of shape (\([\d, ]*\))", r"，input_ids 形状为 \1"),
    rule(" (and {n} more case(s))", "（另有 {n} 个情形同样如此）"),
    rule(
        "generate(input_ids of shape {shape}, max_new_tokens={n}) with block_size={block}",
        "generate(input_ids, max_new_tokens={n})（input_ids 形状为 {shape}，block_size={block}）",
    ),
    # the self-check names the call without block_size
    rule(
        "generate(input_ids of shape {shape}, max_new_tokens={n})",
        "generate(input_ids, max_new_tokens={n})（input_ids 形状为 {shape}）",
    ),
    (r"loss\(ids, targets of shape (\(B, T(?:-1)?\))\)", r"loss(ids, targets)（targets 形状为 \1）"),
]

# The run summary (autograder/result.py): how the run ended, cells that raised, names not defined.
_RUN = [
    rule(
        "Your code ran to the end, but {n} of its cells (or parts) raised an error:",
        "你的代码运行到了最后，但其中有 {n} 个单元格（或部分）抛出了错误：",
    ),
    rule("Your code ran to the end.", "你的代码完整运行结束。"),
    rule(
        "Your code was stopped after {limit} s (time limit): tests that needed results it had not produced yet score "
        "0. Look for an endless loop or a very slow computation.",
        "你的代码运行 {limit} 秒后被终止（时间限制）：需要它尚未产出结果的测试记 0 分。请检查有没有死循环或非常慢的计"
        "算。",
    ),
    rule(
        "Your code ran out of memory (limit {memory}): tests that needed results it had not produced score 0. Look "
        "for a huge tensor or a list that grows without end.",
        "你的代码耗尽了内存（上限 {memory}）：需要它尚未产出结果的测试记 0 分。请检查有没有超大的张量或无限增长的列表"
        "。",
    ),
    rule(
        "Your code ended the grading process early (exit code {code}): remove sys.exit(), os._exit() or quit() from "
        "the submission; tests that needed later results score 0.",
        "你的代码提前结束了评分进程（退出码 {code}）：请从提交中删除 sys.exit()、os._exit() 或 quit()；需要之后结果的"
        "测试"
        "记 0 分。",
    ),
    rule(
        "The Python process running your code crashed (signal {signal}): tests that needed later results score 0.",
        "运行你代码的 Python 进程崩溃了（信号 {signal}）：需要之后结果的测试记 0 分。",
    ),
    rule(
        "Judging what your code produced went past the judge's own time or memory limit: the tests judged before "
        "that keep their points, the others score 0. Tell your instructor if your code is correct.",
        "评判你的代码的输出时，超出了评分程序自身的时间或内存上限：在此之前评判过的测试保留得分，其余记 0 分。"
        "如果你确信代码是正确的，请告诉老师。",
    ),
    rule("Your submission was not run: {why*}", "你的提交没有被运行：{why}"),
    rule(
        "{name} is {size} MiB, over the {limit} MiB limit: clear the notebook's outputs (Edit > Clear Outputs of All "
        "Cells), save, and hand it in again.",
        "{name} 有 {size} MiB，超过了 {limit} MiB 的上限：请清除 notebook 的输出（⟦Edit > Clear Outputs of All "
        "Cells⟧），保存后重新提交。",
    ),
    rule(
        "Cells (or parts of a .py file) are counted from 1 at the top, text cells included.",
        "单元格（或 .py 文件的各部分）从顶部起按 1 开始编号，文本单元格也计算在内。",
    ),
    rule(
        "While loading your submission, cell/part {cell} raised {error*}",
        "加载你的提交时，第 {cell} 个单元格（或部分）抛出了 {error}",
    ),
    rule(
        "Not defined by your submission: {names} (check the exact class names).",
        "你的提交没有定义：{names}（请核对类名的拼写）。",
    ),
    rule("The grader could not grade this submission: {why*}", "评分程序无法评阅这份提交：{why}"),
    rule("Unknown run status {status}.", "未知的运行状态 {status}。"),
]

# Area names, where a message mentions one (the self-check's "Graded area: ...").
_AREAS = [rule(english, f"{chinese}（⟦{english}⟧）") for english, chinese in AREAS.items()]

RULES = _SUITE + _RUN + _AREAS
