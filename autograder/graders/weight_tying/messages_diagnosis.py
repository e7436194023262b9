"""Both sides (public, copied into each release): diagnosis.py's messages, English and Chinese side by side.
Part of the message catalog (messages.py assembles it): id -> (English, Chinese), or (English, Chinese,
misconception) for a message that names one of the marking scheme's misconceptions: a finding reads that id, never
the wording, so either language can be reworded without moving a mark. Values are formatted by diagnosis.py before
they are filled in. Imports nothing."""

from __future__ import annotations

__all__ = ["MESSAGES"]

_ITSELF_EN = "the head must hold the embedding's Parameter object itself"
_ITSELF_ZH = "LM head 必须持有 token embedding 的那个参数对象本身"

MESSAGES = {
    "diag.reread": (" (reread {sections})", "。请重读{sections}。"),
    "diag.see": (" (the task is in {sections})", "。题目要求见{sections}。"),
    "diag.reread.section": ('section {number}, "{heading}"', "第 {number} 节“{heading}”"),
    "diag.reread.and": (" and ", "和"),
    # tie_problem
    "diag.tie.data_sharing": (
        "lm_head.weight is a second Parameter object on the token table's memory (.data sharing: "
        "nn.Parameter(token_embed.weight), or one built on its .data), and two Parameters keep two gradients: "
        "they never add up in one .grad, an optimizer updates the table "
        "twice, and a cast or a move to another device (.to(torch.float64), .half()) or copy.deepcopy gives each "
        "its own memory again; " + _ITSELF_EN + ", not its storage",
        "LM head 的权重是另建的参数对象，与 token embedding 的表共用同一块内存（比如 nn.Parameter(token_embed.weight)，"
        "或者只共享了它的 .data）。两个参数对象的梯度分开累积，永远汇不进同一个 .grad，优化器会"
        "把这张表更新两次；而且只要转换 dtype 或设备（.to(torch.float64)、.half()），或者用 copy.deepcopy 复制模型，"
        "两者就又各有各的内存。LM head 必须持有 token embedding 的那个参数对象本身，而不只是它的内存",
        "data_sharing",
    ),
    "diag.tie.not_same_object": (
        "the head's weight follows the embedding but is not reported as the same Parameter object",
        "LM head 的权重会跟着 token embedding 变，但它并不是同一个参数对象",
    ),
    "diag.tie.positional": (
        "lm_head.weight has the positional table's shape: positional embedding tied instead of token_embed",
        "LM head 的权重与位置表形状相同：LM head 共享的是 positional embedding 的表，而不是 token embedding 的表",
        "positional_tied",
    ),
    "diag.tie.shape": (
        "lm_head.weight has shape {got}, expected the embedding's {want} (V, D): transposed (a Linear(D, V) "
        "already stores its weight as (V, D)), or not the embedding's table",
        "LM head 的权重形状是 {got}，应当与 token embedding 的 {want}（即 (V, D)）相同：可能是转置了（"
        "D 到 V 的线性层本来就把权重存成 (V, D)），也可能用的根本不是 token embedding 的表",
        "transposed",
    ),
    "diag.tie.flag_off": (
        "untied head: self.minigpt was built with weight_tying=False (left out, the flag is False too: MiniGPT "
        "ties only when asked), so its lm_head keeps a second (V, D) table of its own",
        "self.minigpt 是以 weight_tying=False 构建的（不传这个参数时默认也是 False：MiniGPT 只在明确要求时才"
        "共享权重），所以它的 LM head 没有共享 token embedding 的表，而是保留了一张自己的 (V, D) 表",
        "two_tables",
    ),
    "diag.tie.after_forward": (
        "right after construction the head is not tied; it only becomes tied when forward() runs: "
        "tied only after forward (tie once, when the model is built)",
        "模型构建完成时，LM head 还没有共享 token embedding 的表，要等 forward 运行之后才共享："
        "应当在构建模型时就让两者共享，而且只做一次",
        "tied_after_forward",
    ),
    "diag.tie.copied": (
        "copied table: lm_head.weight holds a copy of token_embed.weight (made with .clone(), copy_() or "
        "copy.deepcopy, for example): the same values in memory of its own, so the two drift apart after the first "
        "optimizer step; " + _ITSELF_EN,
        "复制了一份表：LM head 存的是 token embedding 权重的副本（例如用 .clone()、copy_() 或 copy.deepcopy 得到的），"
        "数值虽然相同，内存却各自独立，第一次优化器更新之后两者就不再一致；" + _ITSELF_ZH,
        "two_tables",
    ),
    "diag.tie.untied": (
        "after an in-place change of token_embed.weight (before any forward call), lm_head.weight did not "
        "change: copied table or untied head (copy.deepcopy, .clone(), or a new nn.Parameter around a copy of the "
        "weights, a fresh tensor, make a second table; " + _ITSELF_EN + ")",
        # the self-check shows this without the title: the cause is said, but not in the title's words again
        "原地修改 token embedding 的表之后（此时还没有运行过 forward），LM head 的权重没有跟着变，可见它用的不是"
        "这张表。copy.deepcopy、.clone()，或者用 nn.Parameter 包住权重的副本（一个新的张量），都会产生第二张表；"
        + _ITSELF_ZH,
        "two_tables",
    ),
    # logits_problem
    "diag.logits.not_tensor": (
        "forward must return a tensor of logits, got {kind}",
        "forward 应当返回 logits 张量，实际返回的是 {kind}",
    ),
    "diag.logits.scores_positions": (
        "logits have shape {got}, expected {want}: at each position the head scores the positions of the positional "
        "table, not the V tokens of the vocabulary the next token is chosen from (positional embedding tied)",
        "logits 的形状是 {got}，应为 {want}：在每个位置上，LM head 打分的对象是位置表里的各个位置，而不是词表里的 V 个 "
        "token（预测下一个 token 要的是后者）",
        "positional_tied",
    ),
    "diag.logits.ids": (
        "forward returns token ids (an argmax?) of shape {got}: it must return logits (B, T, V) = {want}",
        "forward 返回的是形状为 {got} 的 token id（做了 argmax？），应当返回 logits (B, T, V) = {want}",
        "logits_shape",
    ),
    "diag.logits.flat": (
        "forward returns flattened logits {got}: keep the (B, T, V) = {want} shape",
        "forward 返回的是展平后的 logits {got}，应保持 (B, T, V) = {want} 的形状",
        "logits_shape",
    ),
    "diag.logits.shape": (
        "logits have shape {got}, expected {want} = (B, T, V): forward must return the head's V scores at every "
        "position (the head maps each D-vector to V scores with the (V, D) table); vectors that never went "
        "through the head, or a product of another size, are not the logits",
        "logits 的形状是 {got}，应为 {want} = (B, T, V)：forward 应当在每个位置返回 LM head 给出的 V 个分数（LM head "
        "用 (V, D) 的表把每个 D 维向量映射成 V 个分数）；没有经过 LM head 的向量，或者别的尺寸的乘积，都不是 logits",
        "logits_shape",
    ),
    "diag.logits.dtype": (
        "forward must return floating-point logits, got dtype {dtype}",
        "forward 应当返回浮点数的 logits，实际 dtype 为 {dtype}",
    ),
    "diag.logits.probabilities": (
        "every row sums to 1: probabilities instead of logits (return the raw scores; softmax belongs in "
        "the loss / sampling)",
        "forward 输出的每一行之和都是 1，说明返回的是概率而不是 logits。应返回未归一化的分数，softmax 留给 loss "
        "或采样时再做",
        "probabilities",
    ),
    "diag.logits.log_probabilities": (
        "every row is a log-distribution (logsumexp = 0): log-probabilities (log_softmax) instead of logits, "
        "i.e. probabilities instead of logits (return the raw scores)",
        "每一行的 logsumexp 都是 0：输出的是对数概率（log_softmax 的结果），而不是 logits；应返回未归一化的原始分数",
        "probabilities",
    ),
    "diag.logits.scaled": (
        "logits are {scale} times the expected ones: logits scaled (no extra factor such as sqrt(D))",
        "logits 是应有值的 {scale} 倍：logits 被缩放了；不要乘 sqrt(D) 之类的额外系数",
        "logits_scaled",
    ),
    "diag.logits.bias": (
        "logits are off by the same vector at every position: bias on the head (the tied head has no bias)",
        "每个位置的 logits 都多加了同一个向量：LM head 带了偏置；共享权重的 LM head 不应有偏置",
        "head_bias",
    ),
    "diag.logits.values": (
        "logits have the right shape but wrong values (largest difference {diff})",
        "logits 形状正确但数值不对（最大差值 {diff}）",
    ),
    # gradient_problem and its per-row causes; the rows listed with each language's mark ("第 1、2、7 行")
    "diag.rows.sep": (", ", "、"),
    "diag.grad.padding_idx": (
        "rows {rows} of the shared gradient hold only the head-path part, every other row both parts: the lookup "
        "never passes a gradient to those ids (padding_idx on the embedding)",
        "共享表的 .grad 中第 {rows} 行只有 LM head 路径的那一份，其他行两份都有：查表从不把梯度传给这些 id"
        "（token embedding 上设了 padding_idx）",
        "embedding_gradient_option",
    ),
    "diag.grad.scale_grad_by_freq": (
        "rows {rows} get their lookup-path gradient divided by how often the id occurs in the batch: "
        "scale_grad_by_freq on the embedding (the shared gradient is the plain sum of both paths)",
        "第 {rows} 行查表路径的梯度被除以了该 id 在 batch 中出现的次数：token embedding 上设了 scale_grad_by_freq；"
        "共享的梯度应当是两条路径梯度的简单相加",
        "embedding_gradient_option",
    ),
    "diag.grad.none": (
        "token_embed.weight.grad is None: the shared table got no gradient (is it detached or frozen?)",
        "token embedding 权重的 .grad 是 None：共享的表没有得到梯度（是不是被 detach 了，或者被冻结了？）",
    ),
    "diag.grad.doubled": (
        "gradient doubled: the shared table's .grad is twice the sum of both paths' gradients (for example "
        "register_hook on the table with a function that multiplies its gradient by 2); autograd already adds "
        "up the two paths' gradients, nothing more is needed",
        "梯度翻倍：共享表的 .grad 是两条路径梯度之和的两倍（例如用 register_hook 给这张表加了一个"
        "把梯度乘以 2 的函数）；autograd 会自动把两条路径的梯度相加，不需要再做处理",
        "gradient_scaled",
    ),
    "diag.grad.halved": (
        "gradient halved: the shared table's .grad is half the sum of both paths' gradients (for example "
        "register_hook on the table with a function that divides its gradient by 2); autograd already adds "
        "up the two paths' gradients, nothing more is needed",
        "梯度减半：共享表的 .grad 只有两条路径梯度之和的一半（例如用 register_hook 给这张表加了一个"
        "把梯度除以 2 的函数）；autograd 会自动把两条路径的梯度相加，不需要再做处理",
        "gradient_scaled",
    ),
    "diag.grad.two_parameters.embedding": (
        "token_embed.weight.grad holds only the embedding-path gradient and lm_head.weight.grad is another "
        "tensor: .data sharing (or an untied/copied table) gives two Parameters, so the two uses never add up in "
        "one .grad (only one path)",
        "token embedding 权重的 .grad 里只有查表路径的梯度，而 LM head 的 .grad 是另一个张量：只共享 .data，或者 LM "
        "head 没有共享这张表、复制了一份表，都会得到两个参数对象，两条路径的梯度永远加不到同一个 .grad 里",
        "only_one_path",
    ),
    "diag.grad.two_parameters.head": (
        "token_embed.weight.grad holds only the head-path gradient and lm_head.weight.grad is another "
        "tensor: .data sharing (or an untied/copied table) gives two Parameters, so the two uses never add up in "
        "one .grad (only one path)",
        "token embedding 权重的 .grad 里只有 LM head 路径的梯度，而 LM head 的 .grad 是另一个张量：只共享 .data，"
        "或者 LM head 没有共享这张表、复制了一份表，都会得到两个参数对象，两条路径的梯度永远加不到同一个 .grad 里",
        "only_one_path",
    ),
    "diag.grad.one_path.embedding": (
        "the shared gradient holds only the embedding-path gradient (only one path): is one use detached?",
        "共享的梯度里只有查表路径的梯度：可能有一条路径被 detach 了",
        "only_one_path",
    ),
    "diag.grad.one_path.head": (
        "the shared gradient holds only the head-path gradient (only one path): is one use detached?",
        "共享的梯度里只有 LM head 路径的梯度：可能有一条路径被 detach 了",
        "only_one_path",
    ),
    "diag.grad.not_sum": (
        "the shared gradient is not the sum of the embedding-path and head-path gradients",
        "共享的梯度不等于查表路径与 LM head 路径的梯度之和",
    ),
    # lookup_problem
    "diag.lookup.shape": (
        "token_embed(input_ids) has shape {got}, expected (B, T, D) = {want}",
        "token embedding 查表的结果形状是 {got}，应为 (B, T, D) = {want}",
    ),
    "diag.lookup.max_norm": (
        "token_embed(input_ids) returns the right rows with their norms capped at {cap}: max_norm on the "
        "embedding renormalises (and rewrites) every looked-up row",
        "token embedding 查到的行是对的，但范数被截到了 {cap}：token embedding 上的 max_norm 会把每个查到的行重新归一化"
        "（并改写表本身）",
        "max_norm",
    ),
    "diag.lookup.rows": (
        "token_embed(input_ids) is not the rows E[input_ids]",
        "token embedding 查表的结果不是 E 中 input_ids 对应的那些行",
    ),
    # generated_ids_problem / greedy_problem
    "diag.generate.not_tensor": (
        "generate must return a tensor of token ids, got {kind}",
        "generate 应当返回 token id 的张量，实际返回的是 {kind}",
    ),
    "diag.generate.dtype": (
        "generate returned dtype {dtype}: not int64 (token ids are integers: a dtype slip; the result is "
        "the prompt's own int64 ids followed by the new ones)",
        "generate 返回的 dtype 是 {dtype}，不是 int64：token id 是整数；结果应当是前缀原有的 int64 id，"
        "后面接上新生成的 id",
        "ids_dtype",
    ),
    "diag.generate.only_new": (
        "generate returned shape {got}, expected (B, T + max_new_tokens) = {want}: wrong length, only the new "
        "tokens (prompt not preserved, or not exactly max_new_tokens new tokens)",
        "generate 返回的形状是 {got}，应为 (B, T + max_new_tokens) = {want}：长度不对，只返回了新 token，没有保留前缀",
        "prompt_not_preserved",
    ),
    "diag.generate.count": (
        "generate returned shape {got}, expected (B, T + max_new_tokens) = {want}: wrong length, a wrong number "
        "of new tokens (prompt not preserved, or not exactly max_new_tokens new tokens)",
        "generate 返回的形状是 {got}，应为 (B, T + max_new_tokens) = {want}：长度不对，新 token 的个数不是 "
        "max_new_tokens，或者没有保留前缀",
        "prompt_not_preserved",
    ),
    "diag.generate.prompt": (
        "the first T columns are not the prompt: prompt not preserved",
        "前 T 列不是前缀：没有保留前缀",
        "prompt_not_preserved",
    ),
    "diag.generate.sampling": (
        "two calls of generate on the same prompt returned different tokens: sampling instead of argmax (greedy "
        "decoding takes the most likely token every step)",
        "用同一个前缀调用两次 generate，返回的 token 不一样，说明用了采样而不是 argmax："
        "贪心生成每一步都取最可能的 token",
        "sampling",
    ),
    "diag.generate.greedy": (
        "the tokens of sequence {seq} (index {row}) differ from greedy decoding from position {col} on: each"
        " step runs the model on the last block_size tokens and appends the argmax of the LAST position's logits"
        " (wrong crop, wrong position, missing append, or sampling instead of argmax)",
        "第 {seq} 个序列（下标 {row}）从位置 {col} 起，生成的 token 与贪心生成的结果不一致："
        "每一步应当在最后 block_size 个 token 上运行模型，再把最后一个位置 logits 的 argmax 接到末尾"
        "（可能是截断上下文的方式不对、取错了位置、"
        "没有把新 token 接到末尾，或者用了采样而不是 argmax）",
    ),
}
