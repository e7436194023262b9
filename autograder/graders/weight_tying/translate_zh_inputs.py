"""Trusted and public: translate_zh's rules for why a hand-in was not run at all (autograder.submissions and
autograder.safe_files: too large, not a notebook, a link, outside the folder), shown after "Your submission
was not run:" in the run summary. File names and what a parser said are kept verbatim."""

from __future__ import annotations

from .translate_zh_rules import rule

__all__ = ["RULES"]

# A file name as these messages give it: quoted by repr, or one word up to the sentence's colon.
_NAME = r"(?P<name>'[^'\n]*'|[^\s：:'「」]+)"
_CLEAR = "Clear Outputs of All Cells"
_FIX = (
    "the grader reads only real files inside the submission folder; hand in the notebook file itself "
    "(a copy, not a link or a shortcut)"
)
_FIX_ZH = "评分程序只读取提交文件夹里真实存在的文件；请提交 notebook 文件本身（一份副本，而不是链接或快捷方式）"
_RESAVE = "open it in Jupyter, save it (File > Save), and hand in the .ipynb file it writes"
_RESAVE_ZH = "请在 Jupyter 中打开它并保存（⟦File > Save⟧），然后提交保存得到的 .ipynb 文件"


def _named(english: str, chinese: str) -> tuple[str, str]:
    """rule(), with {name} matching one file name only (never the sentence before it)."""
    pattern, template = rule(english, chinese)
    return pattern.replace("(?P<name>[^\\n]*?)", _NAME, 1), template


RULES = [
    _named(
        "{name} is over the {limit} MiB limit: Clear the notebook's outputs (Edit > " + _CLEAR + "), save, "
        "and hand it in again",
        "{name} 超过了 {limit} MiB 的上限：请清除 notebook 的输出（⟦Edit > " + _CLEAR + "⟧），保存后重新提交",
    ),
    _named(
        "{name} holds over {n} JSON values: clear the notebook's outputs (Edit > " + _CLEAR + "), save, "
        "and hand it in again",
        "{name} 含有超过 {n} 个 JSON 值：请清除 notebook 的输出（⟦Edit > " + _CLEAR + "⟧），保存后重新提交",
    ),
    _named(
        "{name} is nested too deeply to be a notebook Jupyter saved: " + _RESAVE,
        "{name} 嵌套层数太多，不像是 Jupyter 保存的 notebook：" + _RESAVE_ZH,
    ),
    _named(
        "{name} is not a notebook (not valid JSON: {why}): " + _RESAVE,
        "{name} 不是 notebook（不是合法的 JSON：「⟦{why}⟧」）：" + _RESAVE_ZH,
    ),
    _named(
        "{name} is not a notebook (no list of cells): " + _RESAVE,
        "{name} 不是 notebook（没有单元格列表）：" + _RESAVE_ZH,
    ),
    _named(
        "{name}'s cells are nested over {n} levels deep: " + _RESAVE,
        "{name} 的单元格嵌套超过了 {n} 层：" + _RESAVE_ZH,
    ),
    _named("{name} could not be read ({why}): hand it in again", "无法读取 {name}（「⟦{why}⟧」）：请重新提交"),
    rule("no submission file at {path*}", "找不到提交文件 「⟦{path}⟧」"),
    _named(
        "{name} is neither a .py nor an .ipynb file: pass the student's notebook or script",
        "{name} 既不是 .py 文件，也不是 .ipynb 文件：请提交学生的 notebook 或 .py 脚本",
    ),
    _named(
        "{name} is not inside the folder {root} given to the grader",
        "{name} 不在交给评分程序的文件夹 「⟦{root}⟧」 里",
    ),
    _named(
        "{name} is not a file inside the folder {root} given to the grader",
        "{name} 不是交给评分程序的文件夹 「⟦{root}⟧」 里的文件",
    ),
    _named("{name} is not a plain folder: " + _FIX, "{name} 不是普通文件夹：" + _FIX_ZH),
    _named(
        "{name} is a symbolic link, not a {what}: " + _FIX,
        "{name} 是符号链接，不是 {what}：" + _FIX_ZH,
    ),
    _named("{name} is a symbolic link: " + _FIX, "{name} 是符号链接：" + _FIX_ZH),
    _named(
        "{name} is a special file (a FIFO, device or socket), not a regular file: " + _FIX,
        "{name} 是特殊文件（管道、设备或套接字），不是普通文件：" + _FIX_ZH,
    ),
    _named("{name} is a folder, not a regular file: " + _FIX, "{name} 是文件夹，不是普通文件：" + _FIX_ZH),
    _named("{name} changed while the grader opened it: " + _FIX, "评分程序打开 {name} 时它被改动了：" + _FIX_ZH),
]
