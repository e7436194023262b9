"""What a batch and a calibration print: names as they are (never markup), a calibration table that fits."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.lateness import Late
from autograder.outputs.roster import build_roster
from autograder.outputs.summary import batch_json, print_batch, print_calibration
from autograder.qa.calibrate import Verdict


def _outcome(names: list[str]):
    roster = build_roster({n: Path(f"{i}.py") for i, n in enumerate(names)}, roots=[], assignment="selftest")
    result = Result(tests=[TestOutcome("t.py::test_a", 3.0, "values", True)], run=RunFacts("ok"))
    results = {s.uid: result for s in roster[:-1]}  # the last one has no result yet
    return SimpleNamespace(
        roster=roster,
        results=results,
        graded=[roster[0].uid],
        reused=[s.uid for s in roster[1:-1]],
        seed=7,
        out=Path("graded"),
        csv_path=Path("graded/grades.csv"),
        report=None,
        late={roster[0].uid: Late("2026-05-04 14:30 UTC", "", "2026-05-04 12:00 UTC", 9000.0, 15.0)},
    )


def test_a_batch_prints_bracketed_names_as_they_are():
    console = Console(width=80, record=True, color_system=None)
    print_batch(_outcome(["x[/a]", "[bold]bob", "zed"]), console=console)
    text = console.export_text()
    assert "x[/a]" in text and "[bold]bob" in text and "no result" in text
    assert "graded now: 1, already up to date: 1 (seed 7)" in text
    # a clause that would count nothing is left out (issue 48, 4.2): no "0 with an unreadable timestamp.txt"
    assert "late: 1 handed in after the due date (grades.csv: late_by" in text and "0 with" not in text


def test_the_json_summary_names_who_was_graded_now():
    summary = batch_json(_outcome(["ann", "bob", "cat"]), None)
    assert summary["graded"] == ["ann"] and summary["up_to_date"] == ["bob"] and summary["seed"] == 7
    assert summary["students"]["cat"] == {
        "id": "cat",
        "score": None,
        "max_score": None,
        "status": "no result",
        "late_penalty": 0.0,
    }


def test_the_calibration_table_fits_80_columns_with_each_file_name_on_one_line():
    files = ["attacks/a04_monkeypatch_comparisons.py", "wrong/w12_hyper_parameter_ignored_num_layers.py"]
    verdicts = [
        Verdict(files[0], "attack", 0, 100, "ok", True, "status ok", 3.1),
        Verdict(
            files[1],
            "wrong hyper-parameter ignored (num_layers)",
            78,
            100,
            "ok",
            False,
            "'hyper-parameter ignored (num_layers)' not named in feedback [test_x[2]]",
            3.0,
        ),
    ]
    console = Console(width=80, record=True, color_system=None)
    print_calibration(verdicts, 2.5, assignment="weight_tying", console=console)
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert all(any(name in line for line in lines) for name in files)  # never folded over lines
    assert any("[test_x[2]]" in line for line in lines)  # brackets in a note are text
    assert any("FAIL" in line for line in lines) and "1/2 verdicts ok" in lines[-1]


def test_a_chinese_ta_reads_the_class_table_and_the_progress_bar_in_chinese():
    """grade --language zh: a run that ended normally reads 运行完毕，没有出错 (as the page), one whose only part
    never compiled does not
    (it reads 语法错误, "syntax error" in English); the summary says which results it reused, and the progress
    bar is labelled from the same catalog (the word handed to grade_batch)."""
    from autograder.grading.executors import _Progress
    from autograder.outputs.messages_report import report_words

    outcome = _outcome(["ann", "bob", "cat"])
    syntax = RunFacts("ok", load_errors=[[0, "SyntaxError: invalid syntax (line 3: def f(:)"]])
    outcome.results[outcome.roster[1].uid] = Result(
        tests=[TestOutcome("t.py::test_a", 3.0, "values", False)], run=syntax
    )
    texts = {}
    for language in ("en", "zh"):
        console = Console(width=80, record=True, color_system=None)
        print_batch(outcome, console=console, language=language)
        texts[language] = console.export_text()
    cells = [line.split("│") for line in texts["zh"].splitlines() if "│" in line]
    rows = {cell[1].strip(): cell[3].strip() for cell in cells}
    assert rows["ann"] == "运行完毕，没有出错" and rows["bob"] == "语法错误" and rows["cat"] == "没有结果"
    assert "本次共评分 1 份提交，另有 1 份没有变化，沿用上次的结果（随机种子 7）" in texts["zh"]
    assert "syntax error" in texts["en"] and "无需重评" not in texts["zh"]
    # a Chinese line takes Chinese colons: the table's, the summary's, the progress bar's (issue 48)
    chinese = [line for line in texts["zh"].splitlines() if re.search("[\u4e00-\u9fff]", line)]
    assert chinese and not [line for line in chinese if ":" in line]
    w = report_words("zh")
    bar = _Progress(3, w["batch.grading"], w["batch.progress_item"])
    try:
        assert bar.progress.columns[0].text_format == "评分中"
        bar.update("[b]ann", outcome.results[outcome.roster[1].uid])  # a name is shown as written, never markup
        assert bar.progress.tasks[0].description == "\\[b]ann：0/3"
    finally:
        bar.close()


def test_the_run_summary_never_counts_nothing():
    """Issue 48: "无需重评 0 份" (and "本次评分 0 份") read oddly: what a run graded and what it kept are said only
    when there are some."""
    lines = {}
    for graded, reused in ((2, 0), (1, 1), (0, 2)):
        outcome = _outcome(["ann", "bob", "cat"])
        uids = [s.uid for s in outcome.roster[:2]]
        outcome.graded, outcome.reused = uids[:graded], uids[graded : graded + reused]
        console = Console(width=120, record=True, color_system=None)
        print_batch(outcome, console=console, language="zh")
        lines[graded, reused] = next(line for line in console.export_text().splitlines() if "随机种子" in line)
    assert lines[2, 0] == "本次共评分 2 份提交（随机种子 7）"
    assert lines[1, 1] == "本次共评分 1 份提交，另有 1 份没有变化，沿用上次的结果（随机种子 7）"
    assert lines[0, 2] == "没有需要重新评分的提交：2 份提交都没有变化，沿用上次的结果（随机种子 7）"
    assert not any(" 0 份" in line for line in lines.values())
    # round 8: every one graded now: the table's title has said how many ("共 3 份提交"), the line does not again
    outcome = _outcome(["ann", "bob", "cat"])
    outcome.graded, outcome.reused = [s.uid for s in outcome.roster], []
    console = Console(width=120, record=True, color_system=None)
    print_batch(outcome, console=console, language="zh")
    text = console.export_text()
    assert "共 3 份提交" in text and "以上是本次评分（随机种子 7）的结果" in text and "本次共评分" not in text


def test_a_name_longer_than_the_table_is_folded_never_cut():
    long = "/courses/2026/submitted/" + "a" * 70 + "/x[/a]"
    console = Console(width=60, record=True, color_system=None)
    print_batch(_outcome([long, "bob"]), console=console)
    names = "".join(line.split("│")[1].strip() for line in console.export_text().splitlines() if line.count("│") == 4)
    assert long in names and "…" not in console.export_text()


def _languages(*languages: str):
    """An outcome whose results say these languages (a declared one: "zh", "en"; "zh?": a default, not declared)."""
    outcome = _outcome([f"s{i}" for i in range(len(languages))] + ["none"])
    for student, language in zip(outcome.roster, languages, strict=False):
        result = Result(tests=[TestOutcome("t.py::test_a", 3.0, "values", True)], run=RunFacts("ok"))
        result.language, result.language_declared = language.rstrip("?"), not language.endswith("?")
        outcome.results[student.uid] = result
    return outcome


def _printed(outcome, language: str = "en") -> list[str]:
    console = Console(width=200, record=True, color_system=None)
    print_batch(outcome, console=console, language=language)
    return [line for line in console.export_text().splitlines() if "--language zh" in line]


def test_a_run_in_english_on_chinese_hand_ins_says_once_how_to_read_it_in_chinese():
    """Issue 48, round 23, item 3: a class whose files are Chinese printed the English frame; English stays the
    default, and the summary says once, from the results' languages, how to have it in Chinese."""
    assert _printed(_languages("zh", "zh", "zh")) == [
        "The hand-ins are in Chinese: add --language zh for this summary and the report in Chinese."
    ]
    assert _printed(_languages("zh", "zh", "en")) == [
        "2 of the 3 hand-ins are in Chinese: add --language zh for this summary and the report in Chinese."
    ]
    assert _printed(_languages("zh", "en")) == []  # half is not most
    assert _printed(_languages("zh?", "zh?", "en")) == []  # a language the file did not say is no hand-in's
    assert _printed(_languages("zh", "zh"), "zh") == []  # already in Chinese
