"""Trusted and public: translate_zh's rules for diagnosis.py's sentences (shared by the suite and the self-check)."""

from __future__ import annotations

from .translate_zh_rules import rule

__all__ = ["RULES"]

RULES = [
    # tie_problem
    rule(
        ".data sharing: lm_head.weight and token_embed.weight share memory but are two Parameter objects (e.g. "
        "nn.Parameter(token_embed.weight.data)), so their gradients never add up in one .grad, an optimizer counts "
        "the table twice, and the tie breaks on .to(...) or load_state_dict",
        "只共享了 .data（⟦.data sharing⟧）：lm_head.weight 和 token_embed.weight 共用一块内存，却是两个 Parameter "
        "对象（例如 ⟦nn.Parameter(token_embed.weight.data)⟧），所以两端的梯度永远汇不进同一个 .grad，优化器会把这张表"
        "算两次，而且一经 .to(...) 或 load_state_dict，共享就断了",
    ),
    rule(
        "the head's weight follows the embedding but is not reported as the same Parameter object",
        "head 的权重会跟着 embedding 变，但它报告出来的并不是同一个 Parameter 对象",
    ),
    rule(
        "lm_head.weight has the positional table's shape: positional embedding tied instead of token_embed",
        "lm_head.weight 的形状是位置表的形状：绑定的是位置 embedding 而不是 token_embed（⟦positional embedding tied⟧）",
    ),
    rule(
        "lm_head.weight has shape {got}, expected the embedding's {want} (V, D): transposed (a Linear(D, V) already "
        "stores its weight as (V, D)), or not the embedding's table",
        "lm_head.weight 的形状是 {got}，应当与 embedding 的 {want}（即 (V, D)）相同：可能是转置了（⟦transposed⟧；"
        "⟦Linear(D, V)⟧ 本来就把权重存成 (V, D)），也可能用的根本不是 embedding 的表",
    ),
    rule(
        "right after construction the head is not tied; it only becomes tied when forward() runs: tied only after "
        "forward (tie once, when the model is built)",
        "刚构造完时 head 还没有共享，要等 forward() 运行之后才绑定上：直到 forward 之后才共享（⟦tied only after "
        "forward⟧；应当在构建模型时绑定一次）",
    ),
    rule(
        "right after construction the head is not tied; it only becomes tied when forward() runs: tied only after "
        "forward (tie once in __init__)",
        "刚构造完时 head 还没有共享，要等 forward() 运行之后才绑定上：直到 forward 之后才共享（⟦tied only after "
        "forward⟧；应当在 __init__ 里绑定一次）",
    ),
    rule(
        "copied table: lm_head.weight holds a copy of token_embed.weight (same values, separate memory, e.g. "
        ".clone(), copy_() or copy.deepcopy); the two drift apart after the first optimizer step",
        "复制了一份表（⟦copied table⟧）：lm_head.weight 存的是 token_embed.weight 的副本（数值相同、内存各自独立，"
        "例如用了 .clone()、copy_() 或 copy.deepcopy）；第一次优化器更新之后两者就不再一致",
    ),
    *(
        rule(
            "after an in-place change of token_embed.weight (before any forward call), lm_head.weight did not change: "
            "copied table or untied head (copy.deepcopy / .clone() / a new nn.Parameter make a second table" + tail,
            "原地修改 token_embed.weight 之后（此时还没有调用过 forward），lm_head.weight 没有跟着变：复制了一份表或 "
            "head 没有共享（⟦copied table⟧ / ⟦untied head⟧；copy.deepcopy、.clone() 或新建的 nn.Parameter 都会造出"
            "第二张表" + chinese_tail,
        )
        for tail, chinese_tail in (
            (
                "; the head must hold the embedding's Parameter object itself)",
                "；head 必须持有 embedding 的那个 Parameter 对象本身）",
            ),
            (")", "）"),  # the self-check's hint stops before the answer
        )
    ),
    # logits_problem
    rule("forward must return a tensor of logits, got {what}", "forward 应当返回 logits 张量，实际返回的是 {what}"),
    rule(
        "logits have shape {got}, expected {want}: the head scores positions, not tokens (positional embedding tied)",
        "logits 的形状是 {got}，应为 {want}：head 打分的对象是位置而不是 token（⟦positional embedding tied⟧）",
    ),
    rule(
        "forward returns token ids (an argmax?) of shape {got}: it must return logits (B, T, V) = {want}",
        "forward 返回的是形状为 {got} 的 token id（做了 argmax？）：它应当返回 logits (B, T, V) = {want}",
    ),
    rule(
        "forward returns flattened logits {got}: keep the (B, T, V) = {want} shape",
        "forward 返回的是展平后的 logits {got}：应保持 (B, T, V) = {want} 的形状",
    ),
    rule(
        "logits have shape {got}, expected {want} = (B, T, V): transposed / wrong matmul (the head must map "
        "(B, T, D) -> (B, T, V) with x @ W.T, W of shape (V, D)), or vectors that never went through the head",
        "logits 的形状是 {got}，应为 {want} = (B, T, V)：转置了或矩阵乘法写错了（⟦transposed⟧；head 应当用 ⟦x @ W.T⟧ "
        "把 "
        "(B, T, D) 映射到 (B, T, V)，W 的形状为 (V, D)），或者向量根本没有经过 head",
    ),
    rule(
        "forward must return floating-point logits, got dtype {dtype*}",
        "forward 应当返回浮点数的 logits，实际 dtype 为 {dtype}",
    ),
    rule(
        "every row sums to 1: probabilities instead of logits (return the raw scores; softmax belongs in the loss / "
        "sampling)",
        "每一行之和都是 1：输出了概率而不是 logits（⟦probabilities instead of logits⟧；应返回原始分数，softmax 属于 "
        "loss 或采样那一步）",
    ),
    rule(
        "every row is a log-distribution (logsumexp = 0): log-probabilities (log_softmax) instead of logits, i.e. "
        "probabilities instead of logits (return the raw scores)",
        "每一行都是对数分布（logsumexp = 0）：输出了对数概率（⟦log_softmax⟧）而不是 logits，也就是输出了概率而不是 "
        "logits（⟦probabilities instead of logits⟧；应返回原始分数）",
    ),
    rule(
        "logits are {k} times the expected ones: logits scaled (no extra factor such as sqrt(D))",
        "logits 是应有值的 {k} 倍：logits 被缩放了（⟦logits scaled⟧；不要乘 sqrt(D) 之类的额外系数）",
    ),
    rule(
        "logits are off by the same vector at every position: bias on the head (the tied head has no bias)",
        "每个位置的 logits 都偏差同一个向量：head 上带了 bias（⟦bias on the head⟧；共享的 head 没有 bias）",
    ),
    rule(
        "logits have the right shape but wrong values (largest difference {d})",
        "logits 形状正确但数值不对（最大差值 {d}）",
    ),
    # gradient_problem
    rule(
        "token_embed.weight.grad is None: the shared table got no gradient (is it detached or frozen?)",
        "token_embed.weight.grad 是 None：共享的表没有得到梯度（是不是被 detach 了，或者被冻结了？）",
    ),
    rule(
        "gradient doubled: the shared gradient is twice the sum of both paths",
        "梯度翻倍（⟦gradient doubled⟧）：共享梯度是两条路径梯度之和的两倍",
    ),
    rule(
        "gradient halved: the shared gradient is half the sum of both paths",
        "梯度减半（⟦gradient halved⟧）：共享梯度只有两条路径梯度之和的一半",
    ),
    rule(
        "token_embed.weight.grad holds only the {path}-path gradient and lm_head.weight.grad is another tensor: "
        ".data sharing (or an untied/copied table) gives two Parameters, so the two uses never add up in one .grad "
        "(only one path)",
        "token_embed.weight.grad 里只有 {path} 路径的梯度，而 lm_head.weight.grad 是另一个张量：只共享 .data"
        "（⟦.data sharing⟧；或者表没有共享（⟦untied⟧）、被复制（⟦copied table⟧））会得到两个 Parameter，两处用途的梯"
        "度永远加不到同一个 "
        ".grad 里"
        "（⟦only one path⟧）",
    ),
    rule(
        "the shared gradient holds only the {path}-path gradient (only one path): is one use detached?",
        "共享梯度里只有 {path} 路径的梯度（⟦only one path⟧）：是不是有一处用途被 detach 了？",
    ),
    rule(
        "the shared gradient is not the sum of the embedding-path and head-path gradients",
        "共享梯度不等于 embedding 路径与 head 路径梯度之和",
    ),
    # generated_ids_problem / greedy_problem
    rule(
        "generate must return a tensor of token ids, got {what}", "generate 应当返回 token id 张量，实际返回的是 {what}"
    ),
    rule(
        "generate returned dtype {dtype}: not int64 (prompt not preserved as int64 token ids; build the result by "
        "concatenating int64 ids onto the prompt)",
        "generate 返回的 dtype 是 {dtype}：不是 int64（⟦not int64⟧，⟦prompt not preserved⟧：应把 int64 的 id 接在 "
        "prompt 后面来构造结果）",
    ),
    rule(
        "generate returned shape {got}, expected (B, T + max_new_tokens) = {want}: wrong length, only the new tokens "
        "(prompt not preserved, or not exactly max_new_tokens new tokens)",
        "generate 返回的形状是 {got}，应为 (B, T + max_new_tokens) = {want}：长度不对（⟦wrong length⟧），只返回了新 "
        "token（⟦prompt not preserved⟧）",
    ),
    rule(
        "generate returned shape {got}, expected (B, T + max_new_tokens) = {want}: wrong length, a wrong number of "
        "new tokens (prompt not preserved, or not exactly max_new_tokens new tokens)",
        "generate 返回的形状是 {got}，应为 (B, T + max_new_tokens) = {want}：长度不对（⟦wrong length⟧），新 token 的"
        "个数不对（⟦prompt not preserved⟧，或者新 token 不恰好是 max_new_tokens 个）",
    ),
    rule(
        "the first T columns are not the prompt: prompt not preserved",
        "前 T 列不是 prompt：没有保留 prompt（⟦prompt not preserved⟧）",
    ),
    rule(
        "the tokens differ from greedy decoding at row {row}, position {col}: each step runs the model on the last "
        "block_size tokens and appends the argmax of the LAST position's logits (wrong crop, wrong position, "
        "missing append, or sampling instead of argmax)",
        "从第 {row} 行、位置 {col} 起，token 与贪心解码的结果不同：每一步应当在最后 block_size 个 token 上运行模型，"
        "再把最后一个位置 logits 的 argmax 接到末尾（可能是 ⟦wrong crop⟧、⟦wrong position⟧、⟦missing append⟧ "
        "或 ⟦sampling instead of argmax⟧）",
    ),
    # the end of a sentence above, in the suite's messages (the self-check's hints stop before it)
    # "(reread section 7, "Gradients from both ends add up")": the headings, as the Chinese edition words them
    *(
        rule(f'section {number}, "{english}"', f"第 {number} 节「⟦{chinese}⟧」")
        for number, english, chinese in (
            (2, "An embedding is a lookup, not arithmetic on ids", "Embedding 是查表，而不是拿 id 做算术"),
            (4, "Positions have their own table, and it is never tied", "位置有自己的表，而且从不参与共享"),
            (5, "Logits, not probabilities", "输出的是 logits，不是概率"),
            (6, "Exercise 1: `TiedEmbeddingLM`", "练习 1：`TiedEmbeddingLM`"),
            (7, "Gradients from both ends add up", "两端的梯度相加"),
            (8, "What tying saves", "共享省下了多少"),
            (9, "Exercise 2: `MiniGPTWithWeightTying`", "练习 2：`MiniGPTWithWeightTying`"),
        )
    ),
    (r" ?\(reread (第 [^()\n]*?」)\)", r"（请重读\1）"),
    (r"」 and (第 )", r"」和\1"),
    rule(
        ": the head must hold the embedding's Parameter object itself",
        "：head 必须持有 embedding 的那个 Parameter 对象本身",
    ),
    rule(
        "; the head must hold the embedding's Parameter object itself, not its storage",
        "；head 必须持有 embedding 的 Parameter 对象本身，而不只是它的存储",
    ),
    rule(
        "not int64 (token ids are integers: a dtype slip; the result is the prompt's own int64 ids followed by the "
        "new ones)",
        "不是 int64（⟦not int64⟧：token id 是整数，这是 dtype 上的疏忽；结果应当是 prompt 自己的 int64 id，"
        "后面接上新生成的 id）",
    ),
    rule(
        "two calls returned different tokens: sampling instead of argmax (greedy decoding takes the most likely token "
        "every step)",
        "两次调用返回的 token 不同：用了采样而不是 argmax（⟦sampling instead of argmax⟧；贪心解码每一步都取最可能的 t"
        "oken）",
    ),
]
