"""The pages in a real browser (headless Chromium): they render, nothing is cut off or overflows sideways on a
laptop or a phone (only a table's own scroll box may be wider than the window, and it scrolls), the charts are
there, and every student is linked. Both editions' feedback pages are rendered. Screenshots are kept in
test-artifacts/pages/."""

from __future__ import annotations

import pytest

from autograder.graders.kit import KIT_ROOT
from autograder.grading.findings import Finding
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.classview import load_class
from autograder.outputs.report import write_report
from autograder.protocol.said import Said

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
  // anything outside a scroll box that reaches past the window's edge is cut off
  cut: [...document.querySelectorAll('body *')].filter(e => !e.closest('.scroll') && e.getClientRects().length)
    .filter(e => { const r = e.getBoundingClientRect(); return r.right > innerWidth + 1 || r.left < -1; })
    .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40)).slice(0, 5),
  // a scroll box wider than its content area scrolls; its first column stays (sticky) in the Students table
  boxes: [...document.querySelectorAll('.scroll')].map(b => ({
    fits: b.getBoundingClientRect().right <= innerWidth + 1, scrolls: b.scrollWidth > b.clientWidth,
    sticky: !!b.querySelector('table.sticky') })),
  sticky: [...document.querySelectorAll('table.sticky td:first-child')].every(
    td => getComputedStyle(td).position === 'sticky'),
}))()"""


def _hung(language: str) -> Result:
    """A correct exercise 1 and a `generate` that never stops, called by the notebook's own try-it cell;
    a Chinese-edition result is rendered in Chinese after marking, as the engine does."""
    from autograder.graders import get_assignment
    from autograder.grading.rendering import rendered

    message = Finding(
        Said(
            "judge.no_evidence_for",
            what=Said("judge.experiment_named", name="'gpt_generate'"),
            why=Said("judge.the_submission_was_stopped_at_the"),
        ),
        owed=True,
    )
    tests = [
        TestOutcome(f"test_generation.py::test_generate_{i}", 2, "argmax generation", False, message, 2.0, "test")
        for i in range(12)
    ]
    tests += [
        TestOutcome("test_identity.py::test_tied_lm_head_is_the_embedding_parameter", 6, "parameter identity", True)
    ]
    run = RunFacts(status="timeout", limit=60, running={"cell": 14}, required_names=["TiedEmbeddingLM"])
    result = Result(tests=tests, run=run, seed=5, execution_time=60)
    return rendered(result, get_assignment("weight_tying"), language=language)


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
        "hana": _hung("en"),
        "zhou": _hung("zh"),
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
        assert not facts["cut"], f"cut off at {width} px: {facts['cut']}"
        assert all(b["fits"] for b in facts["boxes"]), f"a table's scroll box is wider than a {width} px window"
        if width < 600:  # a phone: every table stacks, none hides a column ("what to do") past its right edge
            assert not [b for b in facts["boxes"] if b["scrolls"]], f"a table scrolls sideways at {width} px"
        assert [b for b in facts["boxes"] if b["sticky"]], "the Students table is there"
        if width > 600:  # a phone shows each student as a block of labelled lines instead
            assert facts["sticky"], "the Students table's names stay"
        assert facts["charts"] == 2, "the score histogram and the area chart must both load"
        assert set(facts["links"]) == expected_links, "every student must be linked from the report"
        assert facts["h1"] == "Weight Tying: grading report"
        assert facts["order"][:2] == ["Needs a look", "Class summary"]
    for row in view.rows:
        page = class_folder / row.feedback_href
        for width in WIDTHS:
            chromium.open(page.as_uri(), width=width)
            facts = chromium.evaluate(PAGE_FACTS)
            assert not facts["cut"], f"{row.feedback_href} is cut off at {width} px: {facts['cut']}"
            if row.name in ("stu", LONG, "hana", "zhou") or width == 390 and row.name == "cy":
                saved.append(chromium.screenshot(SHOTS / f"feedback-{row.uid[:20]}-{width}.png"))
            assert facts["overflow"] <= 0, (
                f"{row.feedback_href} overflows a {width} px window by {facts['overflow']} px"
            )
            assert facts["h1"].startswith("Weight Tying: feedback for ") or facts["h1"] == "Weight Tying 作业反馈：zhou"
            if row.result is not None and row.result.blank:  # nothing written: that one fact, no heading
                assert facts["order"] == [], facts["order"]
            elif row.result is not None and row.result.failing():
                # how the code ran, when there is more to say than the status line, under the score; then failures
                order = [h for h in facts["order"] if h not in ("How your code ran", "代码的运行情况")]
                assert order[0].startswith(("What to fix", "需要修改的地方")), facts["order"]
                assert facts["order"].index(order[0]) <= 1, facts["order"]
    (SHOTS / "index.txt").write_text("".join(f"{p}\n" for p in saved))
    print("screenshots:", *map(str, saved), sep="\n  ")
    assert all(p.stat().st_size > 5000 for p in saved)


STUDENTS_TABLE = """(() => {
  const heading = [...document.querySelectorAll('h2')].find(h => h.textContent === 'Students');
  const table = heading.nextElementSibling.querySelector('table');
  const box = table.getBoundingClientRect();
  const cells = [...table.querySelectorAll('th, td')].filter(c => c.getClientRects().length);
  return {
    right: box.right, left: box.left, window: innerWidth,
    scrolls: table.parentElement.scrollWidth > table.parentElement.clientWidth + 1,
    // a cell whose text reaches past its own box, or past the window, is cut off
    clipped: cells.filter(c => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > innerWidth + 1)
      .map(c => c.textContent.slice(0, 40)),
    // every word of "fix first" whole on its line: no word broken in two
    broken: [...table.querySelectorAll('td.fix')].filter(td => {
      const range = document.createRange(); const text = td.firstChild; if (!text) return false;
      const words = text.textContent.split(/\\s+/); let at = 0;
      return words.some(word => { const start = text.textContent.indexOf(word, at); at = start + word.length;
        if (word.length < 2 || word.length > 40) return false;
        range.setStart(text, start); range.setEnd(text, start + word.length);
        return range.getClientRects().length > 1; });
    }).map(td => td.textContent.slice(0, 40)),
  };
})()"""


def test_the_students_table_fits_a_laptop_and_a_phone_with_nothing_cut_off(class_folder, chromium):
    """The Students table was wider than 1280 px: its last column ("fix first") was cut mid-word at the window's
    edge. At 1280 px it fits whole; at 390 px each student reads as a block; no cell is cut at either. With the
    due date known, the table has a late column too."""
    import json

    manifest = json.loads((class_folder / "manifest.json").read_text())
    for n, entry in enumerate(manifest["students"]):  # handed in 2 h 30 min late, or on time, or unreadable
        entry["late"] = {"submitted": "2026-05-04 14:30 UTC", "due": "2026-05-04 12:00 UTC", "seconds": 9000 * (n % 2),
                         "penalty": 15.0 * (n % 2), "problem": "timestamp.txt says 'x'" if n == 4 else ""}  # fmt: skip
    (class_folder / "manifest.json").write_text(json.dumps(manifest))
    report = write_report(class_folder)
    assert "2 h 30 min (−15)" in report.read_text(encoding="utf-8")
    for width in WIDTHS:
        chromium.open(report.as_uri(), width=width)
        facts = chromium.evaluate(STUDENTS_TABLE)
        chromium.screenshot(SHOTS / f"report-students-{width}.png")
        assert facts["left"] >= 0 and facts["right"] <= width, f"the Students table is wider than {width} px: {facts}"
        assert not facts["scrolls"], f"the Students table needs sideways scrolling at {width} px"
        assert not facts["clipped"], f"cut off at {width} px: {facts['clipped']}"
        assert not facts["broken"], f"a word of 'fix first' is broken at {width} px: {facts['broken']}"


NB_FEEDBACK_FACTS = """(() => {
  const table = document.querySelector('.text_cell_render table');
  const heads = [...table.querySelectorAll('th')].map(th => {
    const r = document.createRange(); r.selectNodeContents(th); return r.getBoundingClientRect(); });
  return {
    toc: [...document.querySelectorAll('#toc li a')].map(a => a.textContent.trim()),
    // the space between one header's text and the next one's
    gaps: heads.slice(1).map((r, i) => r.left - heads[i].right),
    math: document.body.innerText.match(/\\$[^$\\n]{1,60}\\$|\\\\(cdot|text|exp|sum|top)\\b/g) || [],
  };
})()"""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_nbgraders_feedback_names_each_area_spaces_its_tables_and_shows_no_raw_latex(chromium, tmp_path, language):
    """nbgrader's generate_feedback page, with the course's template: its summary named the five areas "Task",
    the points table's header ran together ("exercise 1exercise 2total"), and formulas stayed raw LaTeX offline."""
    from pathlib import Path

    import nbformat
    import nbgrader
    from nbconvert.exporters import HTMLExporter
    from traitlets.config import Config

    from autograder.graders.kit import COURSE_DIR
    from autograder.outputs.nbfeedback import TEMPLATE, TEMPLATE_DIRS

    folder = COURSE_DIR / "source" / ("weight_tying" if language == "en" else "weight_tying_zh")
    nb = nbformat.read(folder / "weight_tying.ipynb", as_version=4)
    for cell in nb.cells:
        if "nbgrader" in cell.metadata:
            cell.metadata.nbgrader["score"] = cell.metadata.nbgrader.get("points", 0)
    config = Config()
    config.HTMLExporter.template_name = TEMPLATE
    config.HTMLExporter.template_file = TEMPLATE + ".html.j2"
    config.HTMLExporter.extra_template_basedirs = TEMPLATE_DIRS
    static = Path(nbgrader.__file__).parent / "server_extensions/formgrader/static/node_modules/bootstrap/dist/css"
    config.HTMLExporter.extra_template_paths = [str(static)]  # as generate_feedback sets it
    resources = {"nbgrader": {"notebook": "weight_tying", "score": 100, "max_score": 100, "late_penalty": 0}}
    page, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=resources)
    path = tmp_path / "feedback.html"
    path.write_text(page, encoding="utf-8")
    chromium.open(path.as_uri(), width=1280)
    facts = chromium.evaluate(NB_FEEDBACK_FACTS)
    chromium.screenshot(SHOTS / f"nbgrader-feedback-{language}.png")
    practice = {"en": "Practice check", "zh": "练习检查"}[language]  # each practice cell's first words
    areas = [label for label in facts["toc"] if not label.startswith(practice)]
    prefix = {"en": "Graded area: ", "zh": "评分项“"}[language]
    assert len(set(areas)) == 5 and all(a.startswith(prefix) and len(a) > len(prefix) for a in areas), facts["toc"]
    assert "Graded area: parameter identity" in areas or language == "zh"
    assert min(facts["gaps"]) >= 8, f"the points table's header runs together: gaps {facts['gaps']} px"
    assert not facts["math"], f"raw LaTeX on the page: {facts['math']}"


def test_the_chinese_students_table_fits_a_laptop_with_its_last_column_whole(class_folder, chromium):
    """Issue 48: with --language zh the Students table's headers (area names up to nine characters, kept on one
    line) pushed its last column, 首要问题, past a 1280 px window: it was cut. The headers take two balanced lines."""
    report = write_report(class_folder, "zh")
    chromium.open(report.as_uri(), width=1280)
    facts = chromium.evaluate(STUDENTS_TABLE.replace("=== 'Students'", "=== '各学生成绩'"))
    chromium.screenshot(SHOTS / "report-students-zh-1280.png")
    assert facts["right"] <= 1280 and not facts["scrolls"], f"the Chinese Students table is wider than 1280 px: {facts}"
    assert not facts["clipped"], f"cut off at 1280 px: {facts['clipped']}"
    heads = chromium.evaluate(
        "[...document.querySelectorAll('table.students th')].map(th => [th.textContent, th.getClientRects().length,"
        " Math.round(th.getBoundingClientRect().height)])"
    )
    assert heads[-1][0] == "首要问题" and max(h for _, _, h in heads) < 80, heads  # two lines at most


def test_the_chinese_per_test_table_breaks_an_area_only_after_a_linking_word(class_folder, chromium):
    """Issue 48, round 20: the per-test table's area column wrapped "两条路径的梯度相 / 加". Its cells break only
    where html.phrase_breaks allows (两条路径的 / 梯度相加): each phrase between the breaks sits on one line."""
    report = write_report(class_folder, "zh")
    chromium.open(report.as_uri(), width=1280)
    cells = chromium.evaluate(
        "[...document.querySelectorAll('td.area')].map(td => [...td.childNodes].filter(n => n.nodeType === 3)"
        ".map(n => { const r = document.createRange(); r.selectNodeContents(n);"
        " return [n.textContent, new Set([...r.getClientRects()].map(b => Math.round(b.top))).size]; }))"
    )
    chromium.screenshot(SHOTS / "report-tests-zh-1280.png")
    phrases = [phrase for cell in cells for phrase in cell]
    assert any(text == "梯度相加" for text, _ in phrases), cells  # the long area is there, split after 的
    assert all(lines == 1 for _, lines in phrases), f"a phrase broken inside at 1280 px: {cells}"
