"""Trusted (the judge's words, never in a release): message catalog part, English and Chinese side by side.
Holds the hidden suite's composition glue ("in {what}, {problem}", labels such as "{what}: logits") and the suite's
messages that had no id before the suite rendered every message from the catalog (judge/words.py: ``say``). Part of
the message catalog (messages.py assembles it): id -> (English, Chinese), or (English, Chinese, misconception) for a
message that names one of the marking scheme's misconceptions: a finding reads that id, never the wording, so either
language can be reworded without moving a mark. Imports nothing."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    # composition: a subject, then what is wrong with it (the problem often has a colon of its own: "gradient
    # doubled: ...", so the subject is a setting, never a second label before it)
    "judge.what_problem": ("in {what}, {problem}", "{what} 中，{problem}"),
    # a subject, then one of its parts or calls (a label other words follow, never a finding)
    "judge.what_label": ("{what}: {name}", "{what}：{name}"),
    "judge.label.logits": ("{what}: logits", "{what}：logits"),
    "judge.label.state_shapes": (
        "{what}: model.minigpt.state_dict() shapes",
        "{what}：model.minigpt.state_dict() 的各项形状",
    ),
    # parameter identity
    "judge.identity.table_shape": (
        "{what}: model.minigpt.token_embed.weight has shape {shape}, expected (V, D) with V = {v}",
        "{what}：model.minigpt.token_embed.weight 的形状是 {shape}，应为 (V, D)，其中 V = {v}",
    ),
    "judge.identity.not_judge_minigpt": (
        "the logits for the judge's ids are not those of a MiniGPT holding the judge's weights with the table just "
        "written into token_embed.weight: forward uses another table (copied table), or the model is not the one "
        "its sizes describe (hyper-parameter ignored, see parameter counts)",
        "评分程序把一张新表写入 token_embed.weight，再用自己的权重构建同样的 MiniGPT 作对照。对评分程序给出的 id，"
        "两者的 logits 不一致：forward 用的是另一张表（复制了一份表），或者模型的结构与它的尺寸不符（忽略了超参数，"
        "详见“参数量与超参数”一项）",
        "two_tables",
    ),
    "judge.identity.logits_not_from_table": (
        "the logits for the judge's ids do not come from the table just written into token_embed.weight: forward "
        "multiplies by another table (copied table, or a head whose .weight is not what it multiplies by)",
        "对评分程序给出的 id，logits 不是用刚写入 token_embed.weight 的表算出来的：forward "
        "乘的是另一张表（复制了一份表；或者 LM head 的 .weight 并不是它真正拿来相乘的那张表）",
        "two_tables",
    ),
    "judge.identity.pos_not_judge_table": (
        "minigpt.pos_embed.weight is not the positional table the judge loaded into model.minigpt's state_dict: "
        "positional embedding tied or replaced",
        "minigpt.pos_embed.weight 不是评分程序加载进 model.minigpt 的 state_dict 的那张位置表：positional embedding "
        "被卷进了权重共享，或者被替换了",
        "positional_tied",
    ),
    "judge.class_not_defined": (
        "the submission does not define {name} (see “How your code ran”): no test that uses it could run",
        "你的提交没有定义 {name}（见“代码的运行情况”），用到它的测试都无法运行",
    ),
    # the same when the run names a syntax error: the class is missing because its code never ran (the pages and
    # the terminal say how the code ran first, then)
    "judge.class_not_defined_syntax": (
        "{name} is not defined because of the syntax error (see “How your code ran” above): no test that uses it "
        "could run",
        "由于语法错误，{name} 没有定义（见上面的“代码的运行情况”），用到它的测试都无法运行",
    ),
    # each said again, short, on a page that has already said it for another class (rendering: ShownCharge.again)
    "judge.class_not_defined.again": (
        "nor does it define {name}: no test that uses it could run either",
        "你的提交也没有定义 {name}，用到它的测试同样无法运行",
    ),
    "judge.class_not_defined_syntax.again": (
        "The same syntax error leaves {name} undefined too: no test that uses it could run either",
        "同一个语法错误也让 {name} 没有定义，用到它的测试同样无法运行",
    ),
    "judge.malformed_record": ("malformed evidence for {name}", "{name} 的记录格式不对"),
    "judge.label.logits_after_write": ("{what}: logits after the write", "{what}：写入之后的 logits"),
    # parameter counts
    "judge.state_dict": (" (state_dict)", "（state_dict）"),
    "judge.counts.count_missing": ("malformed evidence: parameter count missing", "记录格式不对：缺少参数量"),
    "judge.counts.unique": (
        "{model} has {n} unique parameters, expected V*D = {want}",
        "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 V * D = {want}",
    ),
    "judge.counts.unique_two_tables": (
        "{model} has {n} unique parameters, expected V*D = {want}: two (V, D) tables; the tie test shows why: {cause}",
        "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 V * D = {want}，多出了一张 (V, D) 的表。"
        "多出这张表的原因：{cause}",
    ),
    "judge.counts.unique_copied_bias": (
        "{model} has {n} unique parameters, expected V*D = {want}: copied table with a bias on the head",
        "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 V * D = {want}：复制了一份表，LM head 上还带了偏置",
        "two_tables",
    ),
    "judge.counts.head_not_follow": (
        "the reported count says one table, but lm_head.weight did not follow an in-place change of "
        "token_embed.weight: copied table",
        "报告的参数量说只有一张表，但原地修改 token_embed.weight 之后 lm_head.weight 没有跟着变：复制了一份表",
        "two_tables",
    ),
    "judge.counts.one_table_but_bias": (
        "the reported count says one table of V*D parameters, but the logits carry a per-token offset: bias on the "
        "head, whose V parameters the count leaves out",
        "报告的参数量说只有一张 V * D 的表，但 logits 带着每个 token 各自的偏移：LM head 带了偏置，"
        "这 V 个参数没有算进参数量",
        "head_bias",
    ),
    "judge.counts.one_table_but_other_table": (
        "the reported count says one table of V*D parameters, but the logits for the judge's ids do not come from "
        "the table just written into token_embed.weight: forward uses another table (copied table)",
        "报告的参数量说只有一张 V * D 的表，但对评分程序给出的 id，logits 不是用刚写入 token_embed.weight "
        "的表算出来的：forward 用的是另一张表（复制了一份表）",
        "two_tables",
    ),
    "judge.counts.malformed_count": ("{what}: malformed parameter count", "{what}：参数量的记录格式不对"),
    "judge.counts.wrapper_unique": (
        "{model} has {n} unique parameters, expected {want} (untied MiniGPT {untied} minus V*D = {vd})",
        "{model} 共有 {n} 个参数（共享的参数对象只算一次），应为 {want}（不共享权重的 MiniGPT 有 {untied} 个，"
        "减去 V * D = {vd}）",
    ),
    "judge.counts.not_one_table_after_write": (
        "the reported count says one table at both ends, but after a new table was written into "
        "minigpt.token_embed.weight, minigpt's logits do not come from it alone: untied head (a second table "
        "hidden from the count?) or a bias on the head",
        "报告的参数量说两端共用一张表，但把一张新表写入 minigpt.token_embed.weight 之后，minigpt 的 logits "
        "并不只来自这张表：LM head 没有共享 token embedding 的表（参数量里藏了第二张表？），或者 LM head 带了偏置",
        "two_tables",
    ),
    "judge.counts.head_shape": (
        "lm_head.weight is {got}, expected {want} (V, D): transposed?",
        "lm_head.weight 是 {got}，应为 {want}，即 (V, D)：可能是转置了",
        "transposed",
    ),
    "judge.counts.keys_differ": (
        "state_dict keys/shapes differ from MiniGPT's (missing {missing}, unexpected {extra})",
        "state_dict 的键或形状与 MiniGPT 的不同（缺少 {missing}，多出 {extra}）",
    ),
    "judge.counts.computes_otherwise": (
        "the reported state_dict has the right keys and shapes, but with the judge's weights loaded model.minigpt "
        "does not compute as a MiniGPT of these sizes: hyper-parameter ignored, or a part replaced",
        "报告的 state_dict 键和形状都对，但加载评分程序的权重之后，model.minigpt 的计算结果与这些尺寸的 MiniGPT 不同："
        "忽略了超参数，或者替换了某个部件",
        "hyperparameter_ignored",
    ),
    "note.num_heads_not_checked": (
        "num_heads was not checked because the model could not be built with these sizes: a hyper-parameter "
        "ignored (see the test “wrapper state dict matches hyperparameters”)",
        "num_heads 无法检查：用这些尺寸构建不出模型，可能是忽略了某个超参数（详见“MiniGPTWithWeightTying 的 state_dict "
        "与传入的超参数一致”一项）",
    ),
    "judge.counts.dropout_train_eval": (
        "the train-mode logits are not a MiniGPT's with dropout={p} (they match the eval-mode ones): "
        "hyper-parameter ignored (dropout)",
        "训练模式下的 logits 不是 dropout={p} 的 MiniGPT 给出的（却与评估模式下的相同）：忽略了超参数 dropout",
        "hyperparameter_ignored",
    ),
    "judge.counts.dropout_train_neither": (
        "the train-mode logits are not a MiniGPT's with dropout={p} (they match neither): hyper-parameter "
        "ignored (dropout)",
        "训练模式下的 logits 不是 dropout={p} 的 MiniGPT 给出的（与两种模式都对不上）：忽略了超参数 dropout",
        "hyperparameter_ignored",
    ),
    "judge.counts.malformed_dropout": ("{what}: malformed dropout evidence", "{what}：dropout 的记录格式不对"),
    # gradient accumulation
    "judge.label.table_after_step": ("{what}: table after step", "{what}：更新一步之后的表"),
    "judge.grad.after_step": (
        "{what}: after one SGD step (optimizer built over model.parameters()) {hint}",
        "{what}：一步 SGD 之后（优化器基于 model.parameters() 构建），{hint}",
    ),
    # the exercise whose code is still the starter code (words.see: nothing written yet to reread)
    "judge.see": (" (complete {sections})", "。请完成{sections}。"),
    # the loss
    "judge.loss.not_written": (
        "\n-> loss() raises it for every target form, so there is no loss to train with",
        "\n三种 targets 形式都是如此，因此算不出训练用的 loss",
        "loss_not_written",
    ),
    "judge.loss.summed": (
        "{call} = {got} = {n} x {want}: loss not mean (summed over the {m} positions instead of averaged)",
        "{call} 是 {got}，恰为 {want} 的 {n} 倍：loss 不是平均值，而是对 {m} 个位置求的和",
        "loss_not_mean",
    ),
    "judge.loss.doubled": (
        "{call} = {got}, {k} x the mean cross-entropy {want}: loss doubled (the two uses of the tied table already "
        "add up in its gradient; the loss itself is the plain mean)",
        "{call} 是 {got}，恰为平均交叉熵 {want} 的 {k} 倍：loss 被翻倍了。共享的表在两条路径上被用到，autograd "
        "本来就会把两条路径的梯度相加；loss 只需取普通的平均值，不需要额外的系数",
        "loss_scaled",
    ),
    "judge.loss.halved": (
        "{call} = {got}, {k} x the mean cross-entropy {want}: loss halved (the two uses of the tied table already "
        "add up in its gradient; the loss itself is the plain mean)",
        "{call} 是 {got}，恰为平均交叉熵 {want} 的 {k} 倍：loss 被减半了。共享的表在两条路径上被用到，autograd "
        "本来就会把两条路径的梯度相加；loss 只需取普通的平均值，不需要额外的系数",
        "loss_scaled",
    ),
    # shape flow
    "judge.shape_flow": (" (shape flow)", "（计算输出时）"),
    "judge.shapes.lm_case": (
        "TiedEmbeddingLM(vocab_size={v}, embed_dim={d}) on input_ids of shape {shape}",
        "input_ids 形状为 {shape} 时，TiedEmbeddingLM(vocab_size={v}, embed_dim={d})",
    ),
    "judge.shapes.gpt_case": (
        "MiniGPTWithWeightTying({args}) on input_ids of shape {shape}",
        "input_ids 形状为 {shape} 时，MiniGPTWithWeightTying({args})",
    ),
    "judge.shapes.gpt_case_tiny": (
        "MiniGPTWithWeightTying({args}) on input_ids of shape {shape} with tiny weights",
        "权重极小、input_ids 形状为 {shape} 时，MiniGPTWithWeightTying({args})",
    ),
    "judge.shapes.head_shape": (
        "{what}: lm_head.weight has shape {got}, expected (V, D) = {want}",
        "{what} 的 lm_head.weight 形状是 {got}，应为 (V, D) = {want}",
    ),
    "judge.shapes.head_transposed": (
        "{what}: lm_head.weight has shape {got}, expected (V, D) = {want}: transposed (a Linear(V, D) head, or W.T "
        "stored)",
        "{what} 的 lm_head.weight 形状是 {got}，应为 (V, D) = {want}，转置了（LM head 是 Linear(V, D)，"
        "或者存的是 W.T）",
        "transposed",
    ),
    "judge.shapes.logits_shape": (
        "{what}: logits have shape {got}, expected (B, T, V) = {want}: it holds {layout}; forward returns the "
        "scores of every position, unflattened (generate takes the last position itself)",
        "{what} 的 logits 形状是 {got}，应为 (B, T, V) = {want}，返回的是{layout}。forward 要返回每个位置的分数，"
        "并且不要展平（只取最后一个位置是 generate 自己的事）",
        "logits_shape",
    ),
    "judge.shapes.other_shape": (
        "{what}: forward returned shape {got}, expected (B, T, V) = {want}, and its values are not the logits in "
        "any other layout",
        "{what} 的 forward 返回的形状是 {got}，应为 (B, T, V) = {want}，而且这些值换成任何排布也都不是 logits",
    ),
    "judge.layout.flat": ("the logits of every position flattened into rows", "把每个位置的 logits 展平成的行"),
    "judge.layout.last": ("the logits of the last position only", "只有最后一个位置的 logits"),
    "judge.layout.first": ("the logits of the first position only", "只有第一个位置的 logits"),
    "judge.layout.swapped": ("the logits with positions and vocabulary swapped", "位置和词表两维互换了的 logits"),
    "judge.layout.squeezed": ("the logits with the batch dimension squeezed", "去掉了 batch 这一维的 logits"),
    "judge.layout.ids": ("the ids of the largest logits (an argmax)", "最大 logits 对应的 id（做了 argmax）"),
    "judge.layout.hidden": (
        "the vectors before the head, which never went through it",
        "LM head 之前的向量，它们没有经过 LM head",
    ),
    "note.float64_not_checked": (
        "the float64 logits were not checked because lm_head.weight does not follow the table written into "
        "token_embed.weight (see the parameter identity tests)",
        "float64 的 logits 无法检查：lm_head.weight 没有跟着写入 token_embed.weight 的表变"
        "（详见“共享同一参数对象”一项）",
    ),
    "note.the_final_layernorm": ("the final LayerNorm", "末尾的 LayerNorm"),
    # argmax generation
    "judge.gen.batch_of_one": (
        "\n-> it runs for batches of several prompts but fails for a batch of one (B = 1): a squeeze() or .item() "
        "that drops the batch dimension?",
        "\nbatch 有多个前缀时能运行，batch 只有 1 行（B = 1）时却失败了：可能是 squeeze() 或 .item() 把 batch "
        "这一维去掉了",
        "batch_rows",
    ),
    "judge.label.returned_ids": ("{what}: the returned ids", "{what}：返回的 id"),
    "judge.gen.malformed_decoders": (
        "malformed evidence for {what}: the list of library decoders it called",
        "{what} 的记录格式不对：它调用过的库里生成辅助函数的列表",
    ),
    "judge.gen.delegated": (
        "testing with {what}, your generate called {names} while it ran (delegated generate). The generation loop "
        "is yours to write (crop, run the model, take the argmax of the last position, append), so the graded area "
        "“{area}” scores 0",
        "{what} 在运行中调用了库函数 {names}。生成循环要你自己写"
        "（截断上下文、运行模型、取最后一个位置的 argmax、接到末尾），所以评分项“{area}”记 0 分",
        "delegated_generate",
    ),
    "judge.gen.and": (" and ", "，同时"),
    "judge.gen.arrow": ("\n-> ", "。"),
    "judge.gen.missing_append": ("missing append", "漏了把新 token 接到末尾", "position_or_append"),
    "judge.gen.model.argmax_positions": (
        "argmax over the positions (dim=1) instead of over the vocabulary: the next token is the argmax of the last "
        "position's logits, logits[:, -1, :].argmax(dim=-1)",
        "argmax 取在了位置这一维（dim=1）上，而不是词表这一维：下一个 token 是最后一个位置的 logits 的 argmax，"
        "即 logits[:, -1, :].argmax(dim=-1)",
        "argmax_axis",
    ),
    "judge.gen.model.batch_only_append": (
        "\n-> it decodes a batch of one right but fails for several prompts (B > 1): the new tokens (B,) are "
        "appended as a row (1, B), where each row needs its own column (B, 1)",
        "\nbatch 只有 1 个前缀时生成正确，有多个前缀（B > 1）时却失败了："
        "新生成的 token（形状 (B,)）被当成一行 (1, B) 接上去了，而每一行都需要自己的一列 (B, 1)",
        "batch_rows",
    ),
    "judge.gen.model.sampling": ("sampling instead of argmax", "用了采样而不是 argmax", "sampling"),
    # what the mistake above misses, said after the sentence that names it (suite.gen.matches_decoder.gloss)
    "judge.gen.gloss.sampling": (
        "greedy decoding takes the most likely token every step",
        "贪心生成每一步都应取最可能的 token",
    ),
    "judge.gen.model.only_new": (
        "only the new tokens returned, without the prompt in front",
        "只返回了新生成的 token，前面没有保留前缀",
        "prompt_not_preserved",
    ),
    "judge.gen.model.one_short": (
        "one new token short (a loop of max_new_tokens - 1 steps)",
        "少生成了一个新 token（循环只走了 max_new_tokens - 1 步）",
        "prompt_not_preserved",
    ),
    "judge.gen.model.float": (
        "the greedy tokens as floats (a common cause: a buffer made beforehand with torch.zeros is float32)",
        "贪心生成的 token 变成了浮点数（常见原因：用 torch.zeros 预先建的缓冲区默认是 float32）",
        "ids_dtype",
    ),
    "judge.gen.no_model": (
        "no decoder the grader knows gives these tokens (greedy decoding feeds the last block_size tokens, takes "
        "the argmax of the last position's logits over the vocabulary and appends it, every step)",
        "评分程序已知的生成方式都得不到这些 token（贪心生成每一步都输入最后 block_size 个 token，"
        "对最后一个位置的 logits 在词表这一维上取 argmax，再把它接到末尾）",
    ),
    "judge.gen.not_checked_raised": (
        "{what}: not checked: generate raised on this case (see “{test}”)",
        "{what}：无法检查，因为 generate 在这个用例上抛出了异常（详见“{test}”）",
    ),
    "judge.gen.dtype": (
        "generate returned dtype {dtype}: token ids are int64",
        "generate 返回的 dtype 是 {dtype}：token id 应当是 int64",
    ),
    "judge.gen.length": (
        "generate returned shape {got}, expected (B, T + max_new_tokens) = {want}",
        "generate 返回的形状是 {got}，应为 (B, T + max_new_tokens) = {want}",
    ),
    "judge.gen.prompt_changed": (
        "the first T columns are not the prompt",
        "前 T 列不是原来的前缀",
    ),
    "judge.gen.calls_differ": (
        "two calls of generate on the same prompt returned different tokens, and no sampler drawing from the"
        " model's own softmax gives them",
        "用同一个前缀调用两次 generate，返回的 token 不同，而且从模型自己的 softmax 中采样也得不到这些 token",
    ),
    "judge.gen.not_greedy": (
        "{what}: new tokens {got}, expected the greedy (argmax) tokens {want}; first difference at new token {n}: "
        "{why}",
        "{what}：新生成的 token 是 {got}，贪心（argmax）生成应得 {want}，从第 {n} 个新 token 起就不同。{why}",
    ),
    "note.determinism_not_credited": (
        "the two calls agree, but that is not credited: their tokens are not the greedy ones (see “{test}”)",
        "两次调用的结果一致，但这一项不给分：生成的 token 不是贪心生成的结果（见“{test}”）",
    ),
    "note.shape_not_credited": (
        "the tokens have the right shape and type, but that is not credited: they are not the greedy ones (see "
        "“{test}”)",
        "生成的 token 形状和类型都对，但这一项不给分：它们不是贪心生成的结果（见“{test}”）",
    ),
    # a forward call that raised, judged where forward is judged (shape flow)
    "judge.grad.step_follows_gradient": (
        "{what}: after one SGD step the table moved by lr times its gradient, which is not the sum of both paths: "
        "{problem}",
        "{what}：做了一步 SGD 之后，表的变化量是 lr 乘以它自己的梯度，而这个梯度不是两条路径之和。{problem}",
    ),
    "judge.label.head_logits": (
        "{what}: the head's scores for the judge's ids (before any forward call)",
        "{what}：在任何 forward 之前，LM head 对评分程序给出的 id 的打分",
    ),
    "judge.identity.forward_raised": (
        "{what}: the head follows the table before any forward call, but forward raised {error}{at}, so the logits "
        "were not checked (see “{test}”)",
        "{what}：在任何一次 forward 之前，LM head 已随这张表变化；但 forward 抛出了异常“{error}”{at}，所以 logits "
        "无法检查（详见“{test}”）",
    ),
    "judge.shapes.forward_raised": (
        "{what}: forward raised {error}{at}",
        "{what} 的 forward 抛出了异常“{error}”{at}",
    ),
    "judge.shapes.transposed_values": (
        "{what}: the logits are E[ids] @ E, not E[ids] @ E.T: transposed (the product runs only because V = D "
        "here; every other size raises)",
        "{what} 的 logits 是 E[ids] @ E，而不是 E[ids] @ E.T，转置了"
        "（只因为这里 V = D，乘法才能运行，其他尺寸都会报错）",
        "transposed",
    ),
    # a record whose seal does not hold (judge/sealed.py, from runner/seal.py's verdict)
    "judge.evidence_refused": (
        "{what}: evidence refused: {why}; a record the runner did not send as measured earns nothing",
        "{what}：记录被拒收：{why}；不是评分程序中负责运行你代码的部分（runner）按测量结果发来的记录不得分",
    ),
    "seal.none": (
        "the record carries no seal: it was not sent by the grader's runner as the experiment measured it",
        "这条记录没有校验码：它不是评分程序中负责运行你代码的部分（runner）按实验测得的结果发来的",
    ),
    "seal.tampered": (
        "the grader's runner was changed while your code ran ({detail})",
        "你的代码运行期间，评分程序中负责运行你代码的部分（runner）被改动了（“{detail}”）",
    ),
    "seal.changed": (
        "the record no longer matches its seal: it was changed after the experiment measured it",
        "这条记录与它的校验码对不上：实验测量之后它被改动过",
    ),
}
