"""Every hidden-suite test has a Chinese title, and a Chinese feedback page shows it instead of English."""

import ast
import re
from pathlib import Path

from autograder.graders import get_assignment
from autograder.graders.weight_tying.titles_zh import TITLES
from autograder.grading.editions import translator
from autograder.grading.result import Result, TestOutcome
from autograder.outputs.feedback import feedback_html

SPEC = get_assignment("weight_tying")


def _suite_tests() -> set[str]:
    names = set()
    for path in (Path(SPEC.judge_dir) / "suite").glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= {
            n.name.removeprefix("test_")
            for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
        }
    return names


def test_every_suite_test_has_a_chinese_title_and_no_title_is_stale():
    suite = _suite_tests()
    assert suite and set(TITLES) == suite, {"missing": suite - set(TITLES), "stale": set(TITLES) - suite}
    assert all(re.search(r"[\u4e00-\u9fff]", title) for title in TITLES.values())


def test_the_chinese_translator_renders_titles_and_still_translates_messages():
    translate = translator(SPEC, "zh")
    assert translate("tied lm shapes and values") == TITLES["tied_lm_shapes_and_values"]
    assert translate("wrapper float64 [2]") == TITLES["wrapper_float64"] + " [2]"
    assert re.search(r"[\u4e00-\u9fff]", translate("argmax generation"))


def test_a_chinese_feedback_page_names_its_tests_in_chinese():
    tests = [
        TestOutcome("test_shapes.py::test_tied_lm_shapes_and_values", 6, "shape flow", False, "头是表的副本"),
        TestOutcome("test_counts.py::test_tied_lm_counts_one_table", 4, "parameter counts", True, ""),
    ]
    result = Result(tests=tests, run=None, output="评分完成", language="zh")
    page = feedback_html(result, student="chen", language="zh", translate=translator(SPEC, "zh"))
    assert TITLES["tied_lm_shapes_and_values"] in page and TITLES["tied_lm_counts_one_table"] in page
    assert "tied lm shapes and values" not in page and "tied lm counts one table" not in page
    assert ">shape flow<" not in page and ">parameter counts<" not in page  # the areas table too
