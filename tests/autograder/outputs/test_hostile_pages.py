"""Every page the grader writes, with hostile text in every field a student controls: nothing of it is markup.

The batch folder is written by hand (as a tampered or hostile one could be), so the names, ids, file names,
messages, test and area names, notes, cell first lines, running checks, grader errors, edition, run status,
the language of a misconception's sample, why a page could not be written and that page's id reach the
templates raw, not first cleaned by the roster.
"""

from __future__ import annotations

import ast
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.graders.kit import KIT_ROOT
from autograder.grading.findings import Finding
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.feedback import feedback_html
from autograder.outputs.folder import RESULT_FORMAT, Manifest
from autograder.outputs.report import write_report
from autograder.protocol.said import Said, verbatim
from coursecheck.notebook import CellPlace

SCRIPT = "<script>alert(1)</script>"
ATTR = '"><img src=x onerror=alert(1)>'
TEMPLATE = "{{7*7}}{% if 1 %}x{% endif %}"
JS = "javascript:alert(1)"
RTL = "cat\u202egnp.exe"
HOSTILE = f"{SCRIPT} {ATTR} {TEMPLATE} {JS} {RTL} '\""
TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "b", "code", "div", "table", "thead",
    "tbody", "tr", "th", "td", "ul", "li", "span", "details", "summary", "small", "a", "img",
}  # fmt: skip
ATTRIBUTES = {"lang", "charset", "name", "content", "class", "style", "href", "title", "alt", "src", "aria-hidden"}
ATTRIBUTES |= {"data-label"}  # the Students table's labels on a phone (report.html.j2)
ATTRIBUTES |= {"data-points"}  # what a charge's card costs, as a number (feedback.html.j2)


class _Markup(HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def _assert_inert(page: str, where: str) -> None:
    parsed = _Markup()
    parsed.feed(page)
    for tag, attrs in parsed.tags:
        assert tag in TAGS, f"{where}: a <{tag}> element that no template writes"
        for name, value in attrs:
            assert name in ATTRIBUTES, f"{where}: a {name!r} attribute on <{tag}> that no template writes"
            if name == "href":
                assert value.startswith("feedback/") and ":" not in value, f"{where}: href {value!r}"
            if name == "src":
                assert value.startswith("data:image/svg+xml;base64,"), f"{where}: src {value!r}"
    text = "".join(parsed.text)
    assert "\u202e" not in page and "\\u202e" in text, f"{where}: a bidi override reached the page raw"
    assert "{{7*7}}" in text and "{% if 1 %}x{% endif %}" in text, f"{where}: template syntax was evaluated"
    assert SCRIPT in text and ATTR in text, f"{where}: hostile text is missing, not escaped"


def _result(language: str, *, status: str = "ok", running: dict | None = None, alone: str = "") -> Result:
    """A result with hostile text everywhere; `alone`: a misconception (its scheme id) only this result shows."""
    tests = [
        *(
            [
                TestOutcome(
                    "test_x.py::test_alone",
                    1,
                    "shape flow",
                    False,
                    Finding(Said("diag.tie.copied"), names=alone),
                    1.0,
                    f"misconception:{alone}",
                )
            ]
            if alone
            else []
        ),
        TestOutcome(
            f"test_x.py::test_{HOSTILE}[{HOSTILE}]", 5, HOSTILE, False, Finding(verbatim(f"{HOSTILE}: {HOSTILE}"))
        ),
        TestOutcome(
            f"test_x.py::test_raised_{HOSTILE}",
            3,
            HOSTILE,
            False,
            Finding(Said("judge.failed_your_code_raised", what=HOSTILE, text=HOSTILE)),
        ),
        TestOutcome(
            "test_x.py::test_missing",
            2,
            "shape flow",
            False,
            Finding(Said("judge.no_evidence_for", what=repr(HOSTILE[:60]), why=HOSTILE), owed=True),
        ),
        TestOutcome(f"test_x.py::test_ok_{HOSTILE}", 4, HOSTILE, True),
    ]
    run = RunFacts(
        status=status,
        limit=60,
        load_errors=[[1, f"SyntaxError: {HOSTILE}"], [2, f"ValueError: {HOSTILE}"]],
        required_names=[HOSTILE],
        notes=[HOSTILE],
        running=running or {},
        stderr_tail=HOSTILE,
    )
    return Result(tests=tests, run=run, seed=1, execution_time=3.0, language=language, output=HOSTILE)


def _notebook(path: Path) -> None:
    cells = [{"cell_type": "markdown", "source": HOSTILE, "metadata": {}}]
    cells += [{"cell_type": "code", "source": f"{HOSTILE}\n", "metadata": {}, "outputs": [], "execution_count": None}]
    cells += [{"cell_type": "code", "source": f"# {HOSTILE}\n", "metadata": {}, "outputs": [], "execution_count": None}]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


@pytest.fixture
def hostile_class(tmp_path) -> Path:
    out = tmp_path / "graded"
    (out / "results").mkdir(parents=True)
    students = {
        ATTR: _result("en"),
        "{{7*7}}": _result("zh", status="timeout", running={"cell": 1}),
        "javascript:alert(1)": _result("en", status="timeout", running={"check": HOSTILE}),
        f"{RTL}-zh": _result(ATTR, status="memory"),
        # a run status no kit writes, and the only student showing a misconception: its sample's language
        "status": _result(ATTR, status=HOSTILE, alone="two_tables"),
        "grader": Result.grader_failure(HOSTILE),
        "missing": None,
        "../../outside": None,  # a tampered manifest's id: no page is written outside the folder
        SCRIPT: None,  # an id that is no file name (it holds a "/"): shown in the report, no page written
        ATTR * 12: None,  # a file name too long to write: why (the OSError, naming the path) is hostile too
    }
    manifest = Manifest(assignment=HOSTILE, seed=3, kit_version=HOSTILE, started=HOSTILE, finished=HOSTILE)
    for i, (uid, result) in enumerate(students.items()):
        submission = tmp_path / f"{HOSTILE.replace('/', '_')}-{i}.ipynb"
        _notebook(submission)
        manifest.students.append(
            {
                "uid": uid,
                "name": f"{HOSTILE} {i}",
                "key": uid,
                "submission": str(submission),
                "unreadable": HOSTILE * (i == 3),
            }
        )
        if result is not None and "/" not in uid:
            batch = {"graded_at": HOSTILE, "submission": str(submission), "unreadable": ""}
            data = {"format": RESULT_FORMAT, "batch": batch, "result": result.to_wire()}
            (out / "results" / f"{uid}.json").write_text(json.dumps(data))
    (out / "manifest.json").write_text(manifest.to_json())
    return out


def test_the_report_and_every_feedback_page_keep_hostile_text_inert(hostile_class):
    report = write_report(hostile_class)
    _assert_inert(report.read_text(encoding="utf-8"), "report.html")
    pages = sorted((hostile_class / "feedback").glob("*.html"))
    assert len(pages) == 7, [p.name for p in pages]
    assert not (hostile_class.parent / "outside.html").exists()
    text = report.read_text(encoding="utf-8")
    assert "not a file name: page not written" in text and "File name too long" in text
    assert "(only &#34;&gt;&lt;img" in text  # the sample's language shown, escaped (an attribute-safe quote too)
    for page in pages:
        _assert_inert(page.read_text(encoding="utf-8"), page.name)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_each_edition_of_a_feedback_page_keeps_hostile_text_inert(language):
    for status, running in (("ok", {}), ("timeout", {"cell": 1}), ("timeout", {"check": HOSTILE}), (HOSTILE, {})):
        page = feedback_html(
            _result(language, status=status, running=running),
            student=HOSTILE,
            assignment=HOSTILE,
            starts={1: CellPlace(2, HOSTILE, HOSTILE)},
            graded_at=HOSTILE,
        )
        _assert_inert(page, f"{language} {status}")
        assert f'<html lang="{ {"en": "en", "zh": "zh-CN"}[language] }">' in page


# Tag names the templates write: a Python string of the outputs package holding one is a page being
# assembled by string formatting, outside the templates' autoescaping.
_HTML_IN_PYTHON = re.compile(
    r"</?(?:html|head|body|div|p|span|a|table|thead|tbody|tr|td|th|ul|li|h[1-6]|b|code|img|style|details|summary|small)[\s>/]"
)


def test_no_page_is_assembled_by_string_formatting_in_python():
    found = []
    for path in sorted((KIT_ROOT / "autograder" / "outputs").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node) is not None
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if _HTML_IN_PYTHON.search(node.value):
                    found.append(f"{path.name}:{node.lineno}: {node.value[:60]!r}")
    assert not found, "HTML outside the templates:\n" + "\n".join(found)
