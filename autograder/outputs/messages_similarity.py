"""Trusted: the similarity pass's words to an instructor (its section of the report, ``similarity.html``, the
side-by-side pages, its line in *Needs a look* and on the terminal), English and Chinese side by side.

Part of the report's catalog (``messages_report`` registers them with its own, as ``report.similar.<name>``; a
template reads them as ``w["similar.<name>"]``). A hand-in that was not compared, or compared with a note, names
why by its kind (``written.EMPTY``, ...: ``report.similar.kind.<kind>``) and a detail the pass stores as a message
(``report.similar.detail.<name>`` and its parameters), so a Chinese report says it in Chinese.
"""

from __future__ import annotations

from autograder.protocol.said import Message

__all__ = ["SIMILAR"]

SIMILAR = {
    "report.similar.title": Message("Similar hand-ins", "代码相似的提交"),
    "report.similar.index_title": Message("{assignment}: similar hand-ins", "{assignment} 作业：代码相似的提交"),
    # the section's first paragraph: what was compared ({compared}{archived}{when}), then the rule
    "report.similar.compared": Message("{n} hand-ins compared", "共比较了 {n} 份提交"),
    "report.similar.with_archives": Message(
        ", and {n} of earlier years ({archives})", "，另有往年的 {n} 份（{archives}）"
    ),
    "report.similar.when": Message(", {when}", "（{when}）"),
    "report.similar.rule": Message(
        "{compared}. Two hand-ins are listed when {threshold} or more of either one’s own code (beyond the starter "
        "code, the reference solution’s code and what many hand-ins share) is also in the other’s, and that shared "
        "code is at least {chars} characters long once names, strings, comments and spacing are set aside. On an "
        "exercise this short, independent work can look alike: read both, then talk to the students.",
        "{compared}。判定标准：一份提交自己写的代码（初始代码、参考答案的代码和多数人共有的代码除外）中，"
        "有 {threshold} 或更多也出现在另一份提交里，"
        "而且重合部分在忽略变量名、字符串、注释和空白之后不少于 {chars} 个字符。"
        "这道题很短，独立完成的作业也可能相似：请先对照阅读两份代码，再与学生沟通。",
    ),
    "report.similar.col.first": Message("hand-in A", "提交 A"),
    "report.similar.col.second": Message("hand-in B", "提交 B"),
    "report.similar.col.share_first": Message("share of A’s own code also in B", "A 自己写的代码中与 B 重合的比例"),
    "report.similar.col.share_second": Message("share of B’s own code also in A", "B 自己写的代码中与 A 重合的比例"),
    "report.similar.col.page": Message("side by side", "并排对照"),
    "report.similar.compare": Message("compare", "查看"),
    "report.similar.archive": Message("archive: {name}", "往年存档：{name}"),
    "report.similar.drawn_alike": Message(
        "(names drawn alike: one student twice?)", "（名字写法相同：同一个学生交了两次？）"
    ),
    "report.similar.none": Message(
        "No two hand-ins are alike up to the threshold.", "没有哪两份提交的相似度达到阈值。"
    ),
    "report.similar.noted": Message("Not compared, or compared with a note", "未参与比较的提交及说明"),
    "report.similar.name_alike": Message("a name drawn like {names}", "名字与 {names} 写法相同"),
    "report.similar.colon": Message(": ", "："),  # a hand-in, then what is said of it
    "report.similar.detail": Message(" ({detail})", "（{detail}）"),
    # why a hand-in was not compared, or what was said of it (similarity.written's kinds)
    "report.similar.kind.unreadable": Message("unreadable", "无法读取"),
    "report.similar.kind.empty": Message("blank", "空白提交"),
    "report.similar.kind.huge": Message("huge", "过长"),
    "report.similar.kind.non-UTF-8": Message("non-UTF-8", "不是 UTF-8 编码"),
    "report.similar.kind.nothing of its own": Message("nothing of its own", "没有自己写的代码"),
    "report.similar.kind.syntax error": Message("syntax error", "有语法错误"),
    "report.similar.detail.empty": Message("no code, or only the starter code", "没有代码，或只有初始代码"),
    "report.similar.detail.common_only": Message(
        "only comments, starter code, the reference's or code many hand-ins share",
        "只有注释、初始代码、参考答案的代码或多数人共有的代码",
    ),
    # a hand-in that did not compile when graded, with nothing of its own left to compare
    "report.similar.detail.syntax_error": Message(
        "not compared: too little code of its own once comments, the starter code, the reference's and code many "
        "hand-ins share are set aside",
        "未参与比较：除去注释、初始代码、参考答案的代码和多数人共有的代码后，剩下的代码太少",
    ),
    "report.similar.detail.huge": Message(
        "{n} characters of code: the first {m} compared", "代码共 {n} 个字符，只比较了前 {m} 个"
    ),
    "report.similar.detail.unreadable": Message("cannot be read ({error})", "无法读取（{error}）"),
    "report.similar.detail.untokenized": Message("could not be tokenized ({error})", "无法切分成 token（{error}）"),
    # one pair's side-by-side page
    "report.similar.pair_title": Message("{first} and {second}: similar code", "{first} 与 {second}：相似的代码"),
    "report.similar.archived_hand_in": Message("archived hand-in {name}", "往年存档中的提交 {name}"),
    "report.similar.marked": Message(
        "Marked: what both wrote beyond the starter code and the code many hand-ins share, names, strings, comments "
        "and spacing set aside ({chars} characters in common once they are). A comment such as {example} above a "
        "piece says where it sits in the hand-in.",
        "高亮部分是两份提交共有、又不属于初始代码或多数人共有代码的代码；"
        "忽略变量名、字符串、注释和空白之后，重合部分共 {chars} 个字符。"
        "每一段上方的注释（如{example}）标明这一段在提交中的位置。",
    ),
    # the place line above each piece of a hand-in, a comment in the page's language (written.read_written)
    "report.similar.place.cell": Message("# cell {n}", "# 第 {n} 个单元格"),
    "report.similar.place.part": Message("# part {n}", "# 第 {n} 段"),
    # what the place lines mean, one sentence for each kind a page shows (pages._examples)
    "report.similar.marker.cell": Message(
        " “# cell N” is the notebook's cell N, counted from its top, text cells included.",
        "单元格从 notebook 顶部数起，markdown 单元格也计入。",
    ),
    "report.similar.marker.part": Message(
        " “# part N” is part N of a .py file, split by # %%.", "“# 第 N 段”指 .py 文件中以 # %% 分隔的第 N 段。"
    ),
    "report.similar.from_archive": Message(
        "The second hand-in is from an archive of earlier years: it is not a student of this class.",
        "第二份提交来自往年的存档，不是本班学生的提交。",
    ),
    "report.similar.share": Message(
        "{share} of what {name} wrote is also in {other}’s hand-in",
        "{name} 写的代码中有 {share} 也出现在 {other} 的提交里",
    ),
    "report.similar.all": Message("All similar hand-ins", "所有相似的提交"),
    # a pair in Needs a look, beside its first student; the terminal's line after a pass
    "report.similar.pair": Message(
        "with {other}: {mine} of this hand-in, {theirs} of the other's",
        "与 {other} 相似（占这份提交的 {mine}，占对方的 {theirs}）",
    ),
    "report.similar.summary": Message(
        "similarity: {n} hand-ins{archived} compared{left}, {pairs} pair(s) at {threshold} or more: {page}",
        "相似度检查：比较了 {n} 份提交{archived}{left}，相似度达到 {threshold} 或以上的有 {pairs} 对，详见 {page}",
    ),
    # the same when no pair reaches the threshold
    "report.similar.summary_none": Message(
        "similarity: {n} hand-ins{archived} compared{left}, no pair at {threshold} or more: {page}",
        "相似度检查：比较了 {n} 份提交{archived}{left}，没有哪两份提交的相似度达到 {threshold}，详见 {page}",
    ),
    "report.similar.summary_archived": Message(" and {n} archived", "（另有往年存档 {n} 份）"),
    # the class's hand-ins the pass left out, beside how many were compared: these are others, not among them; one
    # clause per reason with its count (report.similar.left.*, joined by report.list): "（另有 1 份空白提交、…）"
    "report.similar.summary_left": Message(" (and {kinds}, not compared)", "（另有 {kinds}，未参与比较）"),
    "report.similar.left.unreadable": Message("{n} unreadable", "{n} 份提交无法读取"),
    "report.similar.left.empty": Message("{n} blank", "{n} 份空白提交"),
    "report.similar.left.huge": Message("{n} too long", "{n} 份提交过长"),
    "report.similar.left.non-UTF-8": Message("{n} not in UTF-8", "{n} 份提交不是 UTF-8 编码"),
    "report.similar.left.nothing of its own": Message("{n} with nothing of its own", "{n} 份提交没有自己写的代码"),
    "report.similar.left.syntax error": Message("{n} with a syntax error", "{n} 份提交有语法错误"),
    # a reason the kit has no clause for (a store written by another version): its name as stored
    "report.similar.left.other": Message("{n} {kind}", "{n} 份提交：{kind}"),
}
