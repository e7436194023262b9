"""中文版的代码注释：教学注释和两个类的 docstring（英文原文 -> 中文）。

The Chinese edition's words for the code's comments, kept apart from its prose (text_zh.py, which exports
them): code is shared with the English edition, only these comments and docstrings are translated.
"""

from __future__ import annotations

# The code's teaching comments and the two classes' docstrings (comments.py): English words -> this edition's.
COMMENTS = {
    "keep the output readable; warnings are not errors here": "让输出保持清爽：这里的警告都不是错误",
    "(3,) -> (3, D), no one-hot built": "(3,) -> (3, D)，不构造 one-hot 向量",
    "(B, T, V): a confident model's scores": "(B, T, V)：一个很有把握的模型给出的分数",
    "(B, T): each target is the top-scored token, so it is right everywhere": (
        "(B, T)：每个目标都是得分最高的 token，所以每个位置都预测对了"
    ),
    "(B, T, V), each row sums to 1": "(B, T, V)，每一行之和都是 1",
    "used only by the lookup": "只供查表路径使用",
    "used only by the head": "只供 LM head 路径使用",
    "float32: 4 bytes per parameter": "float32：每个参数占 4 字节",
    "The same count on real models: a shared Parameter is counted once.": (
        "在真实的模型上数一数：共享的参数对象只计一次。"
    ),
    "Token embedding and LM head sharing one (V, D) table: logits = E[input_ids] @ E.T.": (
        "token embedding 与 LM head 共享同一张 (V, D) 表：logits = E[input_ids] @ E.T。"
    ),
    "A dnnlpy MiniGPT with its token embedding and LM head tied, plus greedy generation.": (
        "dnnlpy 的 MiniGPT，其 token embedding 与 LM head 共享同一张表；另有一个贪心生成方法 generate。"
    ),
    # the reference answer's comments (the solution regions: the teacher's source notebook only)
    "weight: (V, D)": "权重形状为 (V, D)",
    "Tie by sharing the Parameter object itself, so gradients from both uses add up in one .grad.": (
        "共享参数对象本身，两条路径的梯度才会累加进同一个 .grad。"
    ),
    "(B, T, D) -> (B, T, V): logits, no softmax": "(B, T, D) -> (B, T, V)：logits，不做 softmax",
    "no dropout while decoding, so greedy output is deterministic": "生成时关闭 dropout，贪心生成的结果才是确定的",
    "the position table only has block_size rows": "位置表只有 block_size 行",
    "last position: (B, V) -> (B, 1)": "最后一个位置：(B, V) -> (B, 1)",
}
