"""The similarity pass's pages in headless Chromium at a laptop's and a phone's width: the report's section, the
pair's side-by-side page and similarity.html render with nothing cut off or overflowing sideways (only a table's
own scroll box may scroll), the shared code is marked, and a student's hostile code and name are text, never
markup. Screenshots are kept in test-artifacts/pages/."""

from __future__ import annotations

import pytest

from autograder.cli.main import main
from autograder.graders.kit import KIT_ROOT

pytestmark = pytest.mark.e2e  # a browser start-up; CI runs it (and fails it if Chromium is missing)

SHOTS = KIT_ROOT / "test-artifacts" / "pages"
WIDTHS = (1280, 390)
CALIBRATION = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"
HOSTILE = "<i>bob\u202e"  # a name that is markup and turns the text around it
# shared by both hand-ins: markup in a string, and a token far wider than a phone with nowhere to break
TRAP = "\n\nbanner = \"</pre><script>document.title = 'pwned'</script>\" + '" + "A" * 400 + "'\n"
FACTS = """(() => ({
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  cut: [...document.querySelectorAll('body *')].filter(e => !e.closest('.scroll') && e.getClientRects().length)
    .filter(e => { const r = e.getBoundingClientRect(); return r.right > innerWidth + 1 || r.left < -1; })
    .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40)).slice(0, 5),
  boxes: [...document.querySelectorAll('.scroll')].every(b => b.getBoundingClientRect().right <= innerWidth + 1),
  scripts: document.querySelectorAll('script').length,
  title: document.title,
  marks: [...document.querySelectorAll('mark')].filter(m => m.getClientRects().length).length,
  sides: [...document.querySelectorAll('section.side')].map(s => Math.round(s.getBoundingClientRect().left)),
  text: document.body.textContent,
  links: [...document.querySelectorAll('a[href^="similar/"]')].map(a => a.getAttribute('href')),
  headings: [...document.querySelectorAll('h1, h2')].map(h => h.textContent),
}))()"""


@pytest.fixture
def graded(batch_folder, area_result, class_of):
    read = lambda rel: (CALIBRATION / rel).read_text(encoding="utf-8")  # noqa: E731
    out = batch_folder({"alice": area_result(), HOSTILE: area_result(), "carol": area_result()})
    root = class_of(
        {
            "alice": (read("correct/c04_einsum_manual_loss.py") + TRAP, "en"),
            HOSTILE: (read("similarity/copies/c04_einsum_manual_loss__all.py") + TRAP, "zh"),
            "carol": (read("correct/c02_reverse_tie.py"), "en"),
        }
    )
    assert main(["similarity", "--assignment", "weight_tying", str(root), "--out", str(out)]) == 0
    return out


def test_the_section_and_the_side_by_side_page_read_well_on_a_laptop_and_a_phone(graded, chromium):
    saved = []
    for page, name in (("report.html", "report"), ("similarity.html", "similarity")):
        for width in WIDTHS:
            chromium.open((graded / page).as_uri(), width=width)
            facts = chromium.evaluate(FACTS)
            saved.append(chromium.screenshot(SHOTS / f"similar-{name}-{width}.png"))
            assert facts["overflow"] <= 0 and not facts["cut"] and facts["boxes"], (page, width, facts["cut"])
            # the section's heading in the report; similarity.html is the section alone, under its title once
            titled = [h for h in facts["headings"] if h.lower().endswith("similar hand-ins")]
            assert len(titled) == 1 and facts["scripts"] == 0, facts["headings"]
            assert HOSTILE.replace("\u202e", "\\u202e") in facts["text"]  # the name as text, its override shown
    pair = facts["links"][0]
    assert set(facts["links"]) == {pair}
    for width in WIDTHS:
        chromium.open((graded / pair).as_uri(), width=width)
        facts = chromium.evaluate(FACTS)
        saved.append(chromium.screenshot(SHOTS / f"similar-pair-{width}.png"))
        assert facts["overflow"] <= 0, f"the pair's page is {facts['overflow']} px wider than {width} px"
        assert not facts["cut"], f"cut off at {width} px: {facts['cut']}"
        assert facts["scripts"] == 0 and "pwned" not in facts["title"]
        assert "</pre><script>document.title = 'pwned'</script>" in facts["text"]  # the code, shown as it is
        assert facts["marks"] >= 4, "the shared code is marked on both sides"
        left, right = facts["sides"]
        assert (left < right) if width > 900 else (left == right), "side by side on a laptop, one above the other"
    assert all(p.stat().st_size > 5000 for p in saved)
