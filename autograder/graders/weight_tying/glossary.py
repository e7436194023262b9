"""Trusted: the Chinese edition's terms, one for each idea, each anchored in the sentence of chapter 18.4 it comes from.

The chapter keeps some terms in English inside its Chinese text (``BOOK_TERMS``: token, LM head, token
embedding, positional embedding, weight tying, hidden size, logits, forward, loss ...) and says the rest in
Chinese (词表, 查表, 内积, 参数对象, 共享权重, 输入端/输出端, 前缀, 反向传播). Each ``Term`` below is the one word
the kit writes for an idea, the variants it rejects and, for an idea the chapter names, the chapter's sentence
that names it (``Term.book``: its section and the sentence, quoted as the chapter writes it); an idea the chapter
does not name (the grader's own machinery) carries the reason the kit's word was chosen (``Term.why``) instead.
Weight tying is written "weight tying", as the chapter does, and its verb is 共享 (共享权重, 共享同一张表),
never 绑定. The token embedding's table is the token embedding 表 (the chapter's token embedding 的表), never
"embedding 表" alone, which could be either table (``BARE``). ``SHORT_FORMS`` are the shorthands the notebook
introduces once (位置表, 交叉熵), and ``CALQUES`` the phrases a reader took for translated English, each with what to
write instead.
``zh_text.py`` reads these tables; tests hold every Chinese string the kit can show to them
(tests/autograder/graders/weight_tying/test_glossary.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Term", "TERMS", "BOOK_TERMS", "ENGLISH_ALLOWED", "SHORT_FORMS", "CALQUES", "BARE", "rejected_in", "bare_in"]


@dataclass(frozen=True)
class Term:
    use: str  # the word the kit writes
    rejected: tuple[str, ...]  # variants that must not appear in Chinese text
    meaning: str  # the English idea, for a reader of this table
    book: tuple[str, str] = ("", "")  # (section, the chapter's sentence that uses the word), when it names the idea
    why: str = ""  # an idea the chapter does not name: why this word
    says: str = (
        ""  # what that sentence writes, when the kit's word is its short form (位置表: positional embedding 的表)
    )

    @property
    def in_book(self) -> str:
        """The words of the chapter's sentence the kit's word comes from."""
        return self.says or self.use


def _book(section: str, sentence: str) -> tuple[str, str]:
    return (section, sentence)


TERMS = (
    # -- the chapter's own words, each with the sentence that uses it
    Term(
        "token",
        ("词元", "标记符"),
        "token (the book keeps it in English)",
        _book("18.4 引言", "18.1 讲清楚了语言模型的目标：给定前缀，预测下一个 token；"),
    ),
    Term(
        "前缀",
        ("提示词", "提示语"),
        "the prompt: the ids generate continues",
        _book("18.4 引言", "18.1 讲清楚了语言模型的目标：给定前缀，预测下一个 token；"),
    ),
    Term(
        "词表",
        ("词汇表",),
        "the vocabulary",
        _book("18.4 引言", "输入和输出都和同一个词表有关。"),
    ),
    Term(
        "hidden state",
        ("隐藏状态", "隐状态"),
        "hidden state (kept in English)",
        _book(
            "18.4 引言",
            "输入时，模型需要把 token id 转成向量；输出时，模型又要把 hidden state 映射回词表大小的 logits。",
        ),
    ),
    Term(
        "hidden size",
        ("向量维度", "隐藏维度", "隐层维度", "嵌入维度"),
        "D, the width of every vector (embed_dim)",
        _book("18.4.1", "假设 tokenizer 的词表大小是 \\(V\\)，模型的 hidden size 是 \\(D\\)。"),
    ),
    Term(
        "token embedding",
        ("词元嵌入", "词嵌入", "token 嵌入"),
        "token embedding (kept in English)",
        _book("18.4.1", "输入端的 token embedding 是一个查表矩阵："),
    ),
    Term(
        "LM head",
        ("语言模型头", "输出头"),
        "LM head (kept in English)",
        _book("18.4.1", "输出端的 LM head 是一个线性层："),
    ),
    Term(
        "输入端",
        ("入口",),
        "the input end (the lookup)",
        _book("18.4.1", "也就是说，输入端是从 id 到向量，输出端是从向量到 id 的打分。"),
    ),
    Term(
        "输出端",
        ("出口",),
        "the output end (the head)",
        _book("18.4.1", "也就是说，输入端是从 id 到向量，输出端是从向量到 id 的打分。"),
    ),
    Term(
        "内积",
        ("点积", "点乘", "数量积"),
        "the dot product a logit is",
        _book("18.4.1", "输出时，我们把 hidden state 和 W_out 的每一行做内积，得到每个 token 的 logit："),
    ),
    Term(
        "查表",
        ("查找表",),
        "an embedding's lookup",
        _book("18.4.2", "nn.Embedding 做的事情更像是查表："),
    ),
    Term(
        "embedding",
        ("嵌入",),
        "an embedding in general (the book writes 'embedding')",
        _book("18.4.2", "所以 embedding 的本质是："),
    ),
    Term(
        "positional embedding",
        ("位置嵌入", "位置编码"),
        "positional embedding (kept in English)",
        _book("18.4.3", "在 18.2 里，我们把 token embedding 和 positional embedding 加在一起："),
    ),
    Term(
        "位置表",
        ("位置向量表", "positional embedding 表"),
        "the positional embedding's table, (block_size, D): introduced once (SHORT_FORMS)",
        _book("18.4.3", "Positional embedding 的表大小由最大上下文长度决定："),
        says="positional embedding 的表",
    ),
    Term(
        "token embedding 表",
        ("token 表", "词向量表", "嵌入表"),
        "the token embedding's table, (V, D): the chapter's words less their 的; token 表 reads as the vocabulary, "
        "and embedding 表 alone could be either table (BARE)",
        _book("18.4.3", "Token embedding 的表大小由词表决定："),
        says="token embedding 的表",
    ),
    Term(
        "GPT block",
        ("解码块", "解码器块"),
        "a transformer block of MiniGPT",
        _book("18.4.4", "经过 GPT blocks 之后，每个位置都有一个 hidden state："),
    ),
    Term(
        "交叉熵",
        ("交叉墒", "交叉熵损失"),
        "cross entropy: the book keeps it in English; the kit writes 交叉熵, introduced as 交叉熵（cross entropy）",
        _book("18.4.4", "训练时，我们通常直接把 logits 送进 cross entropy。"),
        says="cross entropy",
    ),
    Term(
        "weight tying",
        ("权重绑定", "权重捆绑", "权值绑定"),
        "weight tying, the noun: kept in English as the book does",
        _book("18.4.5", "既然它们都在为同一个词表里的 token 学向量，能不能直接共享同一组参数？这就是 weight tying。"),
    ),
    Term(
        "共享",
        ("绑定", "捆绑", "系结"),
        "to tie, the verb: 共享权重, 共享同一张表, 共享同一组参数",
        _book("18.4 引言", "Weight Tying：为什么输入 embedding 和输出 LM head 可以共享权重。"),
    ),
    Term(
        "参数对象",
        ("Parameter 对象",),
        "one nn.Parameter object",
        _book("18.4.5", "这样 tok_embed.weight 和 lm_head.weight 不再是两份独立参数，而是同一个参数对象。"),
    ),
    Term(
        "forward",
        ("前向计算", "前向传播", "正向传播"),
        "a forward call (the method's name, as the book writes it in its Chinese text)",
        _book("18.4.7", "做 weight tying 之后，同一个参数会在 forward 里被用两次："),
    ),
    Term(
        "反向传播",
        ("后向传播", "逆向传播", "反传"),
        "backpropagation, backward()",
        _book("18.4.7", "因此反向传播时，它也会收到两部分梯度贡献。"),
    ),
    Term(
        "查表路径",
        ("token embedding 路径", "embedding 路径", "嵌入路径"),
        "the gradient's path through the lookup (the other is the LM head 路径)",
        _book(
            "18.4.7",
            "具体来说，共享权重在计算图中有两条使用路径：一条来自输入端的 embedding，另一条来自输出端的 LM head。",
        ),
        says="使用路径",
    ),
    Term(
        "loss",
        ("损失",),
        "loss (kept in English)",
        _book(
            "18.4.10", "接下来就该进入训练问题：给定一长串 token，怎么切 batch？怎么设 context length？怎么计算 loss？"
        ),
    ),
    Term(
        "batch",
        ("批大小", "批内", "批中", "整个批", "批次"),
        "a batch, B rows (batch_size)",
        _book(
            "18.4.10", "接下来就该进入训练问题：给定一长串 token，怎么切 batch？怎么设 context length？怎么计算 loss？"
        ),
    ),
    Term(
        "tokenizer",
        ("分词器",),
        "tokenizer (kept in English)",
        _book("18.4.9", "这也是为什么不能随便拿一个 tokenizer 去配另一个不匹配的模型。"),
    ),
    # -- ideas the chapter does not name (the exercises' and the grader's own): the kit's word, and why
    Term(
        "评估模式",
        ("eval 模式", "eval模式", "推理模式"),
        "eval mode (model.eval())",
        why="the usual Chinese for model.eval(); the chapter has no dropout",
    ),
    Term(
        "贪心生成",
        ("贪心解码",),
        "greedy generation (argmax at every step)",
        why="the chapter names the step (做 argmax 或采样), not the loop; 贪心 is the usual Chinese name for it",
    ),
    Term(
        "generate",
        ("解码器", "生成函数"),
        "the method the student writes (there is no decoder here; 生成函数 reads as a generating function)",
        why="the method's own name, as the student writes it",
    ),
    Term(
        "错开一位",
        ("右移一位", "左移一位", "错位"),
        "targets shifted by one: ids[:, 1:]",
        why="the chapter shows it in code only (token_ids[:, :-1] / token_ids[:, 1:])",
    ),
    Term(
        "截断",
        ("截取",),
        "cropping the context to its last block_size tokens",
        why="the chapter names the limit (block_size), not the step; 截断 is what one does to a sequence too long",
    ),
    Term(
        "参数量",
        ("参数计数", "参数数目", "参数个数"),
        "parameter count",
        why="the usual Chinese word for a model's size",
    ),
    Term(
        "log_softmax",
        ("log-softmax", "log softmax", "对数 softmax", "对数softmax"),
        "log-softmax: F.log_softmax, the step a cross-entropy loss takes first",
        why="the function's name as code writes it (F.log_softmax); every message writes it so",
    ),
    Term("常见错误", ("误解",), "a misconception the grader names", why="what a teacher calls it in class"),
    Term("校验码", ("封印", "封签"), "the runner's seal on a record: an integrity check", why="the grader's machinery"),
    Term(
        "初始代码", ("桩代码", "起始代码"), "the starter code (raise NotImplementedError())", why="the notebook's word"
    ),
    Term(
        "共享同一参数对象",
        ("参数同一性",),
        "the graded area 'parameter identity'",
        why="a graded area's name, the notebook's points table's",
    ),
    Term(
        "形状与输出数值",
        ("张量形状",),
        "the graded area 'shape flow' (it holds the loss tests too)",
        why="a graded area's name, the notebook's points table's",
    ),
)

# The shorthands the Chinese notebook introduces once, each as written where it is introduced: before it, the
# shorthand is never used (tests/assignments: the notebook's prose in cell order).
SHORT_FORMS = {
    "位置表": "positional embedding 的表（下文简称位置表）",
    "交叉熵": "交叉熵（cross entropy）",
}

# Phrases a native reader took for translated English (the 2026-12 review): phrase -> what to write instead.
CALQUES = {
    "包装模型": "MiniGPTWithWeightTying, or 练习 2 的模型",
    "不重复的参数": "共有 N 个参数（共享的参数对象只算一次）",
    "预演": "只供自查",
    "移动": "更新, 变化量 (a parameter is updated, it does not move)",
    "的表的": "one 的: token embedding 权重的 .grad",
    "用 generate 生成": "generate",
    "更新了两次的量": "变化量是应有的两倍",
    "运行程序": "评分程序中负责运行你代码的部分",
    "课程包": "课程的自动评分程序",
    "在此之前": "a referent the reader can see: 提交之前",
    "一构造好": "构建完成时",
    "被压向": "趋近",
    "一路上": "整个过程中",
    "stacked 的": "no English inside Chinese",
    # the fourth reading (issue 48)
    "两处用途": "两条路径 (the chapter's 两条使用路径)",
    "表拷贝": "表副本 (副本, as everywhere else)",
    "点名": "指出 (a grader points a mistake out; it does not call the roll)",
    "是死循环吗": "（多半是死循环）, or a sentence of its own: 这通常意味着死循环",
    "已是最新": "无需重评",
    "类别：运行": "状态",
    "会造出": "会产生",
    # the fifth reading (issue 48, round 19)
    "报出的异常": "抛出的异常 (code raises an exception: 抛出)",
}

# English the chapter itself keeps in its Chinese text: a Chinese student reads these in the book.
BOOK_TERMS = (
    "LM head",
    "token embedding",
    "positional embedding",
    "weight tying",
    "Weight Tying",
    "hidden state",
    "hidden size",
    "GPT block",
    "cross entropy",
    "embedding",
    "tokenizer",
    "logits",
    "logit",
    "token",
    "tokens",
    "loss",
    "softmax",
    "argmax",
    "dropout",
    "batch",
    "forward",
)

# Other English a Chinese student may read, outside code: word -> why it stays English.
ENGLISH_ALLOWED = {
    "notebook": "Jupyter's own word for the file; the course's Chinese material says notebook",
    "markdown": "the cell type as Jupyter's menu names it",
    "pytest": "the command the student runs",
    "autograd": "PyTorch's name for its differentiation engine",
    "dtype": "the tensor attribute the student reads in code",
    "id": "token id, as the book writes it",
    "ids": "token ids, as the book writes them",
    "one-hot": "the book's term for the one-hot vector",
    "inf": "the float value as Python prints it",
    "max_norm": "a constructor argument (code)",
    "int": "a Python type name",
    "dict": "a Python type name",
    "None": "a Python value, as the student's code returns it",
    "True": "a Python value (weight_tying=True)",
    "False": "a Python value (weight_tying=False)",
    "Python": "the language's name",
    "Jupyter": "the program's name",
    "JupyterLab": "the program's name (its menus are named as it names them)",
    "dnnlpy": "the course's library, as the student imports it",
    "generate": "the method the student writes (MiniGPTWithWeightTying.generate)",
    "minigpt": "the attribute the student writes (self.minigpt)",
    "detach": "the tensor method detach()",
    "logsumexp": "the function torch.logsumexp",
    "eps": "LayerNorm's argument",
    "lr": "the optimizer's argument (learning rate)",
    "ln": "the natural logarithm in a formula (ln V)",
    "log": "the logarithm in log_softmax, a formula",
    "targets": "the loss's argument, as the student names it (loss(ids, targets))",
    "self": "self.minigpt, self.token_embed: attributes the student writes",
    "runner": "the grader's runner, named once beside its Chinese description for a TA who reads the logs",
    "nbgrader": "the course's assignment system, by its name (its gradebook, its timestamp.txt)",
    "autograde": "nbgrader's own command (nbgrader autograde), named in the instructor's report",
    "FAILED": "pytest's own word in its summary, which the notebook explains",
    "skipped": "pytest's own word in its summary, which the notebook explains",
}


# A word that names one of two things unless its qualifier is there: (pattern of the bare use, what to write).
# "embedding 表" alone could be the token table or the position table (a reader of the fifth round asked which).
BARE = {r"(?<!token )(?<!positional )embedding 表": "token embedding 表 (or 位置表): name the table"}


def bare_in(text: str) -> list[tuple[str, str]]:
    """(the bare word as found, what to write) for each of ``BARE``'s words used without its qualifier."""
    return [(m.group(0), write) for pattern, write in BARE.items() for m in re.finditer(pattern, text)]


def rejected_in(text: str) -> list[tuple[str, str]]:
    """(variant, the term to use) for each rejected variant or calque in `text`."""
    found = [(variant, term.use) for term in TERMS for variant in term.rejected if variant in text]
    return found + [(phrase, write) for phrase, write in CALQUES.items() if phrase in text]
