"""The pages in a real browser (headless Chromium): they render, nothing overflows sideways on a laptop or a
phone, the charts are there, and every student is linked. Screenshots are kept in test-artifacts/pages/."""

from __future__ import annotations

import pytest

from autograder.kit import KIT_ROOT
from autograder.outputs.classview import load_class
from autograder.outputs.report import write_report
from autograder.result import Result

pytestmark = pytest.mark.e2e  # a browser start-up; CI runs it (and fails it if Chromium is missing)

SHOTS = KIT_ROOT / "test-artifacts" / "pages"
WIDTHS = (1280, 390)  # a laptop, a phone
LONG = "x" * 150  # a name with no place to break
TENSOR = "tensor([" + ",".join(f"{i / 7:.4f}" for i in range(80)) + "])"  # a message token with no spaces
STUB = "MiniGPTWithWeightTying (SGD step) failed: your code raised NotImplementedError:   (at <notebook> [cell 25]:16)"
PAGE_FACTS = """(() => ({
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  charts: [...document.querySelectorAll('img.chart')].filter(i => i.complete && i.naturalWidth > 100).length,
  links: [...document.querySelectorAll('a[href^="feedback/"]')].map(a => a.getAttribute('href')),
  h1: document.querySelector('h1').textContent,
  order: [...document.querySelectorAll('h2')].map(h => h.textContent),
}))()"""


@pytest.fixture
def class_folder(batch_folder, area_result):
    copied = "TiedEmbeddingLM: lm_head.weight did not change after an in-place change: copied table (copy.deepcopy)"
    results = {
        "alice": area_result(),
        "bob": area_result({"parameter identity": copied}),
        "cy": area_result({"parameter identity": copied, "shape flow": f"logits scaled: got {TENSOR}"}),
        "abe": area_result({"argmax generation": "no evidence: the run was stopped"}, status="timeout", seconds=60),
        "stu": area_result(
            dict.fromkeys(
                ("parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation"),
                STUB,
            )
        ),
        LONG: area_result({"shape flow": "<b>not bold</b> [red]not markup[/red] \udcff"}),
        "zed": Result.grader_failure("RuntimeError: worker died"),
        "kim": None,
    }
    return batch_folder(results)


def test_the_report_and_every_feedback_page_render_without_sideways_overflow(class_folder, chromium):
    report = write_report(class_folder)
    view = load_class(class_folder)
    expected_links = {row.feedback_href for row in view.rows}
    saved = []
    for width in WIDTHS:
        chromium.open(report.as_uri(), width=width)
        facts = chromium.evaluate(PAGE_FACTS)
        saved.append(chromium.screenshot(SHOTS / f"report-{width}.png"))
        assert facts["overflow"] <= 0, f"the report is {facts['overflow']} px wider than a {width} px window"
        assert facts["charts"] == 2, "the score histogram and the area chart must both load"
        assert set(facts["links"]) == expected_links, "every student must be linked from the report"
        assert facts["h1"] == "weight_tying: grading report"
        assert facts["order"][:2] == ["Needs a look", "Class summary"]
    for row in view.rows:
        page = class_folder / row.feedback_href
        for width in WIDTHS:
            chromium.open(page.as_uri(), width=width)
            facts = chromium.evaluate(PAGE_FACTS)
            if row.name in ("stu", LONG) or width == 390 and row.name == "cy":
                saved.append(chromium.screenshot(SHOTS / f"feedback-{row.uid[:20]}-{width}.png"))
            assert facts["overflow"] <= 0, (
                f"{row.feedback_href} overflows a {width} px window by {facts['overflow']} px"
            )
            assert facts["h1"].startswith("weight_tying: feedback for ")
            if row.result is not None and row.result.failing():
                assert facts["order"][0].startswith("What to fix")  # failures before anything else
    (SHOTS / "index.txt").write_text("".join(f"{p}\n" for p in saved))
    print("screenshots:", *map(str, saved), sep="\n  ")
    assert all(p.stat().st_size > 5000 for p in saved)
