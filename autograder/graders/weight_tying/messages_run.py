"""Both sides (public, copied into each release): message catalog part, English and Chinese side by side.

Holds the run summary (autograder/result.py): how the run ended, cells that raised, names not defined. Part of
the message catalog (messages.py assembles it): id -> (English, Chinese). The engine writes it in English. The
English is matched where the Chinese is wanted ({name} a value, {name*} the rest of the line; see
translate_zh.py), and ⟦...⟧ in the Chinese marks text kept as it is. Imports nothing.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES = {
    "run.your_code_ran_to_the_end": (
        "Your code ran to the end, but {n} of its cells (or parts) raised an error:",
        "你的代码运行到了最后，但其中有 {n} 个单元格（或部分）抛出了错误：",
    ),
    "run.your_code_ran_to_the_end_2": (
        "Your code ran to the end.",
        "你的代码完整运行结束。",
    ),
    "run.your_code_was_stopped_after_s": (
        (
            "Your code was stopped after {limit} s (time limit): tests that needed results it had not"
            " produced yet score 0. Look for an endless loop or a very slow computation."
        ),
        (
            "你的代码运行 {limit} 秒后被终止（时间限制）：需要它尚未产出结果的测试记 0 分。请检查有没"
            "有死循环或非常慢的计算。"
        ),
    ),
    "run.your_code_ran_out_of_memory": (
        (
            "Your code ran out of memory (limit {memory}): tests that needed results it had not produced"
            " score 0. Look for a huge tensor or a list that grows without end."
        ),
        (
            "你的代码耗尽了内存（上限 {memory}）：需要它尚未产出结果的测试记 0 分。请检查有没有超大的"
            "张量或无限增长的列表。"
        ),
    ),
    "run.your_code_ended_the_grading_process": (
        (
            "Your code ended the grading process early (exit code {code}): remove sys.exit(), os._exit()"
            " or quit() from the submission; tests that needed later results score 0."
        ),
        (
            "你的代码提前结束了评分进程（退出码 {code}）：请从提交中删除 sys.exit()、os._exit() 或 quit()"
            "；需要之后结果的测试记 0 分。"
        ),
    ),
    "run.the_python_process_running_your_code": (
        ("The Python process running your code crashed (signal {signal}): tests that needed later results score 0."),
        "运行你代码的 Python 进程崩溃了（信号 {signal}）：需要之后结果的测试记 0 分。",
    ),
    "run.judging_what_your_code_produced_went": (
        (
            "Judging what your code produced went past the judge's own time or memory limit: the tests"
            " judged before that keep their points, the others score 0. Tell your instructor if your code"
            " is correct."
        ),
        (
            "评判你的代码的输出时，超出了评分程序自身的时间或内存上限：在此之前评判过的测试保留得分，"
            "其余记 0 分。如果你确信代码是正确的，请告诉老师。"
        ),
    ),
    "run.your_submission_was_not_run": (
        "Your submission was not run: {why*}",
        "你的提交没有被运行：{why}",
    ),
    "run.is_mib_over_the_mib_limit": (
        (
            "{name} is {size} MiB, over the {limit} MiB limit: clear the notebook's outputs (Edit > Clear"
            " Outputs of All Cells), save, and hand it in again."
        ),
        (
            "{name} 有 {size} MiB，超过了 {limit} MiB 的上限：请清除 notebook 的输出（⟦Edit > Clear Outputs"
            " of All Cells⟧），保存后重新提交。"
        ),
    ),
    "run.cells_or_parts_of_a_py": (
        "Cells (or parts of a .py file) are counted from 1 at the top, text cells included.",
        "单元格（或 .py 文件的各部分）从顶部起按 1 开始编号，文本单元格也计算在内。",
    ),
    "run.while_loading_your_submission_cell_part": (
        "While loading your submission, cell/part {cell} raised {error*}",
        "加载你的提交时，第 {cell} 个单元格（或部分）抛出了 {error}",
    ),
    "run.not_defined_by_your_submission_check": (
        "Not defined by your submission: {names} (check the exact class names).",
        "你的提交没有定义：{names}（请核对类名的拼写）。",
    ),
    "run.the_grader_could_not_grade_this": (
        "The grader could not grade this submission: {why*}",
        "评分程序无法评阅这份提交：{why}",
    ),
    "run.unknown_run_status": (
        "Unknown run status {status}.",
        "未知的运行状态 {status}。",
    ),
}
