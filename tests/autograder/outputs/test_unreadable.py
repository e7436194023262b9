"""A hand-in the grader could not read (not a notebook): every output says so, with one status and in the
language the student and the instructor read (issue 48, round 8: the page said "status: ok" in English and
pointed at a section it did not have, the class table said 正常运行, the report's row was English)."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from autograder.graders import get_assignment
from autograder.grading import pipeline
from autograder.grading.findings import Finding
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.classview import load_class
from autograder.outputs.feedback import feedback_html
from autograder.outputs.grades import write_grades
from autograder.outputs.report import write_report
from autograder.outputs.roster import build_roster
from autograder.outputs.summary import batch_json, print_batch
from autograder.outputs.table import render
from autograder.protocol.said import Said

SPEC = get_assignment("weight_tying")
NAMES = ["TiedEmbeddingLM", "MiniGPTWithWeightTying"]


def _refused(tmp_path: Path) -> Result:
    """A notebook that is not valid JSON, graded as the pipeline grades it: empty, every test failing because
    neither class is defined, with the reason it was not read."""
    path = tmp_path / "chen_shi.ipynb"
    path.write_text('{"cells": [\n')
    missing = Finding(Said("judge.class_not_defined", name="TiedEmbeddingLM"))
    tests = [TestOutcome(f"x.py::{t.name}", t.points, t.area, False, missing) for t in SPEC.scheme.tests.values()]
    run = RunFacts(status="ok", required_names=NAMES)
    return pipeline.finish(tests, run, seed=7, seconds=0.1, submission=pipeline.read(path), spec=SPEC)


def _text(html: str) -> str:
    """What a reader sees: the page's words, without its style sheet and tags."""
    html = re.sub(r"<style.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_its_page_and_its_table_say_why_it_was_not_read_in_the_runs_language(tmp_path):
    result = _refused(tmp_path)
    zh = _text(feedback_html(result, student="chen_shi", assignment="weight_tying", spec=SPEC, language="zh"))
    assert "Weight Tying 作业反馈：chen_shi" in zh and "运行状态：无法读取" in zh and "得分：0 / 100" in zh
    assert "你的提交没有被运行。chen_shi.ipynb 不是 notebook（它不是合法的 JSON" in zh and "请在 Jupyter 中打开它" in zh
    # no status that says it ran, no card for each test, nothing pointing at a section the page does not have
    assert "没有出错" not in zh and "代码的运行情况" not in zh and "扣分" not in zh and " ok" not in zh
    en = _text(feedback_html(result, student="chen_shi", assignment="weight_tying", spec=SPEC))
    assert "status: unreadable" in en and "status: ok" not in en and "How your code ran" not in en
    assert "Your submission was not run: chen_shi.ipynb is not a notebook (not valid JSON" in en
    for language, head, said in (("zh", "得分：0 / 100", "你的提交没有被运行。"), ("en", "Score: 0 / 100", "Your sub")):
        console = Console(width=120, record=True, color_system=None)
        render(result, title="chen_shi.ipynb", console=console, language=language)  # grade FILE --language
        lines = console.export_text().splitlines()
        assert lines[1] == head and lines[2].startswith(said), lines
        assert "Score" not in " ".join(lines[1:]) if language == "zh" else "得分" not in " ".join(lines), lines
        assert not any("Points the grader took off" in line or "共扣" in line for line in lines)


def test_the_class_table_the_csv_and_the_report_agree_that_it_is_unreadable(tmp_path, batch_folder, area_result):
    result = _refused(tmp_path)
    out = batch_folder({"chen_shi": result, "wang_wu": area_result()}, unreadable={"chen_shi": "English words"})
    report = write_report(out, "zh").read_text()
    write_grades(out, load_class(out).rows)  # as the class run writes it
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    assert (rows["chen_shi"]["status"], rows["chen_shi"]["kind"]) == ("unreadable", "unreadable")
    assert rows["wang_wu"]["status"] == "ok"
    text = _text(report)
    # the row's problem and its tooltip in the report's language (the message the result carries, not the
    # manifest's English), its edition not said by the file, its status said once
    assert "English words" not in report and "is not a notebook" not in report
    assert report.count("chen_shi.ipynb 不是 notebook（它不是合法的 JSON") >= 3  # Needs a look, its tooltip, the row
    assert "未注明" in text and "无法读取，运行完毕" not in text and "运行完毕，没有出错" in text  # wang_wu ran
    page = _text((out / "feedback" / "chen_shi.html").read_text())
    assert "运行状态：无法读取" in page and "你的提交没有被运行。" in page  # the run's language: the file said none
    roster = build_roster({"chen_shi": Path("chen_shi.ipynb")}, roots=[], assignment="weight_tying")
    outcome = SimpleNamespace(
        roster=roster,
        results={roster[0].uid: result},
        graded=[roster[0].uid],
        reused=[],
        seed=7,
        out=out,
        csv_path=None,
        report=None,
        late={},
    )
    console = Console(width=120, record=True, color_system=None)
    print_batch(outcome, console=console, language="zh")
    table = console.export_text()
    assert "无法读取" in table and "运行完毕" not in table
    assert batch_json(outcome, None)["students"]["chen_shi"]["status"] == "unreadable"  # grade --json, the same
