"""Trusted: the Chinese edition's terms, one for each idea, anchored in the book's own usage (chapter 18.4).

The chapter keeps some terms in English inside its Chinese text (``BOOK_TERMS``: token, LM head, token
embedding, positional embedding, weight tying, logits, loss ...) and says the rest in Chinese (词表, 查表,
参数对象, 共享权重, 输入端/输出端, 前缀 for the prompt). Each ``Term`` below is the one word the kit uses
and the variants it rejects; ``ENGLISH_ALLOWED`` is the short list of other English words a Chinese student may
read, each with its reason. ``zh_text.py`` reads both; tests hold every Chinese string the kit can show to them
(tests/autograder/graders/weight_tying/test_glossary.py). Weight tying is 权重绑定, introduced once as
权重绑定（weight tying，即共享权重）, and 绑定 after that.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Term", "TERMS", "BOOK_TERMS", "ENGLISH_ALLOWED", "rejected_in"]


@dataclass(frozen=True)
class Term:
    use: str  # the word the kit writes
    rejected: tuple[str, ...]  # variants that must not appear in Chinese text
    meaning: str  # the English idea, for a reader of this table


TERMS = (
    Term("token", ("词元",), "token (the book keeps it in English)"),
    Term("token embedding", ("词元嵌入", "词嵌入"), "token embedding (kept in English)"),
    Term("positional embedding", ("位置嵌入", "位置编码"), "positional embedding (kept in English)"),
    Term("embedding", ("嵌入",), "an embedding in general (the book writes 'embedding')"),
    Term("LM head", ("语言模型头", "输出头"), "LM head (kept in English)"),
    Term("hidden state", ("隐藏状态", "隐状态"), "hidden state (kept in English)"),
    Term("tokenizer", ("分词器",), "tokenizer (kept in English)"),
    Term("GPT block", ("解码块", "解码器块"), "a transformer block of MiniGPT (the book: GPT block)"),
    Term("loss", ("损失",), "loss (kept in English)"),
    Term("前缀", ("提示词", "提示语"), "the prompt: the ids generate continues"),
    Term("前向计算", ("前向传播",), "a forward call"),
    Term("评估模式", ("eval 模式", "eval模式", "推理模式"), "eval mode (model.eval())"),
    Term("输入端", ("入口",), "the input end (the lookup)"),
    Term("输出端", ("出口",), "the output end (the head)"),
    Term("权重绑定", ("权重共享", "捆绑"), "weight tying: 权重绑定（即共享权重）, then 绑定"),
    Term("参数对象", ("Parameter 对象",), "one nn.Parameter object"),
    Term("参数量", ("参数计数", "参数数目", "参数个数"), "parameter count"),
    Term("词表", ("词汇表",), "the vocabulary"),
    Term("查表", ("查找表",), "an embedding's lookup"),
    Term("生成函数", ("解码器",), "the generate routine (there is no decoder here)"),
    Term("贪心生成", ("贪心解码",), "greedy generation (argmax at every step)"),
    Term("错开一位", ("右移一位", "左移一位", "错位"), "targets shifted by one: ids[:, 1:]"),
    Term("常见错误", ("误解",), "a misconception the grader names"),
    Term("校验", ("封印",), "the runner's seal on a record: an integrity check"),
    Term("初始代码", ("桩代码",), "the starter code (raise NotImplementedError())"),
    Term("共享同一参数对象", ("参数同一性",), "the graded area 'parameter identity'"),
    Term("形状与输出数值", ("张量形状",), "the graded area 'shape flow' (it holds the loss tests too)"),
)

# English the chapter itself keeps in its Chinese text: a Chinese student reads these in the book.
BOOK_TERMS = (
    "LM head",
    "token embedding",
    "positional embedding",
    "weight tying",
    "hidden state",
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
    "dnnlpy": "the course's library, as the student imports it",
    "generate": "the method the student writes (MiniGPTWithWeightTying.generate)",
    "minigpt": "the attribute the student writes (self.minigpt)",
    "detach": "the tensor method detach()",
    "logsumexp": "the function torch.logsumexp",
    "eps": "LayerNorm's argument",
    "lr": "the optimizer's argument (learning rate)",
    "ln": "the natural logarithm in a formula (ln V)",
    "log": "the logarithm in (log-)softmax, a formula",
    "targets": "the loss's argument, as the student names it (loss(ids, targets))",
    "self": "self.minigpt, self.token_embed: attributes the student writes",
}


def rejected_in(text: str) -> list[tuple[str, str]]:
    """(variant, the term to use) for each rejected variant in `text`."""
    return [(variant, term.use) for term in TERMS for variant in term.rejected if variant in text]
