"""Trusted: the pages' own words (headings, labels, the rule line), English and Chinese side by side.

Registered in the one catalog (``autograder.protocol.said``) as ``page.<name>``; ``outputs.wording.page_words``
gives them to the pages and the terminal by name. Each is a ``str.format`` template; the messages a page shows
come from the grader's and the engine's catalogs.
"""

from __future__ import annotations

from autograder.protocol.said import Message, register

__all__ = ["PAGES"]

PAGES = {
    "page.feedback_for": Message(
        "Feedback for {student}",
        "{student} 的反馈",
    ),
    # {assignment}: the assignment's title (AssignmentSpec.title, e.g. "Weight Tying"), or its folder's name
    "page.assignment_feedback_for": Message(
        "{assignment}: feedback for {student}",
        "{assignment} 作业反馈：{student}",
    ),
    # the page's <html lang>: which glyphs a browser picks for the Chinese (Simplified, mainland forms)
    "page.html_lang": Message("en", "zh-CN"),
    "page.graded": Message(
        "Graded {when}",
        "评分时间 {when}",
    ),
    "page.status": Message(
        "status: {status}",
        "运行状态：{status}",
    ),
    # how a run ended, by its status (result.RunFacts.status, or wording.run_state for a run that ended normally
    # with part of its code not run); the English is the status itself
    "page.status.ok": Message("ran to the end, no errors", "运行完毕，没有出错"),
    "page.status.blank": Message("blank", "空白提交"),
    "page.status.unreadable": Message("unreadable", "无法读取"),  # the file was refused: nothing of it ran
    "page.status.syntax error": Message("syntax error", "语法错误"),
    # a cell raised while the notebook loaded: that cell stopped, the rest ran on (not a run that ended there)
    "page.status.cells raised": Message(
        "ran to the end, but a cell raised (the rest ran on)", "运行完毕，但有单元格出错（其余照常运行）"
    ),
    # a .py file raised while it loaded (wording.run_state "file raised"): it has no cells, and what followed the
    # raising line did not run
    "page.status.file raised": Message(
        "raised an exception part-way (the code after that line did not run)",
        "运行中途抛出异常（出错那一行之后的代码没有运行）",
    ),
    # a cell or a check stopped at its own share of the time (RunFacts.load_errors, wording.stopped_checks): the
    # run went on to the end; "timeout" is the whole run stopped at its limit (60 s by default)
    # a check stopped ("time budget"), or a cell ("time budget cell": feedback._status_key, wording.cell_stopped)
    "page.status.time budget": Message(
        "ran to the end, but a check ran past its time limit and was stopped",
        "运行完毕，但有一项检查超过单项时限，被终止",
    ),
    "page.status.time budget cell": Message(
        "ran to the end, but a cell ran past its time limit and was stopped",
        "运行完毕，但有一个单元格超过单项时限，被终止",
    ),
    "page.status.timeout": Message("stopped at the run's total time limit", "超出总时限，被终止"),
    "page.status.memory": Message("memory", "内存不足"),
    "page.status.exited": Message("exited", "提前退出"),
    "page.status.crashed": Message("crashed", "崩溃"),
    "page.status.judge limit": Message("judge limit", "评分程序超出自身上限"),
    "page.status.grader error": Message("grader error", "评分程序出错"),
    # punctuation around the page's values, each language's own
    "page.colon": Message(": ", "："),
    # where a cell did not compile, the line as written, Python's words (Needs a look: the kind says "syntax error")
    "page.syntax_line": Message("{where}: “{code}” ({error})", "{where}：“{code}”，Python 的提示是“{error}”"),
    "page.item_detail": Message(" ({area}, {points})", "（评分项：{area}；{points}）"),
    # what a passed test is worth, said in item_detail's form as a failed test's cost is ("（评分项：…；该测试 2 分）")
    "page.worth": Message("worth {points}", "该测试 {points} 分"),
    # what the ✗ before a failed test's statement on a card says on hover (its title): the statement is
    # what the test wanted, not what the code did (the terminal and self-check mark theirs the same way)
    "page.failed_mark": Message("failed", "未通过"),
    # what the sandbox refused a run (report and attention list: wording.refused_detail)
    "page.refused_files": Message("tried to reach {what}", "试图读取 {what}"),
    "page.refused_call": Message("called {what}", "调用了 {what}"),
    "page.refused_output": Message("flooded {what}", "向 {what} 写入了过多输出"),
    "page.refused_more": Message(" (+{n} more)", "（另有 {n} 项）"),
    "page.refused_list": Message(", ", "、"),
    "page.refused_sep": Message("; ", "；"),
    # the terminal's line per area for a card of tests that could not run (a syntax error): "3 个测试，扣 12 分"
    "page.area_tests_lost": Message("{area}: {tests}, −{lost}", "{area}：{tests}，扣 {lost} 分"),
    "page.area_score": Message("{area}: {got} / {top}", "{area}：{got} / {top}"),
    "page.score": Message(
        "Score: {score} / {top}",
        "得分：{score} / {top}",
    ),
    "page.cost_column": Message(
        "cost",
        "扣分",
    ),
    "page.charge_column": Message(
        "what it is for, and the tests it covers",
        "扣分原因，以及涉及的测试",
    ),
    "page.starter_bold": Message(
        "Most of this submission is still the starter code",
        "这份作业大部分仍是初始代码",
    ),
    "page.starter_before": Message(
        "the tests below need parts that raise NotImplementedError. Write them, run the self-check (",
        "下面这些测试要用到的代码仍是初始代码，会抛出 NotImplementedError。请完成它们，在作业文件夹中运行自检（",
    ),
    "page.starter_after": Message(
        " in the assignment folder), and hand in again.",
        "），然后重新提交。",
    ),
    "page.what_to_fix": Message(
        "What to fix ({failed} of {total} failed)",
        "需要修改的地方（{total}中有 {failed} 个未通过）",
    ),
    # the same when every one of them failed ({total}: "27 tests", "27 个测试")
    "page.what_to_fix_all": Message(
        "What to fix (all {total} failed)",
        "需要修改的地方（{total}全部未通过）",
    ),
    "page.costs": Message(
        "Costs {points}{once}{over}:",
        "扣 {points}{once}{over}：",
    ),
    "page.once_in_exercise": Message(
        ", once in exercise {n}",
        "，在练习 {n} 中只扣一次",
    ),
    "page.lost_of": Message(
        "−{lost} of its {points}",
        "该测试 {points} 分，扣 {lost} 分",
    ),
    # a test the charge covers at no cost of its own (a knock-on, or past the mistake's cost in its area)
    "page.not_charged_again": Message(
        "its {points} not charged again, within this area's fixed cost",
        "该测试 {points} 分，已计入该评分项的固定扣分，不另扣分",
    ),
    # a failing test whose area the charge costs nothing in (the mistake costs 0 there): nothing lost for it
    "page.not_charged": Message(
        "its {points} not charged",
        "该测试 {points} 分，不扣分",
    ),
    # a misconception's card whose message is the one a card above shows (the same test shows both)
    "page.same_message": Message(
        "The message is the one under “{title}” above: the same test shows more than one mistake.",
        "消息见上面的“{title}”：同一个测试显示了不止一个错误。",
    ),
    # a blank submission's page: under the run's one line, what to do
    "page.blank_todo": Message(
        "Write the exercises, run the self-check (pytest in the assignment folder), and hand in again.",
        "请完成练习，在作业文件夹中运行自检（pytest），然后重新提交。",
    ),
    # why a test carries only part of its points (rendering.part_words), as a sentence of its own under the test
    "page.part_charged": Message("{part}.", "{part}。"),
    "page.lost_total": Message(
        "Points the grader took off: {points}, the sum of the charges below.",
        "评分程序共扣 {points}，即下面各项之和。",
    ),
    # the marking rule (grading/marking.py, the scheme file's THE RULE), said so that a student parses it at once
    "page.rule": Message(
        "How the marks are given: a common mistake is charged once within the same exercise. For each common"
        " mistake, each graded area charges one fixed cost (it may be 0) instead of charging one by one the tests it"
        " makes fail; this fixed cost is never more than those tests' points together. For example, where an"
        " area's fixed cost is 6 and the tests involved are worth 9, they cost 6. A test that fails for any other"
        " reason costs its own points.",
        "评分规则：同一种常见错误在一道练习中只算一次。某种常见错误在某一评分项里只扣一个固定分数（可以是 0），"
        "而不是把因它失败的测试逐个扣分；这个固定分数不超过这些测试的分值之和。"
        "例如某项固定扣 6 分，涉及的测试共 9 分，就只扣 6 分。因其他原因失败的测试照常扣分。",
    ),
    # words a terminal line never ends inside (outputs/table.py, console.Words' keep), with the graded areas' names:
    # Chinese has no spaces, so a line could end in the middle of "其他评分项" ("已在其│他评分项中扣分"); a space
    # between them (English breaks at spaces anyway)
    "page.terminal_words": Message(
        "graded area",
        "其他 评分项 固定扣分 扣分 测试 错误 失败 参数对象 结果 这一项 上面 虽然 可能 本身 产生 不是 共享 运行"
        " 这张表 每一步",
    ),
    "page.point": Message(
        "point",
        "分",
    ),
    "page.points": Message(
        "points",
        "分",
    ),
    "page.over_tests": Message(
        " over {n} tests",
        "，涉及 {n} 个测试",
    ),
    "page.checking": Message(
        " — checking {what}",
        "——检查对象：{what}",
    ),
    # a test checking what the test listed just above it checks (page.checking): the subject is said once
    "page.checking_same": Message(" — checking the same as above", "——检查对象同上"),
    # where the subject is a call the test made on the code (a generate call, a loss call: ShownTest.fed)
    "page.input_used": Message(" — the call checked: {what}", "——检查时的调用：{what}"),
    "page.input_same": Message(" — the same call as above", "——检查时的调用同上"),
    "page.more_tests": Message(
        "and {n} more tests",
        "展开其余 {n} 个测试",
    ),
    "page.how_it_ran": Message(
        "How your code ran",
        "代码的运行情况",
    ),
    "page.how_it_ran_line": Message("How your code ran:", "代码的运行情况："),  # the terminal's, above the run's lines
    "page.by_area": Message(
        "Points by area",
        "各评分项得分",
    ),
    "page.passed": Message(
        "Passed ({n})",
        "已通过（{n}）",
    ),
    "page.show_passed": Message(
        "Show what passed",
        "显示已通过的测试",
    ),
    # a result with tests and none failing: said where "What to fix" would be ({total}: "27 tests", "27 个测试")
    "page.all_passed": Message(
        "All {total} passed: nothing to fix.",
        "{total}全部通过，没有需要修改的地方。",
    ),
    # the same when the run summary above shows a cell that raised (wording.run_state "cells raised")
    "page.all_passed_cell_raised": Message(
        "All {total} passed. The cell that raised above does not change the mark, but it is worth fixing.",
        "{total}全部通过。上面出错的单元格不影响成绩，但最好改掉。",
    ),
    # the same for a .py file (RunFacts.unit "file" or "parts"): it has no cells
    "page.all_passed_file_raised": Message(
        "All {total} passed. The error above does not change the mark, but it is worth fixing.",
        "{total}全部通过。上面这个错误不影响成绩，但最好改掉。",
    ),
    "page.no_tests": Message(
        "No tests were run for this submission.",
        "这份作业没有运行任何测试。",
    ),
    "page.not_graded_yet": Message(
        "This submission has not been graded yet. Your instructor will grade it again; nothing is lost.",
        "这份作业还没有评分。老师会重新评分，什么都不会丢失。",
    ),
    "page.tests": Message(
        "{n} tests",
        "{n} 个测试",
    ),
    "page.test": Message(
        "1 test",
        "1 个测试",
    ),
    "page.timeout_card": Message(
        "Your code was stopped at the time limit {where}. Nothing after that ran, so thes"
        "e tests have no result and score 0: fix that first, then the rest will be graded.",
        "你的代码因超时被终止{where}。之后的代码都没有运行，所以下面这"
        "些测试没有结果，记 0 分：先解决这个问题，其余部分才能被评分。",
    ),
    "page.handed_in": Message(
        "Handed in {when}",
        "提交于 {when}",
    ),
    "page.on_time": Message(
        ", before the due date ({due}).",
        "，在截止时间（{due}）之前。",
    ),
    "page.late_by": Message(
        ", {late} after the due date ({due})",
        "，比截止时间（{due}）晚了 {late}",
    ),
    "page.penalty": Message(
        ": the late penalty takes {points} points off, {after} / {top} after it.",
        "：迟交扣 {points} 分，扣分后为 {after} / {top}。",
    ),
    # beside the score: the English a space after it, the Chinese full-width bracket none ("100（迟交扣…）")
    "page.penalty_beside": Message(
        " (late penalty −{points}: {before} before it)",
        "（迟交扣 {points} 分：扣分前为 {before}）",
    ),
    "page.late_unknown": Message(
        "When this was handed in could not be read (its timestamp.txt): your instructor will check.",
        "无法读出这份作业的提交时间（它的 timestamp.txt）：老师会核实。",
    ),
    "page.days_hours": Message(
        "{days} d {hours} h",
        "{days} 天 {hours} 小时",
    ),
    "page.hours_minutes": Message(
        "{hours} h {minutes} min",
        "{hours} 小时 {minutes} 分钟",
    ),
    "page.minutes_seconds": Message(
        "{minutes} min {seconds} s",
        "{minutes} 分钟 {seconds} 秒",
    ),
    "page.seconds": Message(
        "{seconds} s",
        "{seconds} 秒",
    ),
}

register("pages", PAGES)
