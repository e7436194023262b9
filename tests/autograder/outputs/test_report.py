"""The instructor report and per-student feedback pages: numbers, escaping, embedded charts, bad input."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.outputs.feedback import write_feedback
from autograder.outputs.report import load_results, main, write_report
from autograder.result import Result

AREAS = ["parameter identity", "shape flow", "gradient accumulation", "parameter counts", "argmax generation"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EVIL = "<script>alert('pwned')</script>"


def _result(points: dict[str, tuple[int, bool]], *, status: str = "ok", message: str = "wrong values") -> dict:
    """A results dict as the engine writes it: one test per area, `points` maps area -> (points, passed)."""
    tests = [
        {
            "name": f"test_{area.replace(' ', '_')}",
            "score": p if ok else 0,
            "max_score": p,
            "status": "passed" if ok else "failed",
            "output": "" if ok else message,
            "tags": [area],
        }
        for area, (p, ok) in points.items()
    ]
    areas = {t["tags"][0]: [t["score"], t["max_score"]] for t in tests}
    return {
        "score": sum(t["score"] for t in tests),
        "max_score": sum(t["max_score"] for t in tests),
        "execution_time": 1.0,
        "output": f"status {status}",
        "tests": tests,
        "extra_data": {"seed": 1, "areas": areas, "run": {"status": status}},
    }


@pytest.fixture
def graded(tmp_path: Path) -> Path:
    """An --out folder: full marks, partial, a timeout, a grader error with missing fields, an XSS attempt."""
    results = tmp_path / "results"
    results.mkdir()
    full = _result({a: (20, True) for a in AREAS})  # 100
    partial = _result({a: (20, a != "shape flow") for a in AREAS}, message="logits differ by 3.5")  # 80
    timeout = _result(
        {a: (20, a == "parameter identity") for a in AREAS},
        status="timeout",
        message="no evidence for experiment 'generate'",
    )  # 20
    evil = _result({a: (20, a != "argmax generation") for a in AREAS}, message=EVIL)  # 80
    broken = {"score": 0.0, "extra_data": {"grader_error": "RuntimeError: boom"}}  # no tests, no max, no run
    for name, data in {"alice": full, "bob": partial, "abe": timeout, "ann": evil, "zed": broken}.items():
        (results / f"{name}.json").write_text(json.dumps(data))
    return tmp_path


def _summary_value(page: str, label: str) -> str:
    match = re.search(rf"<th>{re.escape(label)}</th><td[^>]*>([^<]*)</td>", page)
    assert match, f"no {label!r} row in the summary"
    return match.group(1)


def test_report_has_the_class_numbers(graded):
    page = write_report(graded).read_text()
    # graded scores 100, 80, 20, 80 (the grader error is excluded from the statistics)
    assert _summary_value(page, "submissions") == "5"
    assert _summary_value(page, "graded") == "4"
    assert _summary_value(page, "mean score") == "70"
    assert _summary_value(page, "median score") == "80"
    assert _summary_value(page, "min score") == "20"
    assert _summary_value(page, "max score") == "100"
    assert _summary_value(page, "grader errors") == "1"
    assert _summary_value(page, "timeouts") == "1"
    assert _summary_value(page, "out of memory") == "0"
    for area in AREAS:
        assert area in page
    # shape flow: 100, 0, 0, 100 -> 50 %; parameter identity passed by all four -> 100 %
    assert re.search(r"<td>shape flow</td><td class=\"num\">50\.0</td>", page)
    assert re.search(r"<td>parameter identity</td><td class=\"num\">100\.0</td>", page)


def test_failing_tests_rank_clean_runs_first_with_a_clean_sample(graded):
    page = write_report(graded).read_text()
    # shape flow: failed by bob (run ok) and abe (timeout); abe sorts first, but the sample must come from
    # the clean run: a timeout's "no evidence" says nothing about the misconception.
    row = re.search(
        r"<td>test_shape_flow</td><td>shape flow</td><td class=\"num\">(\d+)</td>"
        r"<td class=\"num\">(\d+)</td><td><pre>([^<]*)</pre>",
        page,
    )
    assert row and row.groups() == ("1", "2", "logits differ by 3.5")
    # only abe (timeout) fails parameter counts: ranked below the tests that clean runs fail
    assert page.index("<td>test_argmax_generation</td>") < page.index("<td>test_parameter_counts</td>")
    assert page.index("<td>test_shape_flow</td>") < page.index("<td>test_gradient_accumulation</td>")


def test_report_embeds_two_png_charts(graded):
    page = write_report(graded).read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 2
    for data in images:
        assert base64.b64decode(data).startswith(PNG_MAGIC)
    assert "<link" not in page and "http" not in page  # self-contained: nothing fetched


def test_student_rows_link_to_feedback_pages_that_exist(graded):
    page = write_report(graded).read_text()
    for student in ("alice", "bob", "abe", "ann", "zed"):
        assert f'href="feedback/{student}.html"' in page
        assert (graded / "feedback" / f"{student}.html").is_file()
    assert re.search(
        r">zed</a></td><td class=\"num\">0 / 0</td><td class=\"num\">-</td><td class=\"bad\">"
        r"grader error</td>",
        page,
    )


def test_student_text_is_escaped_everywhere(graded):
    write_report(graded)
    for page in (graded / "report.html", graded / "feedback" / "ann.html"):
        text = page.read_text()
        assert "<script>" not in text
        assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in text


def test_feedback_page_lists_each_test_with_points_and_verdict(graded, tmp_path):
    result = Result.from_gradescope(json.loads((graded / "results" / "bob.json").read_text()))
    page = write_feedback(result, tmp_path / "bob.html").read_text()
    assert "Score: 80 / 100" in page
    assert page.count('<tr class="passed">') == 4 and page.count('<tr class="failed">') == 1
    assert "logits differ by 3.5" in page
    assert re.search(r"<td>test_shape_flow</td><td class=\"num\">0 / 20</td><td>failed</td>", page)


def test_feedback_survives_a_result_with_missing_and_wrong_fields(tmp_path):
    weird = {
        "score": "NaN?",
        "tests": [{"status": "failed", "tags": None, "output": None}, "junk"],
        "extra_data": {"run": "not a dict", "areas": {"x": "bad"}},
    }
    page = write_feedback(Result.from_gradescope(weird), tmp_path / "w.html").read_text()
    assert "Score: 0 / 0" in page and "status: unknown" in page
    assert page.count('<tr class="failed">') == 1
    assert Result.from_gradescope({"extra_data": {"grader_error": "x"}}).status == "grader error"
    with pytest.raises(ValueError, match="expected a JSON object"):
        Result.from_gradescope(["not", "a", "dict"])
    with pytest.raises(TypeError, match="Result"):
        write_feedback({"score": 1}, tmp_path / "x.html")


def test_malformed_json_is_reported_as_unreadable_by_file_name(graded):
    (graded / "results" / "trudy.json").write_text('{"score": 3,')
    (graded / "results" / "list.json").write_text("[1, 2]")
    results, unreadable = load_results(graded)
    assert "trudy" not in results and set(unreadable) == {"trudy.json", "list.json"}
    assert "JSONDecodeError" in unreadable["trudy.json"]
    page = write_report(graded).read_text()
    assert _summary_value(page, "unreadable result files") == "2"
    assert _summary_value(page, "submissions") == "7"
    assert "<td>trudy.json</td>" in page and "expected a JSON object, found list" in page


def test_missing_results_folder_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(FileNotFoundError, match="results/<student>.json"):
        write_report(tmp_path / "nowhere")
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_empty_batch_still_writes_a_page(tmp_path):
    (tmp_path / "results").mkdir()
    page = write_report(tmp_path).read_text()
    assert _summary_value(page, "submissions") == "0"
    assert "No readable results." in page and "data:image/png" not in page


def test_module_entry_point_writes_the_report(graded):
    proc = subprocess.run(
        [sys.executable, "-m", "autograder.outputs.report", str(graded)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()) == graded / "report.html"
    assert (graded / "report.html").read_text().count("data:image/png") == 2
