"""Trusted: the instructor's words (the class report, the terminal's class table, the run summary), English and
Chinese side by side.

Registered in the one catalog (``autograder.protocol.said``) as ``report.<name>``; ``report_words(language)``
gives them by name (``python -m autograder grade --language zh``: a Chinese TA's report; English stays the
default). Each is a ``str.format`` template. What a report quotes (students' messages, test titles, areas,
misconceptions) comes from the grader's and the engine's catalogs, in the same language.
"""

from __future__ import annotations

from autograder.outputs.classview import FLAGS
from autograder.outputs.messages_similarity import SIMILAR
from autograder.protocol.said import LANGUAGES, Message, register

__all__ = ["REPORT", "report_words", "KIND_WORDS", "WHAT_TO_DO", "OTHER"]

REPORT = {
    # {assignment}: the assignment's title (AssignmentSpec.title), or its name
    "report.title": Message("{assignment}: grading report", "{assignment} 作业评分报告"),
    "report.meta": Message(
        "{when} · seed {seed} · kit {kit} · {n} submissions, {graded} graded",
        "{when} · 随机种子 {seed} · 评分程序版本 {kit} · 共\u00a0{n}\u00a0份提交：已评分\u00a0{graded}\u00a0份",
    ),
    # the rest of the count beside the graded ones: "共 6 份提交：已评分 5 份，空白提交 1 份" (not among the 5)
    "report.meta_others": Message(" ({others})", "，{others}"),
    "report.count_of": Message("{n} {kind}", "{kind} {n}\u00a0份"),  # no break between a count and its 份
    "report.list": Message(", ", "、"),
    "report.colon": Message(": ", "："),  # a student, then what is said of them (Needs a look)
    "report.tests_sep": Message(", ", "；"),  # between tests' titles, which may hold a comma of their own
    "report.kind_sep": Message(": ", "，"),  # a student's kind and how the run went: "已评分，运行完毕，没有出错"
    # headings and what is said under them
    "report.needs_a_look": Message("Needs a look", "需要关注"),
    "report.nothing": Message(
        "Nothing: every submission was graded and ran to the end.",
        "无：所有提交都已评分，而且都完整运行。",
    ),
    "report.class_summary": Message("Class summary", "全班概况"),
    "report.statistics_note": Message(
        "Score statistics count every graded submission: syntax errors (0 points) and timeouts are in; blank,"
        " unreadable and sandbox-refused submissions, grader errors and students with no result yet are out.",
        "得分统计计入所有已评分的提交：语法错误（0 分）和超时的提交都计入；空白提交、无法读取的提交、"
        "被沙箱拦截的提交、评分程序出错的提交，以及尚无结果的提交，都不计入。",
    ),
    "report.area_rates": Message("Pass rate per area", "各评分项的得分率"),
    "report.none_judged": Message("No judged submissions.", "没有已评分的提交。"),
    "report.misconceptions": Message("Misconceptions, most common first", "常见错误（按人数从多到少）"),
    "report.misconceptions_note": Message(
        "Each student counts once per misconception, under its root cause; when a message gives several possible "
        "causes, it counts under the one other tests confirm.",
        "每个学生的同一种错误只统计一次，归入其根本原因；若一条提示列出几种可能原因，则按其他测试能证实的那一种归类。",
    ),
    "report.other_edition": Message(
        "(only {edition}-edition students show it; their message:)",
        "（只有{edition}学生出现这个错误，他们看到的消息如下：）",
    ),
    # above each message of a misconception students read differently: who read it (report.names_sep between)
    "report.read_by": Message("Read by {students}:", "{students} 看到的消息："),
    "report.read_by_edition": Message("Read by {students} ({edition}):", "{students}（{edition}）看到的消息："),
    "report.names_sep": Message(", ", "、"),
    "report.no_failing": Message("No failing tests among graded submissions.", "已评分的提交中没有未通过的测试。"),
    "report.test_rates": Message("Pass rate per test, least passed first", "各测试的通过率（从低到高）"),
    # the heading when no submission is worth a look for its time (report.none_slow or report.all_within follows)
    "report.slowest": Message("Grading time", "评分用时"),
    # the slowest few, each near its time limit (or twice the median, no limit known; passrates.slowest): how many
    "report.slowest_n": Message("The {n} slowest submissions", "评分用时最长的 {n} 份提交"),
    "report.slowest_one": Message("The slowest submission", "评分用时最长的 1 份提交"),
    "report.none_slow": Message(
        "No submission took twice the median or longer.", "没有哪份提交的评分用时达到中位数的两倍。"
    ),
    "report.median": Message(
        "Median {seconds} s per submission; a submission near the time limit is worth a look.",
        "每份提交评分用时的中位数为 {seconds} 秒；用时接近上限的提交值得检查。",
    ),
    # the same, with the wall-time limit the runs were given ({limit}: "60 s", or several: "60 s, 120 s")
    "report.median_limit": Message(
        "Median {seconds} s per submission. The total time limit per submission is {limit}: a submission near it "
        "is worth a look.",
        "每份提交评分用时的中位数为 {seconds} 秒。每份提交的总时限为 {limit}，用时接近总时限的提交值得检查。",
    ),
    # where the runs' limit is known and none used half of it: the whole section ({longest}: "12.3 s")
    "report.all_within": Message(
        "Every submission finished within {longest} (total time limit per submission: {limit}): none came near it.",
        "每份提交都在 {longest}内评分完毕（每份提交的总时限为 {limit}），没有接近总时限的提交。",
    ),
    # between two sentences of one paragraph (a Chinese sentence ends in its own full stop: no space)
    "report.two_sentences": Message("{first} {second}", "{first}{second}"),
    "report.no_timings": Message("No timings recorded.", "没有记录评分用时。"),
    "report.students": Message("Students", "各学生成绩"),
    "report.no_students": Message("No students in this run.", "这次评分没有学生。"),
    "report.pages_not_written": Message("Feedback pages not written", "未能生成的反馈页"),
    # column headers
    "report.col.problem": Message("problem", "问题"),
    "report.col.students": Message("students", "人数"),
    "report.col.who": Message("who (and where it went wrong)", "学生（及出错之处）"),
    "report.col.what_to_do": Message("what to do", "处理建议"),
    "report.col.area": Message("area", "评分项"),
    "report.col.points": Message("points", "分值"),
    "report.col.mean": Message("mean", "平均得分率"),
    "report.col.full": Message("full marks", "满分人数"),
    "report.full_of": Message("{full} of {judged} ({pct})", "{judged} 人中 {full} 人（{pct}）"),
    "report.col.misconception": Message("misconception", "常见错误"),
    "report.col.examples": Message("for example", "涉及的学生"),
    # a message students were shown, quoted as it reads on their page
    "report.col.sample": Message("what students read (and the tests that fail)", "学生看到的消息（及未通过的测试）"),
    # the label before a misconception's failing tests, under its message in that column
    "report.failed_tests": Message("Tests that fail: ", "未通过的测试："),
    "report.col.test": Message("test", "测试"),
    "report.col.passed": Message("passed", "通过率"),
    "report.col.failing": Message("students failing", "未通过人数"),
    "report.col.student": Message("student", "学生"),
    "report.col.time": Message("grading time", "评分用时"),
    "report.col.status": Message("status", "运行状态"),
    "report.col.edition": Message("edition", "版本"),
    "report.col.score": Message("score", "得分"),
    "report.col.late": Message("late", "迟交"),
    "report.col.fix_first": Message("fix first", "首要问题"),
    "report.col.student_id": Message("student id", "学生编号"),
    "report.seconds": Message("{seconds} s", "{seconds} 秒"),
    # the summary table's rows
    "report.sum.submissions": Message("submissions", "提交份数"),
    "report.sum.graded": Message("graded", "已评分"),
    "report.sum.blank": Message("blank", "空白提交"),
    "report.sum.unreadable": Message("unreadable", "无法读取"),
    "report.sum.refused": Message("refused by the sandbox", "被沙箱拦截"),
    "report.sum.mean": Message("mean score", "平均分"),
    "report.sum.median": Message("median score", "得分中位数"),
    "report.sum.full": Message("full marks", "满分人数"),
    "report.sum.due": Message("due date", "截止时间"),
    "report.sum.dues": Message("{first} to {last} (extensions, editions)", "{first} 至 {last}（延期、不同版本）"),
    "report.sum.late": Message("handed in late", "迟交人数"),
    "report.sum.policy": Message("late policy", "迟交规则"),
    "report.sum.no_policy": Message("none", "无"),
    # the late policy a run applied (lateness.LatePolicy.rule, kept in the manifest), by its rule
    "report.policy.none": Message("none (lateness is shown, nothing is taken off)", "不扣分（只标出迟交）"),
    "report.policy.zero": Message("zero (a late submission scores 0)", "迟交的提交记 0 分"),
    "report.policy.per_hour": Message(
        "{points} points per hour late, or part of one", "每迟交一小时扣 {points} 分（不足一小时按一小时计）"
    ),
    "report.policy.course": Message(
        "{plugin}({settings}) from nbgrader_config.py", "nbgrader_config.py 中的 {plugin}（{settings}）"
    ),
    "report.sum.timeouts": Message("over the total time limit", "超出总时限"),
    "report.sum.memory": Message("out of memory", "内存不足"),
    "report.sum.ended": Message("crashed or exited early", "崩溃或提前退出"),
    "report.sum.grader_errors": Message("grader errors", "评分程序出错"),
    "report.sum.missing": Message("no result yet", "尚无结果"),
    # a student's row: the edition, the outcome, the one thing to fix first
    "report.edition.en": Message("en", "英文版"),
    "report.edition.zh": Message("zh", "中文版"),
    # a hand-in that does not say its edition (not a notebook, a .py file without "# language:"): Result.read_in
    "report.edition.unknown": Message("not said", "未注明"),
    "report.fix.timeout": Message("stopped at the total time limit {where}", "超出总时限，被终止{where}"),
    "report.fix.syntax": Message("a syntax error at {where}", "{where}有语法错误"),
    "report.fix.stopped": Message("{what} ran past its time limit and was stopped", "{what} 超过单项时限，被终止"),
    "report.fix.refused": Message("what the sandbox refused it: {detail}", "沙箱拒绝了它的操作：{detail}"),
    # beside the status column's "blank" / "空白提交": only what the state means, not the state again
    "report.fix.blank": Message("no code, or only the starter code", "没有代码，或只有初始代码"),
    "report.fix.fails": Message("“{test}” fails{more}", "“{test}”没有通过{more}"),
    "report.fix.more": Message(" (and {n} more tests fail)", "（另有 {n} 个测试未通过）"),
    # a part (a class, a method: Finding.unwritten) the hand-in left as the starter code, not a test it fails
    "report.fix.unwritten": Message(
        "{what} not written yet (still the starter code)", "{what} 还没有实现（仍是初始代码）"
    ),
    "report.late.unknown": Message("unknown", "无法确定"),
    "report.late.on_time": Message("on time", "按时"),
    "report.late.penalty": Message(" (−{points})", "（扣 {points} 分）"),  # after how late: what it took off
    # the terminal's class table and the run summary (outputs/summary.py)
    "report.batch.title": Message("{n} submissions", "共 {n} 份提交"),
    "report.batch.no_result": Message("no result", "没有结果"),
    "report.batch.grading": Message("grading", "评分中"),  # before the progress bar
    "report.batch.progress_item": Message("{student}: {score}/{top}", "{student}：{score}/{top}"),  # the last one
    # the run's summary line: what was graded now, and (when some were) what the folder's results kept
    "report.batch.graded_now": Message(
        "graded now: {graded} (seed {seed})", "本次共评分 {graded} 份提交（随机种子 {seed}）"
    ),
    # every submission of the table graded now: the table's title has said how many
    "report.batch.all_now": Message("all graded now (seed {seed})", "以上是本次评分（随机种子 {seed}）的结果"),
    "report.batch.graded_and_kept": Message(
        "graded now: {graded}, already up to date: {reused} (seed {seed})",
        "本次共评分 {graded} 份提交，另有 {reused} 份没有变化，沿用上次的结果（随机种子 {seed}）",
    ),
    "report.batch.all_kept": Message(
        "nothing graded now: all {reused} already up to date (seed {seed})",
        "没有需要重新评分的提交：{reused} 份提交都没有变化，沿用上次的结果（随机种子 {seed}）",
    ),
    # {counts}: the clauses below that are not zero, joined by report.tests_sep
    "report.batch.late": Message(
        "late: {counts} (grades.csv: late_by, late_penalty, final_score; the report's Needs a look)",
        "迟交：{counts}（见 grades.csv 的 late_by、late_penalty、final_score 列，以及报告的“需要关注”）",
    ),
    "report.batch.late_after": Message("{n} handed in after the due date", "{n} 份在截止时间之后提交"),
    "report.batch.late_unreadable": Message("{n} with an unreadable timestamp.txt", "{n} 份的 timestamp.txt 无法读取"),
    "report.batch.grades": Message("grades: {csv}   results: {results}", "成绩表：{csv}；评分结果：{results}"),
    "report.batch.report": Message("report: {report}   feedback: {feedback}", "报告：{report}；反馈页：{feedback}"),
    # a run in English on hand-ins most of which say they are Chinese (Result.language): said once, at the end
    "report.batch.in_chinese_all": Message(
        "The hand-ins are in Chinese: add --language zh for this summary and the report in Chinese.",
        "这些提交都是中文版：加上 `--language zh`，本摘要和报告也会用中文。",
    ),
    "report.batch.in_chinese_most": Message(
        "{n} of the {m} hand-ins are in Chinese: add --language zh for this summary and the report in Chinese.",
        "{m} 份提交中有 {n} 份是中文版：加上 `--language zh`，本摘要和报告也会用中文。",
    ),
}

# A kind of problem in *Needs a look* (attention.py): kind -> (what to do, English and Chinese); a run that ended
# otherwise (out of memory, crashed, exited early) gets OTHER. The flags' English is classview.FLAGS's.
_TODO = {
    "timeout": (
        "stopped at the total time limit: open the cell named (an endless loop or a very slow call); "
        "tests that needed it scored 0",
        "超出总时限，被终止：查看列出的单元格（可能是死循环，或者调用非常慢）；依赖其结果的测试记 0 分",
    ),
    "time budget": (
        "a cell or a check ran past its time limit and was stopped (most likely an endless loop); the rest was "
        "graded as usual. Ask the student to check that the loops in the methods listed can end.",
        "某个单元格或某项检查超过单项时限被终止（多半是死循环）；其余部分已照常评分。"
        "请学生检查列出的方法中的循环能否结束。",
    ),
    "syntax error": (
        "the file (or cell) with a syntax error did not run at all, so its classes are missing: ask the student to "
        "fix the line named (or the one before it) and hand in again",
        "有语法错误的文件（或单元格）完全没有运行，其中的类都没有定义；请学生改正列出的那一行（或它前面一行）后重新提交",
    ),
    "cells raised": (
        "the rest of the notebook ran, but what the cell would have made is missing; its feedback page tells the "
        "student the cell and the error",
        "其余代码照常运行，但出错的单元格本该定义的类或函数不存在；学生的反馈页写明了是哪个单元格、什么错误",
    ),
    "file raised": (
        "the code after the line that raised did not run, so the classes or functions defined after it are missing; "
        "the student's feedback page shows the error",
        "出错那一行之后的代码没有运行，其后定义的类或函数不存在；学生的反馈页写明了是什么错误",
    ),
    "unreadable": (
        "the file is not a readable submission: ask the student for a working copy",
        "文件无法读取：请学生重新提交一份能打开的文件",
    ),
    "evidence": (
        "the grader did not receive what the runner owes for these tests (tampered with, or the judge's own "
        "failure): they cost their points; read the run's notes in results/<id>.json before releasing the mark",
        "评分程序没有收到运行测试的进程为这些测试应交回的记录（被篡改，或者评分程序自身出错）：这些测试不得分；"
        "发布成绩之前请先看 results/<id>.json 里这次运行的说明",
    ),
    "sandbox refused": (
        "the submission tried what the sandbox refuses (files outside its view, a refused call, a flood of output): "
        "it earned nothing by it, and its page tells the student so; read the run in results/<id>.json and talk to "
        "the student",
        "这份提交试图做沙箱不允许的事（读取它看不到的文件、被拒绝的调用、大量输出）：它并没有因此得到任何分数，"
        "反馈页也告诉了学生这一点；请查看 results/<id>.json 里的这次运行，并和学生谈一谈",
    ),
    "similar hand-ins": (
        "open the side-by-side page (marked: what both wrote beyond the starter and common code); on an exercise "
        "this short it is a reason to talk to both students, not proof",
        "打开并排对照页（高亮的是两人都写了、且不属于初始代码或多数人共有代码的部分）；这道题很短，相似只是找两位学生了解情况的理由，"
        "不能当作抄袭的证据",
    ),
    "grader error": (
        "the grader failed, not the student: regrade with --student NAME",
        "出错的是评分程序，不是学生：请用 --student NAME 重新评分",
    ),
    "missing": (
        "no result yet (the run was stopped): run the same command again",
        "还没有结果（评分被中断了）：请再运行一次同样的命令",
    ),
    "not written": (
        "nothing to regrade: the student did not write the part named (it is still the starter code), and the "
        "tests that use it scored 0; the rest was graded as written",
        "无需重新评分：学生没有写列出的这部分（仍是初始代码），用到它的测试记 0 分；其余部分按所写的内容评分",
    ),
    "blank": (
        "remind the student to write the exercises, run the self-check, and hand in again",
        "提醒学生完成练习、运行自检后重新提交",
    ),
}
OTHER = (
    "look at its feedback page: the run explains the lost points",
    "查看学生的反馈页：运行情况说明了失分的原因",
)
_FLAG_TODO = {
    "look-alike name": "两个名字写法看起来一样（另一种文字，或者零宽字符）：发送成绩之前，请确认他们是两个不同的学生",
    "other files in the folder": "和 nbgrader 一样，只评了作业自己的 notebook；说明里列出了学生还交了什么",
    "several editions": (
        "交了不止一个版本的作业：按 nbgrader 的时间戳评了较晚提交的那个（时间分不出先后时，评作业本身的版本）；"
        "另一个没有评分"
    ),
    "submission time unreadable": (
        "nbgrader 的 timestamp.txt 里没有可读的时间（nbgrader 自己的 autograde 也会拒绝它）：不算迟交；请核实提交时间"
    ),
    "late": "在截止时间之后提交：迟交扣分与评分程序给的分数分开记（grades.csv 的 late_penalty、final_score 列）",
    "edition chosen without a time": (
        "交了不止一个版本的作业，而其中一个 timestamp.txt 缺失或没有写时间，所以不知道哪个是后交的："
        "评了作业本身的版本。请确认学生想交的是哪一个，然后把 nbgrader 的时间写进那个 timestamp.txt"
        "（或者把不想交的版本移出 `submitted/`），再运行一次同样的命令"
    ),
    "submission time missing": (
        "提交旁边没有 timestamp.txt（`nbgrader collect` 会写这个文件，手工建的文件夹里没有）：不算迟交。"
        "请核实提交时间，把 nbgrader 的时间写进 <student>/<assignment>/timestamp.txt"
        "（例如 2026-05-04 09:30:00 UTC），再运行一次同样的命令"
    ),
    "feedback page stale": (
        "这次运行之前为学生放好的反馈页显示的是另一个分数或另一些扣分：请在课程里为每个版本再运行一次 "
        "`nbgrader release_feedback <assignment>`（手工发放的反馈页：从课程的 `feedback/` 文件夹里发放新的那一份）；"
        "regrades.jsonl 里写了分数为什么变了"
    ),
}
# Every kind's name (a problem of *Needs a look*, a flag, a row's kind, how a run ended): the English is the kind.
KIND_WORDS = {
    "timeout": "超出总时限",
    "time budget": "超出单项时限（其余照常运行）",
    "syntax error": "语法错误",
    "cells raised": "有单元格出错（其余照常运行）",
    "file raised": "运行中途抛出异常（出错那一行之后的代码没有运行）",
    "unreadable": "无法读取",
    "evidence": "记录缺失",
    "grader error": "评分程序出错",
    "missing": "尚无结果",
    "blank": "空白提交",
    "not written": "未完成的部分",
    "out of memory": "内存不足",
    "crashed": "崩溃",
    "exited early": "提前退出",
    "look-alike name": "名字看起来相同",
    "other files in the folder": "文件夹里还有别的文件",
    "several editions": "交了多个版本",
    "submission time unreadable": "提交时间无法读取",
    "late": "迟交",
    "sandbox refused": "沙箱拒绝了它的操作",
    "refused": "被沙箱拦截",
    "edition chosen without a time": "没有提交时间可比，按版本选定",
    "submission time missing": "没有提交时间",
    "feedback page stale": "反馈页已过时",
    "similar hand-ins": "代码相似的提交",
    "graded": "已评分",
    "ok": "运行完毕，没有出错",  # as the page says it (page.status.ok)
    "memory": "内存不足",
    "exited": "提前退出",
    "judge limit": "评分程序超出自身上限",
    "no result": "没有结果",
}
WHAT_TO_DO = {kind: en for kind, (en, _) in _TODO.items()} | FLAGS  # attention.py's, in English
# details beside a student in *Needs a look*
REPORT.update(
    {
        "report.detail.late": Message(
            "{late} after the due date ({due}){taken}",
            "比截止时间（{due}）晚了 {late}{taken}",
        ),
        "report.detail.penalty": Message(", late penalty {points} points", "，迟交扣 {points} 分"),
        "report.detail.alike": Message("drawn like {names}", "与 {names} 写法相同"),
        "report.detail.its": Message("its", "它的"),
        "report.detail.missing_time": Message(
            "no timestamp.txt in {edition} folder; due {due}", "{edition} 文件夹里没有 timestamp.txt；截止时间是 {due}"
        ),
        "report.detail.stale_page": Message(
            "placed {when} showing {showed}, now {now} ({edition} folder)",
            "{when} 放好的反馈页显示的是 {showed}，现在是 {now}（{edition} 文件夹）",
        ),
        "report.detail.more": Message(" (+{n} more)", "（另有 {n} 处）"),
        "report.detail.more_tests": Message(" (and {n} more tests)", "（另有 {n} 个测试）"),
        # the charts (outputs/charts.py)
        "report.chart.histogram": Message("histogram of scores", "得分分布"),
        "report.chart.histogram_title": Message("Score distribution (judged submissions)", "得分分布（已评分的提交）"),
        "report.chart.score_axis": Message("score (points out of {top})", "得分（满分 {top}）"),
        "report.chart.students_axis": Message("students", "人数"),
        "report.chart.areas": Message("mean percent per area", "各评分项的平均得分率"),
        "report.chart.areas_title": Message("Mean score per area", "各评分项的平均得分率"),
        "report.chart.areas_axis": Message("mean % of the area's points", "平均得分率（%）"),
    }
)


def _ended(zh: str) -> str:
    """A Chinese piece of advice as a sentence: it ends with 。 (the table's rows read alike)."""
    return zh if zh.endswith("。") else zh + "。"


def _kinds() -> dict[str, Message]:
    """``report.kind.<kind>`` (its name: the English is the kind) and ``report.todo.<kind>`` (what to do)."""
    out = {f"report.kind.{kind}": Message(kind, name) for kind, name in KIND_WORDS.items()}
    out.update({f"report.todo.{kind}": Message(en, _ended(zh)) for kind, (en, zh) in _TODO.items()})
    out.update({f"report.todo.{flag}": Message(FLAGS[flag], _ended(zh)) for flag, zh in _FLAG_TODO.items()})
    out["report.todo.other"] = Message(*OTHER)
    return out


REPORT.update(_kinds())
REPORT.update(SIMILAR)  # the similarity pass's section and pages (messages_similarity.py)


def report_words(language: str) -> dict[str, str]:
    """The report's words (``report.<name>`` without the prefix: ``kind.timeout``, ``title``, ...) in `language`
    (English for a language not listed)."""
    language = language if language in LANGUAGES else "en"
    return {key.removeprefix("report."): entry.template(language) for key, entry in REPORT.items()}


register("report", REPORT)
