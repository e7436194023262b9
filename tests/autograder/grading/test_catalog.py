"""autograder.grading.catalog: the engine's own words (run summary, refused hand-ins, the judge's limits) come
from one catalog, English and Chinese side by side, rendered in the student's language where they are shown.

Each refusal is the engine's real one, made by handing read_submission a file that provokes it; the run
summary is checked whole, as the student reads it. Nothing here goes through a translation function.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from autograder.graders import get_assignment
from autograder.graders.weight_tying.zh_text import untranslated
from autograder.grading import catalog, pipeline
from autograder.grading.catalog import MESSAGES, CatalogError, render
from autograder.grading.judge.client import Judgement
from autograder.grading.rendering import rendered
from autograder.grading.result import STATUS_MESSAGES, RunFacts
from autograder.grading.submissions import SubmissionRefused, read_submission
from autograder.protocol.said import Said
from autograder.protocol.said import render as render_said
from autograder.sandbox.limits import Limits

HAN = re.compile(r"[\u4e00-\u9fff]")
SPEC = get_assignment("weight_tying")


def test_every_message_has_both_languages_with_the_same_parameters():
    assert catalog.problems() == []
    for key, (en, zh) in MESSAGES.items():
        if not en.strip(" ,;:"):  # a separator: each language's own mark ("、" between Chinese names)
            assert zh != en and not HAN.search(en), key
            continue
        assert HAN.search(zh) and not HAN.search(en), key


@pytest.mark.parametrize(
    "broken, why",
    [(("{n} cells", ""), "no zh template"), (("{n} cells", "{m} 个单元格"), "zh fills ['m'], English ['n']")],
)
def test_a_missing_or_mismatched_translation_is_reported(monkeypatch, broken, why):
    monkeypatch.setitem(MESSAGES, "test.broken", broken)
    assert catalog.problems() == [f"test.broken: {why}"]


def test_render_names_an_unknown_id_and_speaks_english_to_an_unknown_language():
    with pytest.raises(KeyError, match="no message 'run.nope'"):
        render("run.nope", "zh")
    assert (
        render("run.ok", "fr") == render("run.ok") == "Every cell of the notebook ran, top to bottom, without an error."
    )
    error = CatalogError("input.link", name="a.ipynb")
    assert str(error).startswith("a.ipynb is a symbolic link: ")
    assert error.render_in("zh").startswith("a.ipynb 是符号链接")


@pytest.mark.parametrize(
    "what, said",
    [
        ("MiniGPTWithWeightTying.generate", "MiniGPTWithWeightTying.generate 没有在限定的 20 秒内"),  # code, words
        ("包装模型的生成", "包装模型的生成没有在限定的 20 秒内"),  # words meet words: as they are
        ("“loss”", "“loss”没有在限定的 20 秒内"),  # punctuation needs no space
    ],
)
def test_chinese_sets_code_apart_from_the_words_around_a_parameter(what, said):
    # As the book sets code in running text ("把 GPT block 组装成了 MiniGPT"): a space where a parameter meets the
    # template's Chinese, never inside either; English is filled in as it is.
    stopped = Said("judge.did_not_finish_within", what=what, n="20")
    assert render_said(stopped, "zh").startswith(said)
    assert render_said(stopped, "en").startswith(f"{what} did not finish within 20 s")
    stuck = Said("judge.run_ended_with_status", status="'timeout'")  # a Latin value between Chinese words
    assert render_said(stuck, "zh") == "还没运行到这一步，运行就已结束（状态：'timeout'）"
    assert render_said(Said("judge.experiment_named", name="gpt_counts"), "zh") == "实验 gpt_counts"


def _refusal(path, root=None) -> SubmissionRefused:
    with pytest.raises(SubmissionRefused) as error:
        read_submission(path, root=root)
    return error.value


@pytest.fixture(scope="module")
def refusals(tmp_path_factory) -> dict[str, SubmissionRefused]:
    """case -> the engine's own refusal of a file that provokes it."""
    folder = tmp_path_factory.mktemp("hand-ins")
    out = {}
    notebook = folder / "weight_tying.ipynb"
    with pytest.MonkeyPatch.context() as patch:
        notebook.write_text("{}" + " " * 2048)
        patch.setattr("autograder.grading.submissions.MAX_SUBMISSION_BYTES", 1024)
        out["too large"] = _refusal(notebook)
    with pytest.MonkeyPatch.context() as patch:
        notebook.write_text(json.dumps({"cells": [[1, 2, 3]] * 50}))
        patch.setattr("autograder.grading.submissions.MAX_JSON_VALUES", 10)
        out["too many values"] = _refusal(notebook)
    notebook.write_text("[" * 100_000 + "]" * 100_000)
    out["nested too deeply"] = _refusal(notebook)
    notebook.write_text("{not json")
    out["not json"] = _refusal(notebook)
    notebook.write_text(json.dumps({"nbformat": 4}))
    out["no cells"] = _refusal(notebook)
    with pytest.MonkeyPatch.context() as patch:
        notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [[[["x"]]]]}]}))
        patch.setattr("autograder.grading.submissions.MAX_JSON_DEPTH", 3)
        out["cells nested"] = _refusal(notebook)
    text = folder / "answers.txt"
    text.write_text("x")
    out["not py"] = _refusal(text)
    out["missing"] = _refusal(folder / "gone.ipynb")
    link = folder / "linked.ipynb"
    os.symlink(notebook, link)
    out["link"] = _refusal(link)
    (folder / "sub").mkdir()
    os.symlink(folder / "sub", folder / "via")
    out["link folder"] = _refusal(folder / "via" / "x.ipynb", root=folder)
    out["outside"] = _refusal(notebook, root=folder / "sub")
    (folder / "dir.ipynb").mkdir()
    out["folder"] = _refusal(folder / "dir.ipynb")
    os.mkfifo(folder / "pipe.ipynb")
    out["fifo"] = _refusal(folder / "pipe.ipynb")
    return out


def test_every_case_was_provoked_and_carries_its_own_message_id(refusals):
    assert len({error.key for error in refusals.values()}) == len(refusals), {k: e.key for k, e in refusals.items()}
    assert str(refusals["too large"]) == (
        "weight_tying.ipynb is over the 0 MiB limit: Clear the notebook's outputs (Edit > Clear Outputs of All"
        " Cells), save, and hand it in again"
    )  # English as the engine wrote it before its catalog


@pytest.mark.parametrize(
    "case",
    [
        "too large",
        "too many values",
        "nested too deeply",
        "not json",
        "no cells",
        "cells nested",
        "not py",
        "missing",
        "link",
        "link folder",
        "outside",
        "folder",
        "fifo",
    ],
)
def test_each_refusal_reads_fully_in_chinese_in_the_run_summary(refusals, case):
    error = refusals[case]
    run = RunFacts(status="ok", refusal=Said(error.key, **error.params))
    assert run.summary() == f"Your submission was not run: {error}."  # English unchanged
    chinese = run.summary("zh")
    assert untranslated(chinese) == [], chinese
    assert chinese.startswith("你的提交没有被运行。") and HAN.search(chinese.split("。", 1)[1]), chinese
    assert "was not run" not in chinese and "hand it in" not in chinese


def test_file_names_and_parser_words_stay_verbatim(refusals):
    assert "weight_tying.ipynb" in refusals["too large"].render_in("zh")
    assert "“Expecting property name enclosed in double quotes" in refusals["not json"].render_in("zh")


def test_a_refused_hand_in_carries_its_message_through_the_pipeline(tmp_path):
    path = tmp_path / "weight_tying.ipynb"
    path.write_text("{not json")
    submission = pipeline.read(path)
    assert submission.refusal.key == "input.not_json"
    assert str(submission.refusal).startswith("weight_tying.ipynb is not")
    assert pipeline.Submission.from_wire(submission.to_wire()) == submission  # it travels to a worker whole
    run = RunFacts(status="ok")
    result = pipeline.finish([], run, seed=1, seconds=0.1, submission=submission, spec=SPEC)
    assert result.output == f"Your submission was not run: {submission.refusal}."  # an unreadable file: English
    again = RunFacts.from_dict(result.run.to_dict())  # as a class folder's results/<id>.json keeps it
    assert again.summary("zh").startswith("你的提交没有被运行。weight_tying.ipynb 不是")


@pytest.mark.parametrize("status", [*sorted(STATUS_MESSAGES), "odd"])
def test_every_run_summary_reads_fully_in_chinese(status):
    run = RunFacts(
        status=status,
        exit_code=3,
        signal=9,
        limit=60.0,
        memory="2 GiB",
        load_errors=[[4, "SyntaxError: invalid syntax (weight_tying.ipynb [cell 4], line 2)"]],
        required_names=["TiedEmbeddingLM", "MiniGPTWithWeightTying"],
        defined=["TiedEmbeddingLM"],
    )
    chinese = run.summary("zh")
    assert untranslated(chinese) == [], chinese
    assert all(HAN.search(line) for line in chinese.splitlines()), chinese
    assert "“SyntaxError: invalid syntax (weight_tying.ipynb [cell 4], line 2)”" in chinese


def _judge_stopped(limit: str) -> tuple[list, RunFacts]:
    judgement = Judgement(
        run=RunFacts(status="ok").to_dict(),
        tests=[["test_a.py::test_x", 2, "shape flow"], ["test_a.py::test_y", 3, "shape flow"]],
        outcomes=[{"name": "test_a.py::test_x", "points": 2, "area": "shape flow", "passed": True, "finding": None}],
        limit=limit,
    )
    return pipeline.judged(judgement, None, SPEC, Limits(judge_seconds=30), lambda: None)


@pytest.mark.parametrize("limit", ["time", "memory", "died"])
def test_what_the_judge_did_not_judge_is_said_in_each_language_from_one_finding(limit):
    tests, run = _judge_stopped(limit)
    english = tests[1].message("en")
    assert english.startswith("not judged: the judge stopped at ") and "judged" in run.notes[-1]
    if limit == "time":
        assert english == "not judged: the judge stopped at its time limit (30 s) on this submission's evidence"
    result = pipeline.finish(tests, run, seed=1, seconds=1, submission=pipeline.Submission("py", "", "a.py"), spec=SPEC)
    assert result.tests[1].message(result.language) == english and result.language == "en"  # English stays English
    chinese = rendered(result, SPEC, language="zh")
    assert chinese.tests[1].message("zh").startswith("未评判：") and untranslated(chinese.tests[1].message("zh")) == []
    assert chinese.output.startswith("评判你的代码的输出时") and chinese.score == result.score == 2


def test_where_the_judge_stopped_is_a_message_that_travels_with_the_run_facts():
    _, run = _judge_stopped("time")
    assert run.judge_stop == Said("judge.stopped.time", seconds="30")
    back = RunFacts.from_dict(json.loads(json.dumps(run.to_dict())))
    assert back.judge_stop == run.judge_stop and render_said(back.judge_stop, "zh") == "达到了自身的时间上限（30 秒）"
    _, odd = _judge_stopped("a limit the catalog has no words for")
    assert render_said(odd.judge_stop, "zh") == "a limit the catalog has no words for"  # the judge's word, quoted
    assert "judge_stop" not in RunFacts(status="ok").to_dict()
    assert RunFacts.from_dict({"status": "ok"}).judge_stop is None


@pytest.mark.parametrize("status", ["ok", "timeout", "memory"])
def test_a_chinese_feedback_page_says_how_the_run_went_with_no_english_left(status):
    from autograder.grading.result import Result
    from autograder.outputs.feedback import feedback_context

    run = RunFacts(
        status=status,
        limit=60.0,
        memory="2 GiB",
        load_errors=[[3, "NameError: name 'x' is not defined"]],
        required_names=["TiedEmbeddingLM", "MiniGPTWithWeightTying"],
        defined=["TiedEmbeddingLM"],
        running={"cell": 7},
    )
    result = rendered(Result(tests=[], run=run, seed=1), SPEC, language="zh")
    lines = feedback_context(result, student="chen")["run_lines"]
    assert lines and all(HAN.search(line) and untranslated(line) == [] for line in lines), lines
    assert any("“NameError: name 'x' is not defined”" in line for line in lines), lines


def test_names_a_syntax_error_left_undefined_read_as_english_and_chinese_say_them():
    """Issue 48 (round 11): "defines none of A and B" read stiff: two names are "neither A nor B", "none of" is for
    three or more; Chinese says "A 和 B 都没有定义" for two, "A、B 和 C" for three."""
    from autograder.grading.result import RunFacts

    def said(names: list[str], language: str = "en", error: str = "SyntaxError: invalid syntax (line 3: def f(:)"):
        run = RunFacts(status="ok", load_errors=[[0, error]] if error else [], required_names=names)
        return run.summary(language).splitlines()[-1]

    assert said(["A"]).endswith("does not define A.")
    assert said(["A", "B"]).endswith("defines neither A nor B.")
    assert said(["A", "B", "C"]).endswith("defines none of A, B and C.")
    assert said(["A", "B"], "zh") == "由于这个语法错误，A 和 B 都没有定义。"
    assert said(["A", "B", "C"], "zh") == "由于这个语法错误，A、B 和 C 都没有定义。"
    assert said(["A", "B"], error="") == "Not defined by your submission: A and B (check the exact class names)."
