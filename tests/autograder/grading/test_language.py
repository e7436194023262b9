"""autograder.grading.language (with .titles and .rendering): a submission's language comes from its file; its
feedback is the same findings rendered in that language (nothing is translated, nothing is judged twice)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from autograder.graders import editions_of, get_assignment
from autograder.graders.weight_tying.messages import render
from autograder.grading.findings import Finding
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.language import submission_language, text_language
from autograder.grading.pipeline import mark
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.grading.titles import names
from autograder.protocol.said import Said

SPEC = get_assignment("weight_tying")


def _notebook(tmp_path, metadata: dict, name: str = "nb.ipynb"):
    path = tmp_path / name
    path.write_text(json.dumps({"cells": [], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _result() -> Result:
    tests = [
        TestOutcome(
            "test_a.py::test_tie",
            6,
            "parameter identity",
            False,
            Finding("TiedEmbeddingLM: " + Said("diag.grad.doubled"), names="gradient_scaled"),
        ),
        TestOutcome("test_a.py::test_ok", 4, "parameter counts", True),
    ]
    return Result(tests=tests, run=RunFacts(status="ok", required_names=["A"], defined=["A"]), seed=3)


def test_a_notebook_says_its_language_in_its_metadata(tmp_path):
    assert submission_language(_notebook(tmp_path, {"course_kit": {"language": "zh"}})) == "zh"
    assert submission_language(_notebook(tmp_path, {"course_kit": {"language": "ZH"}})) == "zh"
    assert submission_language(_notebook(tmp_path, {"kernelspec": {}})) == "en"
    assert submission_language(_notebook(tmp_path, {"course_kit": "zh"})) == "en"  # malformed: English
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    assert submission_language(broken) == "en"
    assert submission_language(tmp_path / "missing.ipynb") == "en"


def test_a_py_file_is_english_unless_a_first_line_says_otherwise(tmp_path):
    plain = tmp_path / "a.py"
    plain.write_text("import torch\n# language: zh  (too late to count? no: within the first lines)\n")
    assert submission_language(plain) == "en"  # the mark must be the whole line
    marked = tmp_path / "b.py"
    marked.write_text("# language: zh\nimport torch\n")
    assert submission_language(marked) == "zh"
    late = tmp_path / "c.py"
    late.write_text("\n" * 10 + "# language: zh\n")
    assert submission_language(late) == "en"


def test_one_finding_reads_in_either_language_and_rendering_keeps_the_marks():
    marked = mark(_result(), SPEC)
    zh = rendered(marked, SPEC, language="zh")
    assert zh.language == "zh" and marked.language == "en"
    assert zh.tests[0].message("zh").startswith("TiedEmbeddingLM: 梯度翻倍")
    assert zh.tests[0].message("en").startswith("TiedEmbeddingLM: gradient doubled")
    assert zh.tests[1].message("zh") == ""  # a passed test has nothing to say
    assert zh.output == "你的文件从头到尾运行完毕，没有出错。"  # the run summary, from the engine's catalog (no cells)
    assert [(t.name, t.points, t.area, t.passed, t.charged, t.finding) for t in zh.tests] == [
        (t.name, t.points, t.area, t.passed, t.charged, t.finding) for t in marked.tests
    ]
    assert zh.score == marked.score and zh.areas == marked.areas
    assert Result.from_wire(zh.to_wire()).language == "zh"
    assert gradescope_results(zh)["extra_data"]["language"] == "zh"


def test_rendering_reads_a_language_the_kit_does_not_speak_as_english():
    assert rendered(_result(), SPEC, language="fr").language == "en"


def test_the_grader_names_its_areas_and_tests_through_its_catalog():
    name = names(SPEC, "zh")
    assert name("gradient accumulation") == "两条路径的梯度相加"
    assert name("wrapper float64 [2]") == render("title.wrapper_float64", "zh") + " [2]"
    assert name("something else") == "something else"
    assert names(SPEC, "en") is None
    assert names(dataclasses.replace(SPEC, catalog=None), "zh") is None  # no catalog: English names


def test_the_chinese_edition_is_graded_by_the_same_grader():
    assert get_assignment("weight_tying_zh") is SPEC
    assert editions_of("weight_tying") == ("weight_tying", "weight_tying_zh")
    assert editions_of("weight_tying_zh") == ("weight_tying_zh", "weight_tying")
    with pytest.raises(ValueError, match="unknown assignment"):
        editions_of("nope")


def test_one_batch_finds_both_editions_of_a_class(tmp_path):
    submitted = tmp_path / "submitted"
    for student, folder in (("ann", "weight_tying"), ("bo", "weight_tying_zh"), ("cy", "weight_tying")):
        (submitted / student / folder).mkdir(parents=True)
        (submitted / student / folder / "weight_tying.ipynb").write_text("{}")
    (submitted / "cy" / "weight_tying_zh").mkdir()
    (submitted / "cy" / "weight_tying_zh" / "weight_tying.ipynb").write_text("{}")
    (submitted / "dee" / "homework0").mkdir(parents=True)
    (submitted / "dee" / "homework0" / "homework0.ipynb").write_text("{}")
    found = find_submissions([submitted], assignment="weight_tying", also=("weight_tying_zh",))
    assert sorted(found) == ["ann", "bo", "cy"]
    assert found["bo"].parent.name == "weight_tying_zh"
    assert found["cy"].parent.name == "weight_tying"  # two editions handed in: the one named is graded
    only = find_submissions([submitted], assignment="weight_tying")
    assert sorted(only) == ["ann", "cy"]


def test_text_as_the_grader_read_it_keeps_its_edition_and_deep_json_is_english(tmp_path):
    from autograder.grading.submissions import read_submission

    path = _notebook(tmp_path, {"course_kit": {"language": "zh"}, "kernelspec": {"name": "python3"}})
    kind, text = read_submission(path)
    assert text_language(kind, text) == "zh"  # the one piece of metadata the submission text keeps
    assert "kernelspec" not in text
    deep = '{"cells": [], "metadata": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert text_language("ipynb", deep) == "en"  # RecursionError inside json: English, never a grader error
    assert text_language("py", "# language: zh\nx = 1\n") == "zh"


def test_a_file_that_does_not_say_its_edition_is_shown_in_the_runs_language(tmp_path):
    """Issue 48 (round 8): `grade --language zh` on a .py file without "# language: zh", or on a file that is not a
    notebook, printed English throughout. Such a result is English by default, and says that its file did not say
    (``Result.language_declared``): the run's language then decides what it is shown in (``Result.read_in``); a
    file that says its edition is always shown in that one."""
    from autograder.graders import get_assignment
    from autograder.grading import pipeline
    from autograder.grading.language import declared_language
    from autograder.grading.result import RunFacts

    assert declared_language("py", "x = 1\n") is None and declared_language("ipynb", "{") is None
    assert (
        declared_language("ipynb", '{"metadata": {}}') is None and declared_language("py", "# language: ZH\n") == "zh"
    )
    spec, results = get_assignment("weight_tying"), {}
    for name, text in (("bad.ipynb", '{"cells": [\n'), ("plain.py", "x = 1\n"), ("zh.py", "# language: zh\nx = 1\n")):
        (tmp_path / name).write_text(text)
        submission = pipeline.read(tmp_path / name)
        results[name] = pipeline.finish(
            [], RunFacts(status="ok"), seed=1, seconds=0.1, submission=submission, spec=spec
        )
    bad, plain, zh = results["bad.ipynb"], results["plain.py"], results["zh.py"]
    assert (bad.language, bad.language_declared, plain.language, plain.language_declared) == ("en", False, "en", False)
    assert (bad.read_in("zh"), plain.read_in("zh"), plain.read_in("en")) == ("zh", "zh", "en")
    assert zh.language_declared and (zh.read_in("en"), zh.read_in("zh")) == ("zh", "zh")
    assert bad.shown_in(bad.read_in("zh")).run_lines[0].startswith("你的提交没有被运行。bad.ipynb 不是 notebook")
    again = type(bad).from_wire(bad.to_wire())  # as results/<id>.json keeps it
    assert again.language_declared is False and again.read_in("zh") == "zh"
