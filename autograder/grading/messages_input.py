"""Trusted: why a hand-in was not run, in the engine's words, English and Chinese side by side: what
``submissions.read_submission`` and ``safe_files`` refuse (a ``SubmissionRefused`` carrying one of these ids and
its parameters), said on the student's page under ``run.not_run`` and in the report's *Needs a look*. A part of
the engine's catalog (``catalog.MESSAGES``), where its rules are written.
"""

from __future__ import annotations

__all__ = ["INPUT"]

_CLEAR_EN = "clear the notebook's outputs (Edit > Clear Outputs of All Cells), save, and hand it in again"
_CLEAR_ZH = (
    "请清除 notebook 的输出（Edit > Clear Outputs of All Cells，中文界面为“编辑 → 清除所有单元格的输出”），"
    "保存后重新提交"
)
_RESAVE_EN = "open it in Jupyter, save it (File > Save), and hand in the .ipynb file it writes"
_RESAVE_ZH = "请在 Jupyter 中打开它并保存（File > Save，中文界面为“文件 → 保存”），然后提交保存得到的 .ipynb 文件"
_FIX_EN = (
    "the grader reads only real files inside the submission folder; hand in the notebook file itself "
    "(a copy, not a link or a shortcut)"
)
_FIX_ZH = "评分程序只读取提交文件夹里真实存在的文件；请提交 notebook 文件本身（一份副本，而不是链接或快捷方式）"

INPUT: dict[str, tuple[str, str]] = {
    "input.too_large": (
        "{name} is over the {limit} MiB limit: C" + _CLEAR_EN[1:],
        "{name} 超过了 {limit} MiB 的上限：" + _CLEAR_ZH,
    ),
    "input.too_many_values": (
        "{name} holds over {n} JSON values: " + _CLEAR_EN,
        "{name} 含有超过 {n} 个 JSON 值：" + _CLEAR_ZH,
    ),
    "input.nested_too_deeply": (
        "{name} is nested too deeply to be a notebook Jupyter saved: " + _RESAVE_EN,
        "{name} 嵌套层数太多，不像是 Jupyter 保存的 notebook：" + _RESAVE_ZH,
    ),
    "input.not_json": (
        "{name} is not a notebook (not valid JSON: {why}): " + _RESAVE_EN,
        "{name} 不是 notebook（它不是合法的 JSON，解析器的提示是“{why}”）：" + _RESAVE_ZH,
    ),
    "input.no_cells": (
        "{name} is not a notebook (no list of cells): " + _RESAVE_EN,
        "{name} 不是 notebook（没有单元格列表）：" + _RESAVE_ZH,
    ),
    "input.cells_nested": (
        "{name}'s cells are nested over {n} levels deep: " + _RESAVE_EN,
        "{name} 的单元格嵌套超过了 {n} 层：" + _RESAVE_ZH,
    ),
    "input.unreadable": (
        "{name} could not be read ({why}): hand it in again",
        "无法读取 {name}（“{why}”）：请重新提交",
    ),
    "input.missing": ("no submission file at {path}", "找不到提交文件 {path}"),
    "input.not_py_or_ipynb": (
        "{name} is neither a .py nor an .ipynb file: pass the student's notebook or script",
        "{name} 既不是 .py 文件，也不是 .ipynb 文件：请提交学生的 notebook 或 .py 脚本",
    ),
    "input.outside_root": (
        "{name} is not inside the folder {root} given to the grader",
        "{name} 不在交给评分程序的文件夹 {root} 里",
    ),
    "input.not_a_file_in_root": (
        "{name} is not a file inside the folder {root} given to the grader",
        "{name} 不是交给评分程序的文件夹 {root} 里的文件",
    ),
    "input.not_a_plain_folder": ("{name} is not a plain folder: " + _FIX_EN, "{name} 不是普通文件夹：" + _FIX_ZH),
    "input.link_not_folder": (
        "{name} is a symbolic link, not a folder: " + _FIX_EN,
        "{name} 是符号链接，不是文件夹：" + _FIX_ZH,
    ),
    "input.link_not_file": (
        "{name} is a symbolic link, not a file: " + _FIX_EN,
        "{name} 是符号链接，不是文件：" + _FIX_ZH,
    ),
    "input.link": ("{name} is a symbolic link: " + _FIX_EN, "{name} 是符号链接：" + _FIX_ZH),
    "input.special_file": (
        "{name} is a special file (a FIFO, device or socket), not a regular file: " + _FIX_EN,
        "{name} 是特殊文件（管道、设备或套接字），不是普通文件：" + _FIX_ZH,
    ),
    "input.folder": ("{name} is a folder, not a regular file: " + _FIX_EN, "{name} 是文件夹，不是普通文件：" + _FIX_ZH),
    "input.changed": (
        "{name} changed while the grader opened it: " + _FIX_EN,
        "评分程序打开 {name} 时它被改动了：" + _FIX_ZH,
    ),
}
