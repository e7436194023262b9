"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds why a hand-in was not run at all (grading.submissions, grading.safe_files). Part of the message
catalog (messages.py assembles it): id -> (English, Chinese). The engine writes them in English in the run
summary. The English is matched where the Chinese is wanted ({name} a value, {name*} the rest of the line; see
translate_zh.py), and ⟦...⟧ in the Chinese marks text kept as it is. Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    "input.is_over_the_mib_limit_clear": (
        (
            "{name} is over the {limit} MiB limit: Clear the notebook's outputs (Edit > Clear Outputs"
            " of All Cells), save, and hand it in again"
        ),
        (
            "{name} 超过了 {limit} MiB 的上限：请清除 notebook 的输出（⟦Edit > Clear Outputs of All Cells"
            "⟧），保存后重新提交"
        ),
    ),
    "input.holds_over_json_values_clear_the": (
        (
            "{name} holds over {n} JSON values: clear the notebook's outputs (Edit > Clear Outputs of"
            " All Cells), save, and hand it in again"
        ),
        (
            "{name} 含有超过 {n} 个 JSON 值：请清除 notebook 的输出（⟦Edit > Clear Outputs of All Cells"
            "⟧），保存后重新提交"
        ),
    ),
    "input.is_nested_too_deeply_to_be": (
        (
            "{name} is nested too deeply to be a notebook Jupyter saved: open it in Jupyter, save it (File"
            " > Save), and hand in the .ipynb file it writes"
        ),
        (
            "{name} 嵌套层数太多，不像是 Jupyter 保存的 notebook：请在 Jupyter 中打开它并保存（⟦File >"
            " Save⟧），然后提交保存得到的 .ipynb 文件"
        ),
    ),
    "input.is_not_a_notebook_not_valid": (
        (
            "{name} is not a notebook (not valid JSON: {why}): open it in Jupyter, save it (File > Save),"
            " and hand in the .ipynb file it writes"
        ),
        (
            "{name} 不是 notebook（不是合法的 JSON：「⟦{why}⟧」）：请在 Jupyter 中打开它并保存（⟦File"
            " > Save⟧），然后提交保存得到的 .ipynb 文件"
        ),
    ),
    "input.is_not_a_notebook_no_list": (
        (
            "{name} is not a notebook (no list of cells): open it in Jupyter, save it (File > Save), and"
            " hand in the .ipynb file it writes"
        ),
        (
            "{name} 不是 notebook（没有单元格列表）：请在 Jupyter 中打开它并保存（⟦File > Save⟧），然"
            "后提交保存得到的 .ipynb 文件"
        ),
    ),
    "input.s_cells_are_nested_over_levels": (
        (
            "{name}'s cells are nested over {n} levels deep: open it in Jupyter, save it (File > Save),"
            " and hand in the .ipynb file it writes"
        ),
        (
            "{name} 的单元格嵌套超过了 {n} 层：请在 Jupyter 中打开它并保存（⟦File > Save⟧），然后提交"
            "保存得到的 .ipynb 文件"
        ),
    ),
    "input.could_not_be_read_hand_it": (
        "{name} could not be read ({why}): hand it in again",
        "无法读取 {name}（「⟦{why}⟧」）：请重新提交",
    ),
    "input.no_submission_file_at": (
        "no submission file at {path*}",
        "找不到提交文件 「⟦{path}⟧」",
    ),
    "input.is_neither_a_py_nor_an": (
        "{name} is neither a .py nor an .ipynb file: pass the student's notebook or script",
        "{name} 既不是 .py 文件，也不是 .ipynb 文件：请提交学生的 notebook 或 .py 脚本",
    ),
    "input.is_not_inside_the_folder_given": (
        "{name} is not inside the folder {root} given to the grader",
        "{name} 不在交给评分程序的文件夹 「⟦{root}⟧」 里",
    ),
    "input.is_not_a_file_inside_the": (
        "{name} is not a file inside the folder {root} given to the grader",
        "{name} 不是交给评分程序的文件夹 「⟦{root}⟧」 里的文件",
    ),
    "input.is_not_a_plain_folder_the": (
        (
            "{name} is not a plain folder: the grader reads only real files inside the submission folder;"
            " hand in the notebook file itself (a copy, not a link or a shortcut)"
        ),
        (
            "{name} 不是普通文件夹：评分程序只读取提交文件夹里真实存在的文件；请提交 notebook 文件本"
            "身（一份副本，而不是链接或快捷方式）"
        ),
    ),
    "input.is_a_symbolic_link_not_a": (
        (
            "{name} is a symbolic link, not a {what}: the grader reads only real files inside the submission"
            " folder; hand in the notebook file itself (a copy, not a link or a shortcut)"
        ),
        (
            "{name} 是符号链接，不是 {what}：评分程序只读取提交文件夹里真实存在的文件；请提交 notebook"
            " 文件本身（一份副本，而不是链接或快捷方式）"
        ),
    ),
    "input.is_a_symbolic_link_the_grader": (
        (
            "{name} is a symbolic link: the grader reads only real files inside the submission folder;"
            " hand in the notebook file itself (a copy, not a link or a shortcut)"
        ),
        (
            "{name} 是符号链接：评分程序只读取提交文件夹里真实存在的文件；请提交 notebook 文件本身（"
            "一份副本，而不是链接或快捷方式）"
        ),
    ),
    "input.is_a_special_file_a_fifo": (
        (
            "{name} is a special file (a FIFO, device or socket), not a regular file: the grader reads"
            " only real files inside the submission folder; hand in the notebook file itself (a copy,"
            " not a link or a shortcut)"
        ),
        (
            "{name} 是特殊文件（管道、设备或套接字），不是普通文件：评分程序只读取提交文件夹里真实存"
            "在的文件；请提交 notebook 文件本身（一份副本，而不是链接或快捷方式）"
        ),
    ),
    "input.is_a_folder_not_a_regular": (
        (
            "{name} is a folder, not a regular file: the grader reads only real files inside the submission"
            " folder; hand in the notebook file itself (a copy, not a link or a shortcut)"
        ),
        (
            "{name} 是文件夹，不是普通文件：评分程序只读取提交文件夹里真实存在的文件；请提交 notebook"
            " 文件本身（一份副本，而不是链接或快捷方式）"
        ),
    ),
    "input.changed_while_the_grader_opened_it": (
        (
            "{name} changed while the grader opened it: the grader reads only real files inside the submission"
            " folder; hand in the notebook file itself (a copy, not a link or a shortcut)"
        ),
        (
            "评分程序打开 {name} 时它被改动了：评分程序只读取提交文件夹里真实存在的文件；请提交 notebook"
            " 文件本身（一份副本，而不是链接或快捷方式）"
        ),
    ),
}
