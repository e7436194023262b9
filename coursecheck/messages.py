"""Both sides: the self-check framework's own words, English and Chinese side by side.

What ``coursecheck`` says whatever the assignment: a check's outcome, a cell's name, the time budget, the run's
summary, a call into the student's code that failed, why a submission could not be loaded. id -> (English
template, Chinese template), the same parameters in both. An assignment's catalog says the rest (its checks'
titles and failures, its practice groups, its header and what the hidden suite covers): the build puts both
into each release's ``<assignment>_checks/messages.py`` (``autograder.graders.release``), and the grader's own
catalog registers these as ``OWNER``'s, so the kit's tests hold them to the glossary like every other message.
Imports nothing (the students' wheel ships it).
"""

from __future__ import annotations

__all__ = ["OWNER", "MESSAGES"]

OWNER = "coursecheck"

MESSAGES = {
    # a check's outcome, and the practice cells' lines (checks.py, practice.py)
    "check.area": ("Graded area: {area}.", "评分项：{area}。"),
    "check.waits": (
        "not checked until “{need}” passes: fix that one first",
        "尚未检查：要等“{need}”通过之后才检查，请先修正那一项。",
    ),
    "check.waits_unwritten": ("not checked until {what} is implemented", "尚未检查：要等 {what} 实现之后才检查。"),
    "check.undefined_not_checked": ("not checked because {cls} is not defined", "尚未检查：{cls} 没有定义。"),
    "check.undefined": ("{cls} is not defined", "{cls} 没有定义"),
    "check.group_failed": (
        "{count} of the {group} checks failed: see the lines marked ✗ above",
        "“{group}”这组检查中有 {count} 项没有通过：见上面标 ✗ 的行。",
    ),
    "check.group_failed_waiting": (
        "{count} of the {group} checks failed (marked ✗) and {waiting} wait for an earlier check to pass (marked –): "
        "fix the lines marked ✗ first",
        "“{group}”这组检查中有 {count} 项没有通过（标 ✗ 的行），另有 {waiting} 项要等前面的检查通过之后才检查"
        "（标 – 的行）。请先修正标 ✗ 的行。",
    ),
    "check.group_waiting": (
        "the {group} checks (marked –) run once the lines marked ✗ in the {earlier} practice check cell pass: fix"
        " those first",
        "“{group}”这组检查（标 – 的行）要等{earlier}的检查单元格里标 ✗ 的行通过之后才运行，请先回到那里修正。",
    ),
    "check.group_not_run": (
        "the {group} checks (marked –) did not run: the line under each says why",
        "“{group}”这组检查（标 – 的行）没有运行，原因写在每一行下面。",
    ),
    "check.group_named": ("{group}", "“{group}”"),  # a practice cell by its group's name, in running text
    "check.group_unwritten": (
        "the {group} checks wait for {what}, not implemented yet: run this cell again once it is",
        "“{group}”这组检查要等 {what} 实现之后才能运行：实现之后，再运行一次这个单元格。",
    ),
    "check.all_passed": (
        "All passed. These checks are a preview and worth no points: the hidden suite grades.",
        "全部通过。这些检查只供自查，不计分；成绩由隐藏测试给出。",
    ),
    # a class the notebook did not define, a cell that raised (demos.py, plugin.py)
    "check.not_defined": (
        "{file} does not define {cls} once its cells have run.",
        "{file} 的单元格运行完之后，没有定义 {cls}。",
    ),
    "check.cells_raised": (" These cells did not finish:", "以下单元格没有正常运行完："),
    # on its own line, as the grader says it (its run.cells_counted shares these words): after the cells listed, and
    # under a failure or a stopped check that names a cell by its number (issue 48, round 24: was a bracket inline)
    "check.cells_counted": (
        "Cells are numbered from 1 at the top of the notebook, text cells included.",
        "单元格的序号从 notebook 顶部的第 1 个单元格数起，markdown 单元格也计入。",
    ),
    "check.no_cell_raised": (
        " No cell raised: check the class name's spelling.",
        "没有单元格抛出异常：请核对类名的拼写。",
    ),
    "check.cell": ("  {place}: “{message}”", "  {place}：“{message}”"),
    # a cell Python could not read, said as the grader says it (the engine's run.syntax_at, run.syntax_bare)
    "check.syntax": (
        "  Syntax error at {place}, line {line}{before}: “{code}” ({error})",
        "  {place}第 {line} 行有语法错误{before}：“{code}”，Python 的提示是“{error}”",
    ),
    # past a cell's line 1 the mistake may be on the line before (a bracket left open runs on), said as the grader
    # says it (the engine's run.syntax_before, which the self-check cannot import)
    "check.syntax_before": (
        " (or on the line before it, e.g. a bracket left open)",
        "（也可能在它前面一行，例如括号没有闭合）",
    ),
    "check.syntax_bare": ("  Syntax error at {place}: {error}", "  {place}有语法错误：“{error}”"),
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
        "line {line} of {place} (an endless loop?)\n  {note}",
        "这项检查运行了 {seconds} 秒仍未结束，被终止了（自检给每项检查 {seconds} 秒）：你的代码一直没有返回，"
        "当时正在运行{place}的第 {line} 行，是不是那里有死循环？\n  {note}",
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
    # plugin.py: the run's summary (the assignment says what it covers: check.covers.here, check.covers.<line>)
    # the checks that wait: one heading for the section (its own when one unwritten method is all they wait for),
    # and what each group waits for on the line under it
    "check.waiting.one_unwritten": ("not checked until {what} is implemented", "尚未检查：要等 {what} 实现之后才检查"),
    "check.waiting.section": ("not checked yet", "尚未检查"),
    "check.waiting.check": ("  until “{need}” passes:", "  要等“{need}”通过之后才检查："),
    "check.waiting.unwritten": ("  until {what} is implemented:", "  要等 {what} 实现之后才检查："),
    # a list's separator in running text ("TiedEmbeddingLM、MiniGPTWithWeightTying")
    "check.list.sep": (", ", "、"),
    "check.raised.section": (
        "cells that raised while your notebook ran top to bottom",
        "从上到下运行 notebook 时出错的单元格",
    ),
    "check.raised.more": ("  ... and {count} more", "  ……另有 {count} 个"),
    # the same cells as a kind in pytest's stats (it turns the last line yellow); only the English edition's line
    # counts them ("17 passed, 1 cell raised"): another edition says the count in its own words just above
    "check.raised.tally": ("cell raised", "个单元格出错"),
    "check.raised.tally_many": ("cells raised", "个单元格出错"),
    "check.raised.told": (
        "{count} cell(s) raised as your notebook ran: see “{section}” above",
        "另有 {count} 个单元格运行出错，见上面的“{section}”。",
    ),
    # the same when no check failed: nothing to count them besides
    "check.raised.told_alone": (
        "{count} cell(s) raised as your notebook ran: see “{section}” above",
        "此外，有 {count} 个单元格运行出错，见上面的“{section}”。",
    ),
    # says what it counts (单元格的序号, as check.cells_counted): a bare "从…数起" after "第 35 行" read as lines
    # counted from the notebook's top (issue 48, round 19)
    "check.raised.note": (
        "(cells count from 1, markdown included)",
        "（单元格的序号从 notebook 顶部的第 1 个单元格数起，markdown 单元格也计入）",
    ),
    # the same, when one of those cells raised the starter code's NotImplementedError
    "check.raised.note_stub": (
        "(cells count from 1, markdown included; NotImplementedError means a stub is still in place)",
        "（单元格的序号从 notebook 顶部的第 1 个单元格数起，markdown 单元格也计入；"
        "NotImplementedError 表示还有初始代码没有替换）",
    ),
    # the first line of another edition's copy of the release's plumbing (scripts/build_notebook.py): the English
    # files say it in their own docstring and comments
    "release.header.conftest": (
        "The self-check's plumbing: run pytest in this folder to check your notebook; no need to edit this file.",
        "自检的运行框架：在这个文件夹里运行 pytest 即可检查你的 notebook，不需要修改这个文件。",
    ),
    "release.header.pytest_ini": (
        "Makes this folder a pytest project of its own: pytest here runs the self-check.",
        "让这个文件夹成为一个独立的 pytest 项目：在这里运行 pytest 就会运行自检。",
    ),
    # the summary's last section: what is checked here and what the hidden suite grades
    "check.covers.section": ("what this self-check covers", "这份自检检查了什么"),
    # its title while a check is left to fix: the checks are counted there, not listed (check.covers.short)
    "check.covers.section_short": ("this self-check in brief", "自检小结"),
    # the first of the checks it counts, said before the assignment's list (pytest's first test)
    "check.covers.in_time": (
        "First, that every cell of the notebook finishes within the self-check's time limit.",
        "首先检查 notebook 的每个单元格是否都在自检的时限内运行完。",
    ),
    "check.covers.hidden": (
        "The graded (hidden) suite checks more, for example:",
        "计分用的隐藏测试覆盖面更广，例如：",
    ),
    # the same while a check is left to fix (the list in full: every check passed, or pytest -v)
    "check.covers.short": (
        "This self-check has {n} checks (pytest -v lists them); it is worth no points: the grade comes from the "
        "hidden suite, which checks more. If the results do not match the code you just changed, save the notebook "
        "and run pytest again.",
        "本次自检共 {n} 项检查（pytest -v 可列出英文测试名）；自检不计分，成绩由覆盖面更广的隐藏测试给出。"
        "如果结果与你刚改的代码不符，先保存 notebook 再运行 pytest。",
    ),
    "check.covers.points": (
        "These checks are worth no points: the hidden suite grades. If the results do not match the code you just "
        "changed, save the notebook and run pytest again.",
        "自检不计分，成绩由隐藏测试给出。如果结果与你刚改的代码不符，先保存 notebook 再运行 pytest。",
    ),
    # calls.py: calling the student's code
    "checkfail.not_implemented": (
        "{what} is not implemented yet: replace `raise NotImplementedError()` in its cell",
        "{what} 还没有实现：它所在的单元格里仍是初始代码 `raise NotImplementedError()`，请换成你自己的代码",
    ),
    "checkfail.raised": ("{what} raised {error}: “{message}”", "{what} 抛出了 {error}：“{message}”"),
    "checkfail.raised_in_cell": (
        "{what} raised {error} (line {line} of {place}): “{message}”",
        "{what} 抛出了 {error}：“{message}”\n  出错的位置：{place}，第 {line} 行",
    ),
    # the same, in a cell the self-check ran, named by its number: how cells are counted follows
    "checkfail.raised_in_counted_cell": (
        "{what} raised {error} (line {line} of {place}): “{message}”\n  {note}",
        "{what} 抛出了 {error}：“{message}”\n  出错的位置：{place}，第 {line} 行\n  {note}",
    ),
    "checkfail.raised_in_file": (
        "{what} raised {error} (at {file}, line {line}): “{message}”",
        "{what} 抛出了 {error}：“{message}”\n  出错的位置：{file} 第 {line} 行",
    ),
    "checkfail.no_attribute": (
        "{owner} has no attribute {name}: the contract requires self.{attr}",
        "{owner} 没有属性 {name}：题目要求定义 self.{attr}",
    ),
    # words.py: the submission could not be found or loaded (coursecheck.selfcheck's reasons)
    "checkfail.load.no_submission_env": (
        "no file at {value}, the path {var} names: set it to your notebook's path (.ipynb or .py)",
        "找不到 {var} 指定的文件 {value}：请把它设为你的 notebook 的路径（.ipynb 或 .py 文件）",
    ),
    "checkfail.load.no_submission_default": (
        "no submission at the default {path}: set {var}=path/to/your.ipynb (or .py)",
        "在默认位置找不到要检查的文件 {path}：请设置 {var}=<你的 notebook 路径>（.ipynb 或 .py）",
    ),
    "checkfail.load.not_notebook_or_py": (
        "{path} is neither a .ipynb nor a .py file: point {var} at your notebook",
        "{path} 既不是 .ipynb 也不是 .py 文件：请让 {var} 指向你的 notebook",
    ),
    "checkfail.load.unreadable": ("{error}", "无法读取你的提交：“{error}”"),
}
