"""Trusted: the engine's own words to students, English and Chinese side by side, and errors that carry them.

Every grader's submissions are run, refused and judged by the engine, so these messages are the engine's, not
one grader's: how a run ended and what loading it left (the run summary, ``result.RunFacts.summary``), why a
hand-in was not run (``submissions``, ``safe_files``: a ``CatalogError`` carrying its message id and
parameters, rendered where it is shown; its words are in ``messages_input.py``), and what the judge's limits
cost (``pipeline.judged``). A grader's own messages (its misconceptions, areas and test titles) live in its
catalog (``AssignmentSpec.catalog``).

Adding or rewording a message: ``"its.id": ("English {param}", "中文 {param}")`` below, the same parameters in
both (``problems()`` names a missing or mismatched one; ``tests/autograder/grading/test_catalog.py`` fails on it); build
it with ``render("its.id", language, param=...)`` where the language is known, or raise ``CatalogError("its.id",
param=...)`` where it is not. The English text is what the engine wrote before the catalog, byte for byte.
"""

from __future__ import annotations

from autograder.grading.gradescope.messages import GRADESCOPE
from autograder.grading.messages_input import INPUT
from autograder.protocol import said
from autograder.protocol.said import LANGUAGES, Said
from coursecheck.messages import MESSAGES as SELF_CHECK
from coursecheck.notebook import CellPlace, name_cell

__all__ = ["LANGUAGES", "MESSAGES", "render", "problems", "cell_name", "CatalogError", "OWNER"]

OWNER = "engine"
MESSAGES: dict[str, tuple[str, str]] = {
    # ------------------------------------------------------------- the run summary (result.RunFacts.summary)
    # the file itself: a check that runs a method (and is stopped at its budget) is no part of this run
    # every cell (the whole file) ran, whatever the checks found after: said of what ran (RunFacts.unit), not of
    # "your code" (a forward that raises in a check below is code that did not run without an error)
    "run.ok": (
        "Every cell of the notebook ran, top to bottom, without an error.",
        "notebook 的各单元格从头到尾运行完毕，没有出错。",
    ),
    "run.ok.file": ("Your file ran, top to bottom, without an error.", "你的文件从头到尾运行完毕，没有出错。"),
    "run.ok.stopped": (
        "Every cell of the notebook ran, top to bottom; but checking {what} ran past its time limit: see below.",
        "notebook 的各单元格从头到尾运行完毕；但检查 {what} 时超过了单项时限，见下文。",
    ),
    "run.ok.file.stopped": (
        "Your file ran, top to bottom; but checking {what} ran past its time limit: see below.",
        "你的文件从头到尾运行完毕；但检查 {what} 时超过了单项时限，见下文。",
    ),
    # a blank submission (Result.blank): said instead of how the run ended, whether the file holds code or not,
    # in the one wording the report's first-fix column and the pages use too (report.fix.blank)
    "run.blank.empty": (
        "Blank submission: no code, or only the starter code.",
        "空白提交：没有代码，或只有初始代码。",
    ),
    "run.blank.starter": (
        "Blank submission: no code, or only the starter code.",
        "空白提交：没有代码，或只有初始代码。",
    ),
    "run.timeout": (
        "Your code was stopped after {limit} s (time limit): tests that needed results it had not produced yet"
        " score 0. Look for an endless loop or a very slow computation.",
        "你的代码运行 {limit} 秒后被终止（时间限制）：需要它尚未产出结果的测试记 0 分。"
        "请检查有没有死循环或非常慢的计算。",
    ),
    "run.memory": (
        "Your code ran out of memory (limit {memory}): tests that needed results it had not produced score 0."
        " Look for a huge tensor or a list that grows without end.",
        "你的代码耗尽了内存（上限 {memory}）：需要它尚未产出结果的测试记 0 分。"
        "请检查有没有超大的张量或无限增长的列表。",
    ),
    "run.exited": (
        "Your code ended the grading process early (exit code {exit_code}): remove sys.exit(), os._exit() or"
        " quit() from the submission; tests that needed later results score 0.",
        "你的代码提前结束了评分进程（退出码 {exit_code}）：请从提交中删除 sys.exit()、os._exit() 或 quit()；"
        "需要之后结果的测试记 0 分。",
    ),
    "run.crashed": (
        "The Python process running your code crashed (signal {signal}): tests that needed later results score 0.",
        "运行你代码的 Python 进程崩溃了（信号 {signal}）：需要之后结果的测试记 0 分。",
    ),
    "run.judge_limit": (
        "Judging what your code produced went past the judge's own time or memory limit: the tests judged"
        " before that keep their points, the others score 0. Tell your instructor if your code is correct.",
        "评判你的代码的输出时，超出了评分程序自身的时间或内存上限：已经评判过的测试保留得分，其余记 0 分。"
        "如果你确信代码是正确的，请告诉老师。",
    ),
    "run.unknown": ("Unknown run status {status}.", "未知的运行状态 {status}。"),
    # what the sandbox refused the run (refusals.refused_lines): said to the student as to the TA
    # the paths are the TA's to read (Needs a look): said here, they would tell which of a student's guesses exist
    "run.refused.files": (
        "Your code tried to reach files the grader's sandbox does not show it. A submission may read only what it "
        "holds itself; your instructor sees this attempt.",
        "你的代码试图读取评分程序的隔离环境不向它开放的文件。提交的代码只能读取它自身包含的内容；老师会看到这次尝试。",
    ),
    "run.refused.call": (
        "Your code made calls the grader's sandbox refuses: {what}. Your instructor sees this attempt.",
        "你的代码进行了评分程序的隔离环境禁止的调用：{what}。老师会看到这次尝试。",
    ),
    "run.refused.output": (
        "Your code wrote more to {what} than the grader reads: the sandbox stopped reading, and the writes after "
        "that failed.",
        "你的代码向 {what} 写入的内容超出了评分程序读取的上限：隔离环境停止了读取，之后的写入都失败了。",
    ),
    "run.ran_but_cells_raised": (
        "The grader ran your notebook from the top; {n} of its cells did not finish:",
        "评分程序从头运行了你的 notebook，其中有 {n} 个单元格没有正常结束：",
    ),
    # every cell (part) that did not finish (syntax_cell: the one) had a syntax error: not "ran to the end"
    "run.syntax_cells": (
        "Your code has a syntax error, so Python ran none of the cells below:",
        "你的代码有语法错误，下面这些单元格一行都没有运行：",
    ),
    "run.syntax_cell": (
        "Your code has a syntax error, so Python ran none of this cell:",
        "你的代码有语法错误，下面这个单元格一行都没有运行：",
    ),
    "run.syntax_parts": (
        "Your file has a syntax error, so Python ran none of the part it is in (the # %% lines split the file):",
        "你的文件有语法错误，出错的那一部分（以 # %% 分隔）一行都没有运行：",
    ),
    # a .py file of one part (no # %% lines): the file is what did not run
    "run.syntax_file": (
        "Your file has a syntax error, so Python ran none of it:",
        "你的文件有语法错误，Python 一行都没有运行：",
    ),
    "run.file_raised": (
        "Your file raised an exception while it was loading; the code after that line did not run:",
        "加载你的文件时抛出了异常，出错那一行之后的代码都没有运行：",
    ),
    # where Python stopped reading (result.RunFacts.syntax_where), the line as the student wrote it, Python's words
    "run.syntax_at": (
        "Syntax error at {where}{before}: “{code}” ({error})",
        "{where}有语法错误{before}：“{code}”，Python 的提示是“{error}”",
    ),
    "run.syntax_bare": ("Syntax error at {where}{before}: {error}", "{where}有语法错误{before}：“{error}”"),
    # where Python stops reading may be a line after the mistake (a bracket left open runs on): said past line 1
    "run.syntax_before": (
        " (or on the line before it, e.g. a bracket left open)",
        "（也可能在它前面一行，例如括号没有闭合）",
    ),
    "run.cell_line": ("{cell}, line {line}", "{cell}第 {line} 行"),
    "run.file_line": ("line {line}", "第 {line} 行"),
    "run.cells_counted": SELF_CHECK["check.cells_counted"],  # the self-check says it in the same words
    "run.cell_raised": (
        "While loading your submission, {cell} raised {error}",
        "加载你的提交时，{cell}抛出了“{error}”",
    ),
    # the same three under a header that already says the grader ran the code (RUN_HEADERS): said once
    "run.listed.cell_raised": ("{cell} raised {error}", "{cell}出错：“{error}”"),
    "run.listed.cell_stopped": (
        "{cell} was stopped at its time budget (an endless loop, or a very long computation?); the cells after it"
        " still ran",
        "{cell}在分给它的时间内没有结束，被终止了（是死循环，还是计算量太大？）；后面的单元格照常运行。",
    ),
    "run.listed.cell_starter": (
        "{cell} raised {error}: it uses a part that still holds the starter code (raise NotImplementedError)",
        "{cell}出错：“{error}”。它调用的类里还有初始代码（会抛出 NotImplementedError）没有替换",
    ),
    # a cell's name (``cell_name``): the words the self-check names a cell with (its check.place.*)
    "cell.place.full": (
        "cell {number} (in “{heading}”, starting “{first}”)",
        "第 {number} 个单元格（“{heading}”一节，以“{first}”开头）",
    ),
    "cell.place.no_heading": ("cell {number} (starting “{first}”)", "第 {number} 个单元格（以“{first}”开头）"),
    "cell.place.no_first": ("cell {number} (in “{heading}”)", "第 {number} 个单元格（“{heading}”一节）"),
    "cell.place.bare": ("cell {number}", "第 {number} 个单元格"),
    "run.not_defined": (
        "Not defined by your submission: {names} (check the exact class names).",
        "你的提交没有定义 {names}（请核对类名的拼写）。",
    ),
    "run.not_defined_syntax": (
        "Because of that syntax error, your submission does not define {names}.",
        "由于这个语法错误，{names} 没有定义。",
    ),
    # two names: "neither A nor B" ("A 和 B 都没有定义", not "A、B 没有定义")
    "run.not_defined_syntax_both": (
        "Because of that syntax error, your submission defines neither {first} nor {second}.",
        "由于这个语法错误，{first} 和 {second} 都没有定义。",
    ),
    # three or more: "none of A, B and C" ("A、B 和 C 都没有定义")
    "run.not_defined_syntax_all": (
        "Because of that syntax error, your submission defines none of {names}.",
        "由于这个语法错误，{names} 都没有定义。",
    ),
    "run.names_sep": (", ", "、"),  # between the names a submission does not define
    "run.names_last_sep": (" and ", " 和 "),  # before the last of them: "A、B 和 C"
    "run.cell_stopped": (
        "While loading your submission, {cell} was stopped at its time budget (an endless loop, or a very long"
        " computation?); the cells after it still ran",
        "加载你的提交时，{cell}在分给它的时间内没有结束，被终止了（是死循环，还是计算量太大？）；"
        "后面的单元格照常运行。",
    ),
    "run.cell_starter": (
        "While loading your submission, {cell} raised {error}: it uses a part that still holds the starter code"
        " (raise NotImplementedError)",
        "加载你的提交时，{cell}抛出了“{error}”：它调用的类里还有初始代码（会抛出 NotImplementedError）没有替换",
    ),
    "run.ran_but_parts_raised": (
        "The grader ran your file from the top; {n} of its parts did not finish:",
        "评分程序从头运行了你的文件，其中有 {n} 个部分没有正常结束：",
    ),
    "run.parts_counted": (
        "Your file's parts are numbered from 1: each line starting with # %% begins a new one.",
        "你的文件以 # %% 开头的行分成几部分，从 1 开始编号。",
    ),
    "cell.place.part": ("part {number}", "第 {number} 部分"),
    # a .py file of one part (no # %% lines) is named as the file; on the report, for the staff (place's `staff`)
    "cell.place.file": ("your file", "你的文件"),
    "cell.place.the_file": ("the file", "文件"),
    # what a .py file of one part raised while loading, under run.file_raised
    "run.file_error": ("It raised {error}", "抛出的异常是“{error}”"),
    "judge.raised_at": (" (at {place}, line {line}{function})", "（{place}第 {line} 行{function}）"),
    "judge.raised_at_line": (" (at line {line}{function})", "（第 {line} 行{function}）"),  # in a .py file
    # a cell the run knows by its section and first line: the cell and line first, then where that cell is, in
    # one pair of brackets (round 19: "（第 25 个单元格（“…”一节，以“…”开头）第 35 行，…）" nested three)
    "judge.raised_at.named": (
        " (at {place}, line {line}{function}; {where})",
        "（出错的位置：{place}第 {line} 行{function}；{where}）",
    ),
    # where that cell is (rendering._named_cells): the cell.place.* parts after the number, said as a clause
    "cell.where.full": (
        "that cell is in “{heading}”, starting “{first}”",
        "该单元格位于“{heading}”一节，以“{first}”开头",
    ),
    "cell.where.no_heading": ("that cell starts “{first}”", "该单元格以“{first}”开头"),
    "cell.where.no_first": ("that cell is in “{heading}”", "该单元格位于“{heading}”一节"),
    "judge.raised_in": (", in {name}", "，在 {name} 中"),
    # why a test carries only part of its points in a misconception's charge (marking.Part, rendering.part_words)
    "charge.part.others": ("{points} of its points go to “{title}”", "其中 {points} 分计入“{title}”"),
    "charge.part.sep": ("; ", "；"),
    # an area where the misconception's cost leaves points of its tests uncharged (rendering._caps), said once
    "charge.cap": (
        "In “{area}” this mistake costs a fixed {cap} points, so the {n} tests of that area above (worth {points}"
        " points) lose {cap} for it in all",
        "这个错误在“{area}”一项固定扣 {cap} 分，所以上面属于这一项的 {n} 个测试（共 {points} 分）合计只扣 {cap} 分",
    ),
    # the same, where the charge has one test in the area: why that test cost less than it is worth
    "charge.cap.one": (
        "In “{area}” this mistake costs a fixed {cap} points, so this test (worth {points} points) loses {cap} for it",
        "这个错误在“{area}”一项固定扣 {cap} 分，所以这个 {points} 分的测试只扣 {cap} 分",
    ),
    # a misconception that costs nothing in this area: it is charged in its other areas (a charge of nothing
    # anywhere frees nothing, marking.Scheme.charges), which is why the area's failing tests lose nothing for it
    "charge.cap.none": (
        "In “{area}” this mistake costs nothing more (it is charged in its other areas), so the tests of that"
        " area above lose nothing for it, though they fail because of it",
        "这个错误在“{area}”一项不再扣分（已在其他评分项扣过），所以上面属于这一项的测试虽然因此失败，但不扣分",
    ),
    # the same, where the charge has one test in the area
    "charge.cap.none.one": (
        "In “{area}” this mistake costs nothing more (it is charged in its other areas), so this test above"
        " loses nothing for it, though it fails because of it",
        "这个错误在“{area}”一项不再扣分（已在其他评分项扣过），所以上面这个测试虽然因此失败，但不扣分",
    ),
    # where the time ran out, under the summary of a run that timed out (grading.rendering.stopped_at)
    "run.stopped_where": ("It was stopped {where}.", "代码被终止的位置{where}。"),
    "run.where.cell": ("while running {place}", "：当时正在运行{place}"),
    "run.where.check": (
        "while the grader was calling your code for the check '{check}'",
        "：当时评分程序正在为检查“{check}”调用你的代码",
    ),
    "run.where.unknown": (
        "(the grader could not tell which cell or check was running)",
        "（评分程序无法确定当时正在运行哪个单元格或检查）",
    ),
    # a hand-in whose file was refused (submissions.SubmissionRefused): `why` names the file, what is wrong and the fix
    "run.not_run": ("Your submission was not run: {why}.", "你的提交没有被运行。{why}。"),
    "run.grader_error": ("The grader could not grade this submission: {why}", "评分程序无法评阅这份提交：{why}"),
    # ------------------------------------------------------- the judge's limits (pipeline.judged)
    "judge.stopped.time": ("its time limit ({seconds} s)", "达到了自身的时间上限（{seconds} 秒）"),
    "judge.stopped.memory": ("its memory limit ({memory})", "达到了自身的内存上限（{memory}）"),
    "judge.stopped.died": ("an unexpected end", "意外终止了"),
    "judge.not_judged": (
        "not judged: the judge stopped at {where} on this submission's evidence",
        "未评判：评判这份提交的结果时，评分程序{where}",
    ),
    "judge.note": (
        "the judge stopped at {where}; {judged} of {total} tests were judged",
        "评分程序{where}；{total} 个测试中评判了 {judged} 个",
    ),
    # -------------- what the judge's evidence helpers and its suite runners say (grading/judge/suite_api.py)
    "judge.the_grader_hit_an_internal_error": (
        "the grader hit an internal error ({what}); tell your instructor",
        "评分程序内部出错（“{what}”）；请告诉你的老师",
    ),
    "judge.did_not_finish_within": (
        "{what} did not finish within {n} s, its share of the time limit, and was stopped: the loop may never end,"
        " or it may be far too slow. The other tests still ran",
        "{what}没有在限定的 {n} 秒内结束，已被终止：可能是死循环，也可能是循环太慢。其他测试照常运行",
    ),
    "judge.failed_your_code_raised": (
        "{what} failed: your code raised {text}",
        "{what}运行失败：你的代码抛出了异常“{text}”",
    ),
    "judge.starter_code": (
        "{what} is not implemented yet: it still raises the starter code's NotImplementedError{at}; replace"
        " raise NotImplementedError() with your own code",
        "{what} 还没有实现：{at}仍是初始代码（会抛出 NotImplementedError），请换成你自己的代码",
    ),
    # where the starter code still is, in judge.starter_code's sentence ({function} is the method it names already)
    "judge.starter_at": (" ({place}, line {line})", "{place}第 {line} 行"),
    "judge.starter_at_line": (" (line {line})", "第 {line} 行"),
    "judge.no_evidence_for": (
        "no evidence for {what}: {why}",
        "没有{what}的结果：{why}",
    ),
    "judge.run_ended_with_status": (
        "the run ended with status {status} before it ran",
        "还没运行到这一步，运行就已结束（状态：{status}）",
    ),
    "judge.experiment_named": ("experiment {name}", "实验 {name}"),
    "judge.is_none": ("{label} is None", "{label} 是 None"),
    "judge.malformed_state_dict_shapes": (
        "malformed state_dict shapes for {label}",
        "{label} 的 state_dict 形状记录格式不对",
    ),
    "judge.the_experiment_did_not_report_see": (
        "the record the runner owed is missing: it was refused, sent twice or never sent (your instructor will "
        "look at this hand-in)",
        "评分程序中负责运行你代码的部分（runner）应当交回的记录不见了：它被拒收、重复发送，"
        "或者根本没有发来（老师会查看这份提交）",
    ),
    "judge.the_submission_stopped_before_it_ran": (
        "the submission stopped before it ran",
        "提交在运行到这里之前就停止了",
    ),
    "judge.the_submission_was_stopped_at_the": (
        "the submission was stopped at the time limit before it ran",
        "提交在运行到这里之前就因超时被终止",
    ),
    "judge.the_submission_ran_out_of_memory": (
        "the submission ran out of memory before it ran",
        "提交在运行到这里之前就耗尽了内存",
    ),
    "judge.the_submission_crashed_before_it_ran": (
        "the submission crashed before it ran",
        "提交在运行到这里之前就崩溃了",
    ),
    "judge.the_submission_exited_early_sys_exit": (
        "the submission exited early (sys.exit / os._exit) before it ran",
        "提交在运行到这里之前就提前退出了（sys.exit / os._exit）",
    ),
    "judge.has_shape_expected": (
        "{label} has shape {got}, expected {want}",
        "{label} 的形状是 {got}，应为 {want}",
    ),
    "judge.has_dtype_expected": (
        "{label} has dtype {got}, expected {want}",
        "{label} 的 dtype 是 {got}，应为 {want}",
    ),
    "judge.contains_nan_or_inf": (
        "{label} contains NaN or inf",
        "{label} 含有 NaN 或 inf",
    ),
    "judge.is_a_expected_a_plain_torch": (
        "{label} is a {kind}, expected a plain torch.Tensor",
        "{label} 是 {kind}，应为普通的 torch.Tensor",
    ),
    "judge.no_value_recorded_for": (
        "no value recorded for {label}",
        "没有记录到 {label} 的值",
    ),
    "judge.malformed_evidence_for": (
        "malformed evidence for {what} (got {kind}, expected a dict)",
        "{what} 的记录格式不对（收到的是 {kind}，应为 dict）",
    ),
    **INPUT,  # why a hand-in was not run (grading/messages_input.py)
    **GRADESCOPE,  # what a Gradescope upload and its results.json say (grading/gradescope/messages.py)
}


said.register(OWNER, MESSAGES)


def render(key: str, language: str = "en", /, **params: object) -> str:
    """The registered message `key` in `language` (English for a language the kit does not speak), its
    parameters filled in; KeyError naming an unknown id."""
    return said.render(Said(key, **params), language if language in LANGUAGES else "en")


def cell_name(place: CellPlace, language: str = "en") -> str:
    """A notebook cell's name in `language`: its number, its section's heading and its first line
    (``coursecheck.notebook.name_cell`` over the ``cell.place.*`` messages, the words the self-check uses too)."""
    en_zh = {form: MESSAGES[f"cell.place.{form}"] for form in ("full", "no_heading", "no_first", "bare")}
    return name_cell(place, {form: zh if language == "zh" else en for form, (en, zh) in en_zh.items()})


def problems() -> list[str]:
    """Why the engine's catalog is incomplete: a message without a rendering in some language, or whose
    languages fill in different parameters. Empty when every message renders in every language."""
    return said.problems(MESSAGES)


class CatalogError(ValueError):
    """An error whose message is one of the engine's: it carries the id and the parameters, so that it is
    rendered in the student's language where it is shown (``render_in``); ``str()`` is its English."""

    def __init__(self, key: str, /, **params: str | int) -> None:
        self.key, self.params = key, dict(params)
        super().__init__(render(key, "en", **params))

    def render_in(self, language: str) -> str:
        return render(self.key, language, **self.params)
