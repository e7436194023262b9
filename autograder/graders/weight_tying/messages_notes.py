"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds the hidden suite's notes on what it could not check, layer settings, embedding options and the generation
contract. Part of the message catalog (messages.py assembles it): id -> (English, Chinese). The suite renders
them where it builds them (judge/words.py ``say``): in English for the marking scheme, which reads them (a "not
checked because" note is free), and in the submission's language for what the student reads. Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    "note.dropout_was_not_checked_because_the": (
        (
            "dropout was not checked because the eval-mode logits differ from a MiniGPT with these hyper-param"
            "eters and the judge's weights (see the shape flow tests)"
        ),
        (
            "dropout 未检查：eval 模式下的 logits 与用这些超参数和评分程序的权重构建的 MiniGPT 不一致"
            "（见张量形状那几项测试）"
        ),
    ),
    "note.the_gradient_was_not_checked_because": (
        (
            "the gradient was not checked because forward's logits are not those of a MiniGPT holding"
            " the judge's weights (see the shape flow tests)"
        ),
        ("梯度未检查：前向传播的 logits 与持有评分程序权重的 MiniGPT 不一致（见张量形状那几项测试）"),
    ),
    "note.the_gradient_was_not_checked_because_2": (
        (
            "the gradient was not checked because forward does not compute E[ids] @ E.T (nor a softmax"
            " or a scale of it) (see the shape flow tests)"
        ),
        ("梯度未检查：前向传播算的不是 E[ids] @ E.T（也不是它的 softmax 或某个倍数）（见张量形状那几项测试）"),
    ),
    "note.the_tie_was_not_checked_because": (
        (
            "the tie was not checked because the forward pass rewrote the shared table itself (rows renormalis"
            "ed: max_norm on the embedding?), so the logits cannot come from the table written before"
            " it (see the shape flow tests)"
        ),
        (
            "绑定未检查：前向计算自己改写了共享的表（有些行被重新归一化：词元嵌入上设了 max_norm？"
            "），所以 logits 不可能来自之前写入的那张表（见张量形状那几项测试）"
        ),
    ),
    "note.the_count_was_not_checked_because": (
        (
            "the count was not checked because the forward pass rewrote the shared table itself (rows"
            " renormalised: max_norm on the embedding?), so the logits cannot show which table the head"
            " uses (see the shape flow tests)"
        ),
        (
            "参数计数未检查：前向计算自己改写了共享的表（有些行被重新归一化：词元嵌入上设了 max_norm"
            "？），所以从 logits 看不出语言模型头用的是哪张表（见张量形状那几项测试）"
        ),
    ),
    "note.the_two_calls_agree_but_determinism": (
        (
            "the two calls agree, but determinism was not credited because the tokens are not the greedy"
            " ones (see {test}): "
        ),
        "两次调用结果一致，但 token 不是贪心解码的结果，所以确定性这一项不给分（见 {test}）：",
    ),
    "note.the_logits_are_those_of_a": (
        "the logits are those of a MiniGPT forward that skips {parts}: skips part of MiniGPT",
        ("logits 与一个跳过了{parts}的 MiniGPT 前向计算一致：跳过了 MiniGPT 的一部分（skips part of MiniGPT）"),
    ),
    "note.the_positional_embedding_and_the_decoder": (
        "the positional embedding and the decoder blocks",
        "位置嵌入和解码块",
    ),
    "note.the_positional_embedding": (
        "the positional embedding",
        "位置嵌入",
    ),
    "note.the_decoder_blocks": (
        "the decoder blocks",
        "解码块",
    ),
    "note.the_logits_are_those_of_a_2": (
        (
            "the logits are those of a MiniGPT whose LayerNorm uses eps={got} instead of MiniGPT's {want}:"
            " LayerNorm eps (it decides the output when activations are small)"
        ),
        (
            "logits 与一个 LayerNorm 用 eps={got}（而不是 MiniGPT 的 {want}）的 MiniGPT 一致：LayerNorm"
            " eps 不对（激活值很小时，eps 决定输出）"
        ),
    ),
    "note.token_embed_input_ids_returns_the": (
        (
            "token_embed(input_ids) returns the right rows with their norms capped at {cap}: max_norm"
            " on the embedding renormalises (and rewrites) every looked-up row"
        ),
        (
            "token_embed(input_ids) 返回的行是对的，但范数被截到了 {cap}：词元嵌入上的 max_norm 会"
            "把每个查到的行重新归一化（并写回表里）"
        ),
    ),
    "note.rows_of_the_shared_gradient_hold": (
        (
            "rows {rows} of the shared gradient hold only the head-path part, every other row both parts:"
            " the lookup never passes a gradient to those ids (padding_idx on the embedding)"
        ),
        (
            "共享梯度的第 {rows} 行只有语言模型头路径的部分，其余各行两部分都有：查表从不把梯度传给这"
            "些 id（词元嵌入上设了 padding_idx）"
        ),
    ),
    "note.rows_get_their_lookup_path_gradient": (
        (
            "rows {rows} get their lookup-path gradient divided by how often the id occurs in the batch:"
            " scale_grad_by_freq on the embedding (the shared gradient is the plain sum of both paths)"
        ),
        (
            "第 {rows} 行的查表路径梯度被除以了该 id 在批中出现的次数：词元嵌入上设了 scale_grad_by_freq"
            "（共享梯度应当就是两条路径梯度的普通之和）"
        ),
    ),
    "note.the_reported_count_says_one_table": (
        (
            "the reported count says one table at both ends, but after a new table was written into {where},"
            " minigpt's logits do not come from it alone: "
        ),
        ("报告的参数个数显示两端只有一张表，但往 {where} 写入新表之后，minigpt 的 logits 并不只来自它："),
    ),
    "note.a_second_table_hidden_from_the": (
        " (a second table hidden from the count?) or a bias on the head",
        "（有第二张表躲过了计数？），或者语言模型头上带了 bias（bias on the head）",
    ),
    "note.a_second_table_hidden_from_the_2": (
        " (a second table hidden from the count?)",
        "（有第二张表躲过了计数？）",
    ),
    "note.the_train_mode_logits_are_not": (
        (
            "the train-mode logits are not a MiniGPT's with dropout={p} (they match the eval-mode ones):"
            " hyper-parameter ignored (dropout)"
        ),
        (
            "train 模式下的 logits 不像是 dropout={p} 的 MiniGPT 给出的（它们与 eval 模式下的相同）："
            "忽略了超参数（hyper-parameter ignored (dropout)）"
        ),
    ),
    "note.logits_after_the_write": (
        "logits after the write",
        "写入之后的 logits",
    ),
    "note.with_tiny_weights": (
        " with tiny weights",
        "，权重极小",
    ),
    "note.generate_returned_dtype": (
        "generate returned dtype ",
        "生成方法返回的 dtype 是 ",
    ),
    "note.the_model_reads_at_most_block": (
        (
            "the model reads at most block_size tokens, so each step feeds it only the last block_size"
            " tokens of the context"
        ),
        ("模型一次最多读 block_size 个词元，所以每一步只把上下文的最后 block_size 个词元送进去"),
    ),
    "note.the_float64_logits_were_not_checked": (
        (
            "the float64 logits were not checked because lm_head.weight does not follow the table written"
            " into token_embed.weight (see the parameter identity tests)"
        ),
        ("float64 的 logits 未检查：lm_head.weight 没有跟随写入 token_embed.weight 的表（见参数同一性那几项测试）"),
    ),
    "note.the_loss_was_not_checked_because": (
        (
            "the loss was not checked because minigpt.pos_embed.weight has shape {shape}, not (block_size,"
            " D): the model is not the MiniGPT asked for (see the parameter identity tests)"
        ),
        (
            "loss 未检查：minigpt.pos_embed.weight 的形状是 {shape}，不是 (block_size, D)：模型不是所"
            "要求的 MiniGPT（见参数同一性那几项测试）"
        ),
    ),
    "note.num_heads_was_not_checked_because": (
        (
            "num_heads was not checked because the model could not be built with these sizes: a hyper-paramete"
            "r ignored (see test_wrapper_state_dict_matches_hyperparameters)"
        ),
        (
            "num_heads 未检查：按这些尺寸无法构建模型，忽略了超参数（hyper-parameter ignored，见 test_wrappe"
            "r_state_dict_matches_hyperparameters）"
        ),
    ),
    "note.generation_was_not_checked_because_the": (
        (
            "generation was not checked because the judge's weights for these sizes cannot be loaded into"
            " model.minigpt: a hyper-parameter ignored (see the parameter counts tests)"
        ),
        (
            "生成未检查：评分程序的权重无法载入按这些尺寸构建的 model.minigpt，忽略了超参数（hyper-parameter"
            " ignored，见参数计数那几项测试）"
        ),
    ),
    "note.loss_not_implemented_yet_loss_still": (
        (
            "\n-> loss not implemented yet: loss() still raises NotImplementedError, so the model has"
            " no training objective"
        ),
        ("\n→ loss 还没有实现（not implemented yet）：loss() 仍然抛出 NotImplementedError，模型没有训练目标"),
    ),
    "note.loss_target_shift_wrong_with_no": (
        "\n-> loss target shift wrong? with no targets, input_ids[:, :-1] predicts input_ids[:, 1:]",
        ("\n→ loss 的目标错位不对（loss target shift wrong）？不给目标时，由 input_ids[:, :-1] 预测 input_ids[:, 1:]"),
    ),
    "note.with_no_targets_input_ids_1": (
        "with no targets, input_ids[:, :-1] predicts input_ids[:, 1:]",
        "不给目标时，由 input_ids[:, :-1] 预测 input_ids[:, 1:]",
    ),
    "note.targets_of_shape_b_t_are": (
        "targets of shape (B, T) are already shifted: they go with the logits of all of input_ids",
        "形状为 (B, T) 的目标已经错开了一位：它们对应全部 input_ids 的 logits",
    ),
    "note.the_two_uses_of_the_tied": (
        (" (the two uses of the tied table already add up in its gradient; the loss itself is the plain mean)"),
        "（共享表的两处用途已经在它的梯度里相加；loss 本身就是普通的平均值）",
    ),
    "note.loss_not_mean_summed_over_the": (
        "loss not mean (summed over the {n} positions instead of averaged)",
        "loss 不是平均值（loss not mean；对 {n} 个位置求了和，而不是取平均）",
    ),
    "note.of_the_model_s_logits": (
        " of the model's logits",
        "（按模型自己的 logits 计算）",
    ),
    "note.transposed_wrong_matmul_the_head_maps": (
        "\n-> transposed / wrong matmul: the head maps D-vectors to V scores with the (V, D) table",
        ("\n→ 转置了或矩阵乘法写错了（transposed）：语言模型头用 (V, D) 的表把 D 维向量映射成 V 个分数"),
    ),
    "note.it_runs_for_batches_of_several": (
        (
            "\n-> it runs for batches of several prompts but fails for a batch of one (B = 1): a squeeze()"
            " or .item() that drops the batch dimension?"
        ),
        (
            "\n→ 对多条 prompt 的批能运行，批大小为 1（B = 1）时却失败（batch of one）：是不是 squeeze()"
            " 或 .item() 把批这一维去掉了？"
        ),
    ),
    "note.delegated_generate_while_your_generate_ran": (
        (
            "delegated generate: while your generate ran it called {names}; the generation loop is yours"
            " to write (crop, run the model, take the argmax of the last position, append), so this area"
            " scores zero"
        ),
        (
            "把生成交给了库（delegated generate）：你的生成方法运行时调用了 {names}；生成循环应当"
            "由你自己写（截取上下文、运行模型、取最后一个位置的 argmax、接到末尾），所以这一领域记 0 "
            "分"
        ),
    ),
    "note.evidence_refused_a_record_the_runner": (
        "evidence refused: {why}; a record the runner did not send as measured earns nothing",
        "记录被拒收：{why}；不是评分器的 runner 按测量结果发出的记录不得分",
    ),
    "note.the_record_carries_no_seal_it": (
        ("the record carries no seal: it was not sent by the grader's runner as the experiment measured it"),
        "记录没有封签：它不是评分器的 runner 按实验测得的结果发出的",
    ),
    "note.the_grader_s_runner_was_changed": (
        "the grader's runner was changed while your code ran ({what}",
        "你的代码运行时改动了评分器的 runner（{what}",
    ),
    "note.the_record_no_longer_matches_its": (
        "the record no longer matches its seal: it was changed after the experiment measured it",
        "记录与它的封签不符：它在实验测量之后被改动过",
    ),
    "note.or": (
        "） or ",
        "）或 ",
    ),
}
