"""Both sides (public, copied into each release): the self-check's own words, English and Chinese side by side.

Part of the message catalog (messages.py assembles it): id -> (English template, Chinese template), for the
self-check's plumbing (assignments/source/weight_tying/conftest.py, weight_tying_checks/framework.py and
__init__.py) and each check's title (``check.title.<test name>``, the English being the ``@check`` title).
The self-check knows the student's language, so it renders these where it builds them. Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    # framework.py and the practice cells
    "check.area": ("Graded area: {area}.", "评分项：{area}。"),
    "check.waits": (
        "not checked until “{need}” passes: fix that one first",
        "尚未检查：要等“{need}”通过之后才检查，请先修正那一项",
    ),
    "check.undefined_not_checked": ("not checked because {cls} is not defined", "尚未检查：{cls} 没有定义"),
    "check.undefined": ("{cls} is not defined", "{cls} 没有定义"),
    "check.group_failed": (
        "{count} of the {group} checks failed: see the lines marked ✗ above",
        "“{group}”这组检查中有 {count} 项没有通过：见上面标 ✗ 的行",
    ),
    "check.group_failed_waiting": (
        "{count} of the {group} checks failed and {waiting} wait for them (marked –): fix the lines marked ✗ first",
        "“{group}”这组检查中有 {count} 项没有通过，另有 {waiting} 项要等它们通过后才检查（标 – 的行）。"
        "请先修正标 ✗ 的行",
    ),
    "check.group_waiting": (
        "the {group} checks wait for checks of an earlier practice cell that did not pass (marked –): fix those first",
        "“{group}”这组检查（标 – 的行）要等前面的练习检查通过：请先修正前面标 ✗ 的那几项",
    ),
    "check.all_passed": (
        "All passed. These checks are a preview and worth no points: the hidden suite grades.",
        "全部通过。这些检查只供自查，不计分；成绩由隐藏测试给出。",
    ),
    # the practice cells' groups (practice("exercise 1", ...)), as a student reads them
    "check.group.exercise 1": ("exercise 1", "练习 1"),
    "check.group.exercise 2": ("exercise 2", "练习 2"),
    "check.group.gradients": ("gradients", "梯度"),
    "check.group.loss": ("loss", "loss 方法"),
    "check.group.generate": ("generate", "generate 方法"),
    # conftest.py: the run's header, the classes a notebook did not define, the summary
    "check.header": (
        "weight-tying self-check of {path}  (another file: {var}=path pytest)",
        "Weight Tying 作业自检：{path}（要检查其他文件，请运行 {var}=<文件路径> pytest）",
    ),
    "check.not_defined": (
        "{file} does not define {cls} after running all its cells.",
        "{file} 运行完所有单元格之后，没有定义 {cls}。",
    ),
    "check.cells_raised": (
        " Cells that raised (counting from 1 at the top, markdown included):",
        "抛出异常的单元格（从 notebook 顶部的第 1 个单元格数起，markdown 单元格也计入）：",
    ),
    "check.no_cell_raised": (
        " No cell raised: check the class name's spelling.",
        "没有单元格抛出异常：请核对类名的拼写。",
    ),
    "check.cell": ("  {place}: “{message}”", "  {place}：“{message}”"),
    "check.cell_stopped": ("  {place}: {why}", "  {place}：{why}"),
    # a cell's name (coursecheck.notebook.name_cell): the same words as the grader's pages (the engine's cell.place.*)
    "check.place.full": (
        "cell {number} (in “{heading}”, starting “{first}”)",
        "第 {number} 个单元格（“{heading}”一节，以“{first}”开头）",
    ),
    "check.place.no_heading": ("cell {number} (starting “{first}”)", "第 {number} 个单元格（以“{first}”开头）"),
    "check.place.no_first": ("cell {number} (in “{heading}”)", "第 {number} 个单元格（“{heading}”一节）"),
    "check.place.bare": ("cell {number}", "第 {number} 个单元格"),
    # a cell the notebook's kernel ran (a practice cell's traceback): the number Jupyter shows beside it
    "check.place.kernel": (
        "the cell marked [{count}] (starting “{first}”)",
        "左侧标着 [{count}] 的单元格（以“{first}”开头）",
    ),
    "check.place.kernel_bare": ("the cell marked [{count}]", "左侧标着 [{count}] 的单元格"),
    # budget.py: the self-check's time budget
    "check.budget.cell": (
        "stopped after {seconds} s, the self-check's limit for one cell (an endless loop, or a very long "
        "computation?); the cells after it still ran",
        "运行 {seconds} 秒后被终止，这是自检给每个单元格的时限（是死循环，还是计算量太大？）；它后面的单元格照常运行了",
    ),
    "check.budget.cell_at": (
        "stopped after {seconds} s while running line {line} of {place}, the self-check's limit for one cell (an "
        "endless loop, or a very long computation?); the cells after it still ran",
        "运行 {seconds} 秒后被终止，当时正在运行{place}的第 {line} 行，这是自检给每个单元格的时限（是死循环，还是计算量"
        "太大？）；它后面的单元格照常运行了",
    ),
    "check.budget.check_at": (
        "stopped after {seconds} s, the self-check's limit for one check: your code did not return; it was running "
        "line {line} of {place} (an endless loop?)",
        "这项检查运行了 {seconds} 秒仍未结束，被终止了（自检给每项检查 {seconds} 秒）：你的代码一直没有返回，"
        "当时正在运行{place}的第 {line} 行，是不是那里有死循环？",
    ),
    "check.budget.check": (
        "stopped after {seconds} s, the self-check's limit for one check: your code did not return (an endless "
        "loop, in generate perhaps?)",
        "这项检查运行了 {seconds} 秒仍未结束，被终止了（自检给每项检查 {seconds} 秒）：你的代码一直没有返回，"
        "是不是 generate 里有死循环？",
    ),
    "check.budget.hard_stop": (
        "The self-check stopped: {what} ran past its {seconds} s limit and could not be interrupted (a very long "
        "computation, or a loop that catches every exception). Fix it, save, and run pytest again.",
        "自检已终止：{what}超过了 {seconds} 秒的时限，而且无法中断（计算量太大，或者某个循环捕获了所有异常）。"
        "请修正它，保存后重新运行 pytest。",
    ),
    "check.budget.cells_stopped": (
        "{count} cell(s) did not finish within the self-check's {seconds} s limit per cell and were stopped (an "
        "endless loop?). The grader stops such a cell too, and whatever it was to compute is lost:",
        "有 {count} 个单元格没有在自检给每个单元格的 {seconds} 秒内运行完，被终止了（多半是死循环）。"
        "评分程序同样会终止这样的单元格，它本该算出的结果也就没有了：",
    ),
    "check.waiting.section": (
        "not checked yet: they run once the failure they wait for is fixed",
        "尚未检查：要等它们所依赖的检查通过之后才会运行",
    ),
    "check.waiting": ("  waiting for “{need}”:", "  等待“{need}”通过的检查："),
    "check.raised.section": (
        "cells that raised while your notebook ran top to bottom",
        "notebook 从上到下运行时没有正常结束的单元格",
    ),
    "check.raised.more": ("  ... and {count} more", "  ……另有 {count} 个"),
    "check.raised.note": (
        "(cells count from 1, markdown included)",
        "（从 notebook 顶部的第 1 个单元格数起，markdown 单元格也计入）",
    ),
    # the same, when one of those cells raised the starter code's NotImplementedError
    "check.raised.note_stub": (
        "(cells count from 1, markdown included; NotImplementedError means a stub is still in place)",
        "（从 notebook 顶部的第 1 个单元格数起，markdown 单元格也计入；NotImplementedError 表示还有初始代码没有替换）",
    ),
    "check.covers.section": ("what this self-check covers", "这份自检检查了什么"),
    "check.covers.here": (
        "Checked here, on small models built from your classes:",
        "这里用你的类构造几个小模型，检查：",
    ),
    "check.covers.hidden": (
        "The graded (hidden) suite checks more, for example:",
        "计分用的隐藏测试覆盖面更广，例如：",
    ),
    "check.covers.sizes": ("other sizes, seeds and default arguments", "其他尺寸、随机种子和默认参数"),
    "check.covers.tie": (
        "the tie surviving .to(torch.float64), load_state_dict and an optimizer step",
        "经过 .to(torch.float64)、load_state_dict 和一步优化器更新之后，两端是否仍然共享同一张表",
    ),
    "check.covers.gradient": (
        "the wrapper's shared gradient and its SGD step",
        "MiniGPTWithWeightTying 共享表的梯度，以及一步 SGD 更新",
    ),
    "check.covers.generation": (
        "generation on other models and prompts, and other corner cases",
        "在其他模型和前缀上的生成，以及其他边界情况",
    ),
    "check.covers.points": (
        "These checks are worth no points: the hidden suite grades. Save the notebook before running pytest.",
        "这些检查不计分，成绩由隐藏测试给出。运行 pytest 之前请先保存 notebook。",
    ),
    # each check's title (what a pass means)
    "check.title.test_tied_table_has_shape_v_by_d": (
        "token_embed.weight is a (V, D) table",
        "token embedding 的权重是一张 (V, D) 的表",
    ),
    "check.title.test_tied_head_is_the_embedding_parameter": (
        "lm_head.weight is token_embed.weight, from construction on",
        "构造完成时，LM head 的权重就已经是 token embedding 的那个参数对象",
    ),
    "check.title.test_tied_holds_one_table_and_no_bias": (
        "the model holds V * D parameters: one table, no bias",
        "模型恰好有 V * D 个参数：一张表，没有偏置",
    ),
    "check.title.test_tied_forward_returns_logits": (
        "forward returns the logits E[ids] @ E.T, shape (B, T, V)",
        "forward 返回 logits E[ids] @ E.T，形状为 (B, T, V)",
    ),
    "check.title.test_tied_gradients_from_both_ends_add_up": (
        "the shared .grad is the lookup path's gradient plus the head path's",
        "共享表的 .grad 等于查表路径的梯度加上 LM head 路径的梯度",
    ),
    "check.title.test_wrapper_holds_a_dnnlpy_minigpt": (
        "self.minigpt is a dnnlpy MiniGPT",
        "self.minigpt 是 dnnlpy 的 MiniGPT",
    ),
    "check.title.test_wrapper_minigpt_is_tied": (
        "its head is its token table; the positional table stays separate",
        "self.minigpt 的 LM head 与 token embedding 共享同一张表；位置表保持独立",
    ),
    "check.title.test_wrapper_passes_every_hyperparameter": (
        "every hyper-parameter reaches the MiniGPT (sizes, num_heads, dropout)",
        "每个超参数都传给了 MiniGPT（各个尺寸、num_heads、dropout）",
    ),
    "check.title.test_wrapper_forward_returns_minigpt_logits": (
        "forward returns the MiniGPT's logits (B, T, V)",
        "forward 返回 MiniGPT 的 logits (B, T, V)",
    ),
    "check.title.test_wrapper_loss_without_targets": (
        "loss(ids): next-token cross-entropy of ids[:, 1:] given ids[:, :-1]",
        "不给 targets 时的 loss：由 ids[:, :-1] 预测 ids[:, 1:] 的平均交叉熵",
    ),
    "check.title.test_wrapper_loss_with_shorter_targets": (
        "loss(ids, targets) with targets of shape (B, T-1), the chapter's form",
        "targets 形状为 (B, T-1) 时的 loss（教材的写法）",
    ),
    "check.title.test_wrapper_loss_with_full_length_targets": (
        "loss(ids, targets) with targets of shape (B, T), nanoGPT's form",
        "targets 形状为 (B, T) 时的 loss（nanoGPT 的写法）",
    ),
    "check.title.test_generate_writes_its_own_loop": (
        "generate runs its own loop (no MiniGPT.generate, no dnnlpy sampling helper)",
        "generate 用的是你自己写的循环（不调用库里的 MiniGPT.generate 或采样辅助函数）",
    ),
    "check.title.test_generate_is_greedy_and_keeps_the_prompt": (
        "generate keeps the prompt and appends the argmax of the last position, step by step",
        "generate 保留前缀，每一步把最后一个位置的 argmax 接到末尾",
    ),
    "check.title.test_generate_turns_dropout_off": (
        "generate switches dropout off while it decodes, whatever mode the model is in",
        "无论模型处于哪种模式，generate 生成时都关闭 dropout",
    ),
    "check.title.test_generate_crops_past_block_size": (
        "past block_size, each step sees only the last block_size tokens",
        "超过 block_size 之后，每一步只看最后 block_size 个 token",
    ),
}
