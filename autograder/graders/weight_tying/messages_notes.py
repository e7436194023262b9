"""Trusted (the judge's words, never in a release): message catalog part, English and Chinese side by side.
Holds the hidden suite's notes on what it could not check, layer settings, embedding options and the generation
contract. Part of the message catalog (messages.py assembles it): id -> (English, Chinese), or (English, Chinese,
misconception) for a message that names one of the marking scheme's misconceptions: a finding reads that id, never
the wording, so either language can be reworded without moving a mark. A "not checked because" note names none: the
test that raises it says which test it waits on. Imports nothing."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    "suite.and_more_forms": (" (also wrong: {forms})", "。另外，{forms}也不对"),
    # the target forms, as a list names them (test_loss's "also wrong: ...")
    "suite.form.none": ("loss(ids)", "不给 targets 时的 loss"),
    "suite.form.short": ("loss(ids, targets of shape (B, T-1))", "targets 形状为 (B, T-1) 时的 loss"),
    "suite.form.full": ("loss(ids, targets of shape (B, T))", "targets 形状为 (B, T) 时的 loss"),
    # the two other forms a loss also gets wrong, said as one list (what they share said once)
    "suite.and_two_more_forms": (" (also wrong: {forms})", "。另外两种形式（{forms}）的 loss 也不对"),
    "suite.forms.short_full": (
        "loss(ids, targets of shape (B, T-1)) and loss(ids, targets of shape (B, T))",
        "targets 形状为 (B, T-1) 或 (B, T)",
    ),
    "suite.forms.none_full": (
        "loss(ids) and loss(ids, targets of shape (B, T))",
        "不给 targets 或 targets 形状为 (B, T)",
    ),
    "suite.forms.none_short": (
        "loss(ids) and loss(ids, targets of shape (B, T-1))",
        "不给 targets 或 targets 形状为 (B, T-1)",
    ),
    "note.backward_not_checked_no_loss": (
        "backward was not checked: loss() returns no scalar for any target form (see the loss tests)",
        "反向传播无法检查：无论 targets 是哪种形式，loss() 都没有返回标量（详见 loss 的测试）",
    ),
    "note.library_tie_not_credited": (
        "{what}: not credited: the pair of tables is a library MiniGPT's, tied by the library, not by your code "
        "(see “{test}”)",
        "{what}：这一项不给分，因为这一对表来自库里的 MiniGPT，是库让它们共享的，而不是你的代码（见“{test}”）",
    ),
    "note.loss_not_checked_forward": (
        "{call}: the loss was not checked: the model's logits for the plan's ids are not (B, T, V), or forward "
        "raised (see the shape flow tests)",
        "{call} 的值无法检查：模型对这些 ids 给出的 logits 形状不是 (B, T, V)，或者 forward "
        "抛出了异常（详见“形状与输出数值”一项）",
    ),
    "note.logits_shape_not_checked": (
        "{what}: not checked: the logits have shape {got}, not {want} (see the shape flow tests)",
        "{what}：无法检查，因为 logits 的形状是 {got}，而不是 {want}（详见“形状与输出数值”一项）",
    ),
    "note.gradient_not_checked_forward_raised": (
        "the gradient of {what} could not be checked: forward raised {error}{at} (see the shape flow tests)",
        "{what} 的梯度无法检查：forward 抛出了异常“{error}”{at}（详见“形状与输出数值”一项）",
    ),
    "note.dropout_not_checked_logits_differ": (
        (
            "dropout was not checked because the eval-mode logits differ from a MiniGPT with these hyper-param"
            "eters and the judge's weights (see the shape flow and parameter count tests)"
        ),
        (
            "dropout 无法检查：评估模式下的 logits 不对。用这些超参数和评分程序的权重构建的 MiniGPT 会给出不同的 "
            "logits（详见“形状与输出数值”和“参数量与超参数”两项）"
        ),
    ),
    "note.gradient_not_checked_not_judge_minigpt": (
        (
            "the gradient of {what} could not be checked: forward's logits are not those of a MiniGPT holding"
            " the judge's weights (see the shape flow and parameter count tests)"
        ),
        (
            "{what} 的梯度无法检查：forward 的 logits 不对，一个持有评分程序权重的 MiniGPT 会给出不同的 "
            "logits（详见“形状与输出数值”和“参数量与超参数”两项）"
        ),
    ),
    "note.gradient_not_checked_not_tied_product": (
        (
            "the gradient of {what} could not be checked: forward does not compute E[ids] @ E.T (nor a softmax"
            " or a scale of it) (see the shape flow tests)"
        ),
        (
            "{what} 的梯度无法检查：forward 算的不是 E[ids] @ E.T，也不是它的 softmax 或某个倍数"
            "（详见“形状与输出数值”一项）"
        ),
    ),
    "note.tie_not_checked_table_rewritten": (
        (
            "the tie was not checked because the forward pass rewrote the shared table itself (rows renormalis"
            "ed: max_norm on the embedding?), so the logits cannot come from the table written before"
            " it (see the shape flow tests)"
        ),
        (
            "两端是否共享无法检查：forward 自己改写了共享的表（有些行被重新归一化，是不是 token embedding 上设了 "
            "max_norm？），所以 logits 不可能来自之前写入的那张表（详见“形状与输出数值”一项）"
        ),
    ),
    "note.count_not_checked_table_rewritten": (
        (
            "the count was not checked because the forward pass rewrote the shared table itself (rows"
            " renormalised: max_norm on the embedding?), so the logits cannot show which table the head"
            " uses (see the shape flow tests)"
        ),
        (
            "参数量无法检查：forward 自己改写了共享的表（有些行被重新归一化，是不是 token embedding 上设了 "
            "max_norm？），"
            "所以从 logits 看不出 LM head 用的是哪张表（详见“形状与输出数值”一项）"
        ),
    ),
    "note.logits_skip_parts": (
        "the logits are those of a MiniGPT forward that skips {parts}: skips part of MiniGPT",
        ("logits 与一个跳过了{parts}的 MiniGPT 的 forward 一致：跳过了 MiniGPT 的一部分"),
        "skips_minigpt",
    ),
    "note.parts.positions_and_blocks": (
        "the positional embedding and the decoder blocks",
        "positional embedding 和 GPT block",
    ),
    "note.the_positional_embedding": (
        "the positional embedding",
        "positional embedding",
    ),
    "note.the_decoder_blocks": (
        "the decoder blocks",
        "GPT block",
    ),
    "note.logits_layernorm_eps": (
        (
            "the logits are those of a MiniGPT whose LayerNorm uses eps={got} instead of MiniGPT's {want}:"
            " LayerNorm eps (it decides the output when activations are small)"
        ),
        (
            "logits 与一个 LayerNorm 用 eps={got}（而不是 MiniGPT 的 {want}）的 MiniGPT 一致：LayerNorm"
            " eps 不对（激活值很小时，eps 决定输出）"
        ),
        "layernorm_eps",
    ),
}
