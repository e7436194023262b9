"""Trusted and public: translate_zh's rules for the self-check and the notebook's practice cells.

Their messages are written in assignments/source/weight_tying/ (conftest.py, weight_tying_checks/); the
self-check speaks Chinese through these rules when the edition or WEIGHT_TYING_LANG says so.
"""

from __future__ import annotations

from .translate_zh_rules import rule

__all__ = ["RULES"]

_TITLES = [
    ("token_embed.weight is a (V, D) table", "token_embed.weight 是一张 (V, D) 的表"),
    ("lm_head.weight is token_embed.weight, from construction on", "从构造起，lm_head.weight 就是 token_embed.weight"),
    ("the model holds V * D parameters: one table, no bias", "模型恰有 V * D 个参数：一张表，没有 bias"),
    (
        "forward returns the logits E[ids] @ E.T, shape (B, T, V)",
        "forward 返回 logits ⟦E[ids] @ E.T⟧，形状为 (B, T, V)",
    ),
    (
        "the shared .grad is the lookup path's gradient plus the head path's",
        "共享的 .grad 等于查表路径的梯度加上 head 路径的梯度",
    ),
    ("self.minigpt is a dnnlpy MiniGPT", "self.minigpt 是 dnnlpy 的 MiniGPT"),
    (
        "its head is its token table; the positional table stays separate",
        "它的 head 就是它的 token 表；位置表保持独立",
    ),
    (
        "every hyper-parameter reaches the MiniGPT (sizes, num_heads, dropout)",
        "每个超参数都传给了 MiniGPT（各个尺寸、num_heads、dropout）",
    ),
    ("forward returns the MiniGPT's logits (B, T, V)", "forward 返回 MiniGPT 的 logits (B, T, V)"),
    (
        "loss(ids): next-token cross-entropy of ids[:, 1:] given ids[:, :-1]",
        "loss(ids)：由 ids[:, :-1] 预测 ids[:, 1:] 的下一个 token 交叉熵",
    ),
    (
        "loss(ids, targets) with targets of shape (B, T-1), the chapter's form",
        "loss(ids, targets)，targets 形状为 (B, T-1)（教材的写法）",
    ),
    (
        "loss(ids, targets) with targets of shape (B, T), nanoGPT's form",
        "loss(ids, targets)，targets 形状为 (B, T)（nanoGPT 的写法）",
    ),
    (
        "generate runs its own loop (no MiniGPT.generate, no dnnlpy sampling helper)",
        "generate 运行的是你自己的循环（不调用 MiniGPT.generate，也不调用 dnnlpy 的采样辅助函数）",
    ),
    (
        "generate keeps the prompt and appends the argmax of the last position, step by step",
        "generate 保留 prompt，并逐步把最后一个位置的 argmax 接到末尾",
    ),
    (
        "past block_size, each step sees only the last block_size tokens",
        "超过 block_size 之后，每一步只看最后 block_size 个 token",
    ),
]

RULES = [
    # framework.py and the practice cells
    rule("not checked until {name} passes: fix that one first", "尚未检查：要等 {name} 通过之后才检查，请先修正那一项"),
    rule("not checked because {cls} is not defined", "尚未检查：{cls} 没有定义"),
    rule(
        "\nReread notebook section {n}. Graded area: {area}.", "\n请重读 notebook 第 {n} 节。对应的评分领域：{area}。"
    ),
    rule("\nGraded area: {area}.", "\n对应的评分领域：{area}。"),
    rule(
        "{what} is not implemented yet: replace `raise NotImplementedError()` in its cell",
        "{what} 还没有实现（⟦not implemented yet⟧）：把它所在单元格里的 `raise NotImplementedError()` 换成你的代码",
    ),
    # what the student's code raised, where (its own words stay verbatim, between 「」)
    (
        r"(?P<what>(?:TiedEmbeddingLM|MiniGPTWithWeightTying|loss\.backward)\S*(?: [^\n:]*?)?) raised (?P<exc>\w+)"
        r" \(at cell (?P<cell>\d+), line (?P<line>\d+)\): ",
        r"\g<what> 抛出了 \g<exc>（位于第 \g<cell> 个单元格第 \g<line> 行）：",
    ),
    (
        r"(?P<what>(?:TiedEmbeddingLM|MiniGPTWithWeightTying|loss\.backward)\S*(?: [^\n:]*?)?) raised (?P<exc>\w+)"
        r" \(at (?P<file>[^,\n]+), line (?P<line>\d+)\): ",
        r"\g<what> 抛出了 \g<exc>（位于 ⟦\g<file>⟧ 第 \g<line> 行）：",
    ),
    (
        r"(?P<what>(?:TiedEmbeddingLM|MiniGPTWithWeightTying|loss\.backward)\S*(?: [^\n:]*?)?) raised (?P<exc>\w+): ",
        r"\g<what> 抛出了 \g<exc>：",
    ),
    rule(
        "{owner} has no attribute {name}: the contract requires self.{attr*}",
        "{owner} 没有属性 {name}：题目要求有 self.{attr}",
    ),
    rule(
        "{n} of the {group} checks did not pass: see the lines marked above",
        "「{group}」这组检查中有 {n} 项没有通过：见上面标出的行",
    ),
    rule(
        "All passed. These checks are a preview and worth no points: the hidden suite grades.",
        "全部通过。这些检查只是预演，不计分：成绩由隐藏测试给出。",
    ),
    *(rule(english, chinese) for english, chinese in _TITLES),
    # conftest.py
    rule("{file} does not define {cls} after running all its cells.", "{file} 运行完所有单元格之后，没有定义 {cls}。"),
    rule(
        " Cells that raised (counting from 1 at the top, markdown included):",
        "抛出异常的单元格（从顶部第 1 个开始数，markdown 单元格也计入）：",
    ),
    rule(" No cell raised: check the class name's spelling.", "没有单元格抛出异常：请检查类名的拼写。"),
    rule("  cell {n}: ", "  第 {n} 个单元格："),
    rule("  waiting for {name}: {names*}", "  等待 {name}：{names}"),
    rule(
        "weight-tying self-check of {path}  (another file: WEIGHT_TYING_SUBMISSION=path pytest)",
        "权重共享作业自检：{path}（检查其他文件：⟦WEIGHT_TYING_SUBMISSION=path pytest⟧）",
    ),
    rule(
        "not checked yet: they run once the failure they wait for is fixed",
        "尚未检查：它们等待的那项检查修正之后才会运行",
    ),
    rule("cells that raised while your notebook ran top to bottom", "notebook 从上到下运行时抛出异常的单元格"),
    rule("  ... and {n} more", "  ……另有 {n} 个"),
    rule(
        "(cells count from 1, markdown included; NotImplementedError means a stub is still in place)",
        "（单元格从 1 开始数，markdown 单元格也计入；NotImplementedError 表示还有桩代码没有替换）",
    ),
    rule("what this self-check covers", "这份自检检查了什么"),
    rule("Checked here, on small models built from your classes:", "在用你的类构造的小模型上，这里检查："),
    rule("The graded (hidden) suite checks more, for example:", "计分的（隐藏）测试检查得更多，例如："),
    rule("other sizes, seeds and default arguments", "其他尺寸、随机种子和默认参数"),
    rule(
        "the tie surviving .to(torch.float64), load_state_dict and an optimizer step",
        "共享关系在 .to(torch.float64)、load_state_dict 和一步优化器更新之后是否依然成立",
    ),
    rule("the wrapper's shared gradient and its SGD step", "包装类的共享梯度及其 SGD 更新"),
    rule(
        "generation on other models and prompts, and other corner cases",
        "在其他模型和 prompt 上的生成，以及其他边界情况",
    ),
    rule(
        "These checks are worth no points: the hidden suite grades. Save the notebook before running pytest.",
        "这些检查不计分：成绩由隐藏测试给出。运行 pytest 之前请先保存 notebook。",
    ),
    rule("no submission at ${var}={path}: set {hint*}", "在 ${var}={path} 找不到提交：请设置 {hint}"),
    rule("no submission at the default {path}: set {hint*}", "在默认位置 {path} 找不到提交：请设置 {hint}"),
    rule(
        "{path} is neither a .ipynb nor a .py file: point {var} at your notebook",
        "{path} 既不是 .ipynb 也不是 .py 文件：请让 {var} 指向你的 notebook",
    ),
    rule(
        "{path} is not a notebook (invalid JSON: {why}); for a .py file use exec_source()",
        "{path} 不是 notebook（JSON 无效：「{why}」）；请检查文件是否完整保存",
    ),
    rule(
        "{var}={value} is not a language of this assignment: use one of {langs*}",
        "{var}={value} 不是本作业支持的语言：请从 {langs} 中选一个",
    ),
    # tied.py
    rule(
        "{owner}.token_embed.weight is a {kind}, expected an nn.Parameter",
        "{owner}.token_embed.weight 是 {kind}，应为 nn.Parameter",
    ),
    rule(
        "{owner}.lm_head.weight is a {kind}: the head must hold the one shared nn.Parameter",
        "{owner}.lm_head.weight 是 {kind}：head 应当持有那一个共享的 nn.Parameter",
    ),
    rule(
        "token_embed.weight has shape {got}, expected (V, D) = {want*}",
        "token_embed.weight 的形状是 {got}，应为 (V, D) = {want}",
    ),
    rule(
        "lm_head has a bias of shape {shape}: bias on the head (the tied head is the table alone, so logits = "
        "E[ids] @ E.T with nothing added)",
        "lm_head 带有形状为 {shape} 的 bias：head 上带了 bias（⟦bias on the head⟧；共享的 head 只有这张表，logits = "
        "⟦E[ids] @ E.T⟧，不再加任何东西）",
    ),
    rule(
        "{model} holds {n} parameters {names}, expected V * D = {want}: a second (V, D) table: copied table or untied"
        " head",
        "{model} 有 {n} 个参数 {names}，应为 V * D = {want}：多了第二张 (V, D) 的表：复制了一份表或 head 没有共享"
        "（⟦copied table⟧ / ⟦untied head⟧）",
    ),
    rule(
        "{model} holds {n} parameters {names}, expected V * D = {want}: extra parameters",
        "{model} 有 {n} 个参数 {names}，应为 V * D = {want}：多了额外的参数",
    ),
    rule(
        "the logits grow like the table, not like its square, when token_embed.weight is scaled: the head scores with "
        "another table (copied table, or a head whose .weight is not what it multiplies by)",
        "把 token_embed.weight 放大时，logits 与表成正比增长，而不是随它的平方增长：head 是用另一张表打分的"
        "（⟦copied table⟧，或者 head 的 .weight 并不是它真正拿来相乘的那个）",
    ),
    # wrapper.py
    rule(
        "self.minigpt is a {kind}: it must be a dnnlpy.models.gpt.MiniGPT",
        "self.minigpt 是 {kind}：它必须是 dnnlpy.models.gpt.MiniGPT",
    ),
    rule(
        "minigpt.pos_embed.weight is the token table, of shape {shape}, where a (block_size, D) = {want} table of "
        "positions belongs: positional embedding tied to the token table (only the head shares the token table)",
        "minigpt.pos_embed.weight 就是 token 表，形状为 {shape}，而这里应当是一张 (block_size, D) = {want} 的位置表："
        "位置 embedding 绑到了 token 表上（⟦positional embedding tied⟧；只有 head 与 token 表共享）",
    ),
    rule("the MiniGPT is untied or wrongly tied: ", "这个 MiniGPT 没有共享或者共享方式不对："),
    rule(
        "changing token_embed.weight also changed pos_embed.weight: positional embedding tied",
        "修改 token_embed.weight 时 pos_embed.weight 也变了：绑定了位置 embedding（⟦positional embedding tied⟧）",
    ),
    rule(
        "self.minigpt was built with {name}={got}, not the {name2}={want} given: hyper-parameter ignored ({name3})",
        "self.minigpt 是用 {name}={got} 构建的，而不是传入的 {name2}={want}：忽略了超参数"
        "（⟦hyper-parameter ignored ({name3})⟧）",
    ),
    rule(
        "self.minigpt's weights have other shapes than a MiniGPT({args}): pass every size on",
        "self.minigpt 的权重形状与 MiniGPT({args}) 不同：请把每个尺寸参数都传下去",
    ),
    rule(
        "self.minigpt computes with num_heads={got}, not the num_heads={want} given: hyper-parameter ignored "
        "(num_heads)",
        "self.minigpt 实际用的是 num_heads={got}，而不是传入的 num_heads={want}：忽略了超参数"
        "（⟦hyper-parameter ignored (num_heads)⟧）",
    ),
    rule(
        "self.minigpt's logits are not those of a MiniGPT with these weights and hyper-parameters",
        "self.minigpt 的 logits 与持有这些权重、使用这些超参数的 MiniGPT 不一致",
    ),
    rule(
        "with dropout=0.5, two forward passes in train mode gave the same logits: hyper-parameter ignored (dropout)",
        "dropout=0.5 时，train 模式下两次前向计算得到的 logits 完全相同：忽略了超参数"
        "（⟦hyper-parameter ignored (dropout)⟧）",
    ),
    rule(
        "targets of shape (B, T-1) (the chapter's form) are the next tokens of input_ids[:, :-1]",
        "形状为 (B, T-1) 的 targets（教材的写法）是 input_ids[:, :-1] 各位置的下一个 token",
    ),
    rule(
        "targets of shape (B, T) (nanoGPT's form) are already shifted: they go with the logits of all of input_ids",
        "形状为 (B, T) 的 targets（nanoGPT 的写法）已经错开了一位：它们对应全部 input_ids 的 logits",
    ),
    rule(": loss target shift wrong?", "：loss 的目标错位不对（⟦loss target shift wrong⟧）？"),
    rule(
        "{what} returned {got}, expected a scalar tensor: the mean cross-entropy over positions",
        "{what} 返回的是 {got}，应为标量张量：各位置交叉熵的平均值",
    ),
    rule(
        ": loss doubled, so the shared table's gradient is doubled too (gradient doubled): autograd already adds both"
        " paths",
        "：loss 翻倍（⟦loss doubled⟧），共享表的梯度也随之翻倍（⟦gradient doubled⟧）：autograd 已经把两条路径加起来了",
    ),
    rule(
        ": loss halved, so the shared table's gradient is halved too (gradient halved): autograd already adds both pa"
        "ths",
        "：loss 减半（⟦loss halved⟧），共享表的梯度也随之减半（⟦gradient halved⟧）：autograd 已经把两条路径加起来了",
    ),
    rule("{call} = {got}, {k} x the mean cross-entropy {want}", "{call} = {got}，是平均交叉熵 {want} 的 {k} 倍"),
    # generation.py
    rule(
        "generate called {names}: delegated generate (the library decodes, not your code). Write the loop "
        "yourself: the forward pass self.minigpt(...) and torch.argmax are all it needs",
        "generate 调用了 {names}：把生成交给了库（⟦delegated generate⟧；是库在解码，而不是你的代码）。请自己写这个"
        "循环：只需要前向计算 ⟦self.minigpt(...)⟧ 和 torch.argmax",
    ),
    rule(
        "\ngenerate works for one row but not for a batch of {n}: batch rows not independent (a .item() or row 0 used "
        "for the whole batch?)",
        "\ngenerate 对一行输入能运行，对 {n} 行的批却不行：批内各行没有各自独立（⟦batch rows not independent⟧；是不是"
        "用了 .item()，或者拿第 0 行代替了整个批？）",
    ),
    rule(
        "\nThe tokens are those of a decoder with this mistake: ", "\n这些 token 与犯了下面这种错误的解码器结果一致："
    ),
    rule(
        "missing append (every step sees the prompt only)",
        "漏了接到末尾（⟦missing append⟧；每一步看到的都只是 prompt）",
    ),
    rule(
        "\nno crop: past block_size the position table has no row for the new positions; feed the model only the "
        "last block_size tokens at each step",
        "\n没有截取上下文（⟦no crop⟧）：超过 block_size 之后，位置表里没有新位置对应的行；每一步只把最后 block_size 个 "
        "token 送进模型",
    ),
    rule("generate works for one row", "generate 对一行输入能运行"),
    rule(
        "\ngenerate works for a batch of 3 but not for a batch of one: batch of one (a squeeze() that also drops the "
        "batch dimension when B = 1?)",
        "\ngenerate 对 3 行的批能运行，批大小为 1 时却不行（⟦batch of one⟧；是不是 squeeze() 在 B = 1 时把批这一维也"
        "去掉了？）",
    ),
    rule(
        "token_embed was built with {name}={value}: its row gets no gradient from the lookup ({kw}); a plain "
        "nn.Embedding(V, D) is the table",
        "token_embed 构建时用了 {name}={value}：这一行得不到查表路径的梯度（⟦{kw}⟧）；这张表应当就是普通的 "
        "nn.Embedding(V, D)",
    ),
    rule(
        "token_embed was built with {name}={value}: each lookup renormalises, and rewrites, the rows it reads ({kw}); "
        "a plain nn.Embedding(V, D) is the table",
        "token_embed 构建时用了 {name}={value}：每次查表都会把读到的行重新归一化，并写回表里（⟦{kw}⟧）；这张表应当就是"
        "普通的 nn.Embedding(V, D)",
    ),
    rule(
        "token_embed was built with {name}={value}: an id looked up k times gets 1/k of its lookup gradient ({kw}); "
        "a plain nn.Embedding(V, D) is the table",
        "token_embed 构建时用了 {name}={value}：一个 id 被查了 k 次，只得到查表梯度的 1/k（⟦{kw}⟧）；这张表应当就是"
        "普通的 nn.Embedding(V, D)",
    ),
    rule(
        "self.minigpt.{layer} has {setting}={got} where MiniGPT's own layer has {setting2}={want}: {kw} (a replaced "
        "or rebuilt layer must compute exactly what MiniGPT's does)",
        "self.minigpt.{layer} 的 {setting}={got}，而 MiniGPT 自己的这一层是 {setting2}={want}：⟦{kw}⟧（替换或重建的层"
        "必须与 MiniGPT 原来的层算得完全一样）",
    ),
    rule(
        "forward's logits differ from self.minigpt(input_ids) (largest difference {d}): forward skips part of MiniGPT "
        "or computes a part differently (positional embedding, blocks, final norm, head: all of them, in order)",
        "forward 的 logits 与 self.minigpt(input_ids) 不同（最大差值 {d}）：forward 跳过了 MiniGPT 的一部分"
        "（⟦skips part of MiniGPT⟧），或者某一部分算法不同（位置 embedding、解码块、最后的 norm、head，一个都不能少，"
        "顺序也不能变）",
    ),
]
