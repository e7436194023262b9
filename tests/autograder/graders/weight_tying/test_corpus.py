"""The weight_tying calibration corpus itself, and every correct and wrong file walked through in-process.

Fast: each file's header (`# expect:`, `# why:`, `# fails:`), counts, the README and the misconception list;
then every correct and wrong file runs through the experiments and the suite in this process: correct
files get full marks, wrong files fail the tests their `# fails:` header names, and a failing test shows the
misconception their header names (the marking scheme's id). test_calibration.py grades the same corpus,
attacks included, in the real sandbox.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from autograder.graders import get_assignment
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts
from autograder.outputs.charges import cards
from autograder.outputs.classview import Row
from autograder.outputs.feedback import feedback_html
from autograder.outputs.grades import grades_csv
from autograder.outputs.table import render as render_table
from autograder.qa.calibrate import calibration_files, catalogue, judge_verdict, read_expectation
from autograder.qa.sweep import seeds_from

SPEC = get_assignment("weight_tying")
CAL = SPEC.calibration_dir
FOLDERS = {"correct": "correct", "wrong": "wrong", "attacks": "attack", "tricks": "trick"}
MINIMUM = {"correct": 8, "wrong": 25, "attack": 10, "trick": 8}
HEADER = re.compile(r"^# expect: (correct|wrong|attack|trick)(?: (.+))?$")


def _first_code(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        source = cells[0]["source"]
        return "".join(source) if isinstance(source, list) else source
    return path.read_text()


def _corpus() -> list[tuple[str, str, str, Path]]:
    """(folder, kind, misconception id, path) of every calibration submission."""
    out = []
    for folder in FOLDERS:
        for path in sorted((CAL / folder).iterdir()):
            if path.suffix in (".py", ".ipynb") and not path.name.startswith(("_", ".")):
                first = _first_code(path).splitlines()[0]
                match = HEADER.match(first)
                out.append((folder, match.group(1) if match else "", (match.group(2) or "") if match else "", path))
    return out


# ------------------------------------------------------------------------------------------ fast checks


def test_every_file_has_a_header_matching_its_folder(suite):
    names = {name for name, *_ in suite}
    for folder, kind, _names, path in _corpus():
        assert kind == FOLDERS[folder], f"{path.name}: first line must be '# expect: {FOLDERS[folder]}...'"
        lines = _first_code(path).splitlines()
        assert lines[1].startswith("# why: ") and len(lines[1]) > 20, f"{path.name}: second line must be '# why: ...'"
        if kind == "wrong":
            fails = calibration_files(CAL)[f"{folder}/{path.name}"][1].fails
            assert lines[2].startswith("# fails: ") and fails, f"{path.name}: third line must be '# fails: test_...'"
            assert set(fails) <= names, f"{path.name}: no such suite tests {sorted(set(fails) - names)}"


def test_corpus_is_large_enough():
    counts = {kind: 0 for kind in MINIMUM}
    for _, kind, _, _ in _corpus():
        counts[kind] += 1
    for kind, minimum in MINIMUM.items():
        assert counts[kind] >= minimum, f"only {counts[kind]} {kind} files, want at least {minimum}"
    notebooks = {kind for _, kind, _, path in _corpus() if path.suffix == ".ipynb"}
    assert {"correct", "attack"} <= notebooks, "keep a notebook among the correct files and the attacks"


def test_the_corpus_lists_itself_and_the_readme_lists_no_file():
    """`calibrate --list` derives the corpus's tables from the files' headers (so adding a file touches that file
    only): every file is a row with its `# why:` line, and the README holds no row of its own to fall behind."""
    listing = catalogue(CAL)
    rows = dict(re.findall(r"^\| `([^`]+)` \| .*? \| (.*) \|$", listing, flags=re.M))
    for _, _, _, path in _corpus():
        why = read_expectation(path).why
        assert why and rows.get(path.name, "").endswith(why.replace("|", "\\|")), (
            f"{path.name}: not listed with its why"
        )
    assert len(rows) == len(list(_corpus()))
    readme = (CAL / "README.md").read_text()
    assert not re.findall(r"^\| `([^`]+\.(?:py|ipynb))` \|", readme, flags=re.M), "README.md lists files again"


def test_wrong_files_name_the_schemes_misconceptions():
    """Each wrong file's header names a misconception of the marking scheme by its id (or none, for a file
    whose mistake is a crash or a hang, such as w61 and w62)."""
    scheme = SPEC.scheme
    named = {name for _, kind, ids, _ in _corpus() if kind == "wrong" for name in ids.split()}
    assert named - set(scheme.misconceptions) == set(), (
        f"not in marking.toml: {sorted(named - set(scheme.misconceptions))}"
    )
    assert len(named) >= 20, f"only {len(named)} misconceptions are exercised by the corpus"


# ------------------------------------------------------------------------------------------ in-process walk

_JUDGED = sorted(k for k, (_, exp) in calibration_files(CAL).items() if exp.kind in ("correct", "wrong"))
# The sweep's seeds, spread over the corpus: in the sweep run each file is also graded on one of them, so it
# sees every seed of `calibrate --seeds 25` (test_sweep.py sweeps five of them whole).
SWEEP = seeds_from(25)
_PLANS: dict[int, dict] = {}


def _sweep_plan(name: str) -> dict:
    seed = SWEEP[_JUDGED.index(name) % len(SWEEP)]
    if seed not in _PLANS:
        _PLANS[seed] = SPEC.make_plan(seed)
    return _PLANS[seed]


def _judged_on(name, one_plan, collect_evidence, judge, mark, *, outputs: bool = False) -> float:
    path, exp = calibration_files(CAL)[name]
    marked = mark(judge(one_plan, collect_evidence(path, one_plan)))
    failing = {test: o for test, o in marked.items() if not o.passed}
    score = round(sum(o.score for o in marked.values()), 6)
    ok, note = judge_verdict(exp, failing, score, 100)
    assert ok, f"{name} (seed {one_plan['seed']}): {note}"
    if outputs:
        for language in SPEC.languages:
            result = Result(tests=list(marked.values()), run=RunFacts(status="ok"), language=language)
            _every_output_adds_up(name, rendered(result, SPEC))  # as step 8 leaves it
    return score


def _every_output_adds_up(name: str, result: Result) -> None:
    """The charges every output shows sum to the points lost; a passing test shows none, a failing one is
    never shown as passed (issue 30)."""
    lost = round(result.max_score - result.score, 6)
    where = f"{name} ({result.language})"
    shown = cards(result.shown_in())
    assert round(sum(c.points for c in shown), 6) == lost, (where, [(c.title, c.points) for c in shown])
    covered = [item["test"] for card in shown for item in card.tests]
    assert sorted(covered) == sorted(t.name for t in result.failing()), where  # each failing test once
    area_of = {t.name: t.area for t in result.tests}
    for area, (got, top) in result.areas.items():  # grades.csv and the gradebook's cells read these
        in_area = sum(item["lost"] for card in shown for item in card.tests if area_of[item["test"]] == area)
        assert round(top - got - in_area, 6) == 0, (where, area, got, top, in_area)
    row = grades_csv([Row(uid="s", name="s", result=result, kind="graded")]).splitlines()
    header, values = next(csv.reader(row[:1])), next(csv.reader(row[1:2]))
    assert round(sum(float(values[header.index(a)]) for a in result.areas), 6) == result.score, (where, values)
    page = feedback_html(result, student="s", language=result.language, spec=SPEC)
    assert round(sum(float(p) for p in re.findall(r'data-points="([0-9.]+)"', page)), 6) == lost, where
    console = Console(record=True, width=200, color_system=None)
    render_table(result, console=console)
    costs = re.findall(r"^│\s*([0-9.]+)\s*│", console.export_text(), flags=re.M)  # under "cost": 22, not -22
    assert round(sum(float(c) for c in costs), 6) == lost, (where, costs)
    entries = gradescope_results(result)["tests"]
    assert round(sum(e["score"] for e in entries), 6) == result.score, where
    assert all((e["status"] == "passed") == (e["score"] == e["max_score"]) for e in entries), (where, entries)


@pytest.mark.parametrize("name", _JUDGED)
def test_corpus_file_in_process(name, plan, collect_evidence, judge, mark):
    """Correct files get full marks; wrong ones fail their `# fails:` tests, a failing one showing the
    misconception named, with a mark inside their band; every output's charges add up to the points lost."""
    _judged_on(name, plan, collect_evidence, judge, mark, outputs=True)


@pytest.mark.sweep
@pytest.mark.parametrize("name", _JUDGED)
def test_corpus_file_loses_the_same_points_on_a_second_plan(name, plan, collect_evidence, judge, mark):
    """The same on one of the sweep's seeds, and the same mark as on the first plan."""
    marks = [_judged_on(name, one_plan, collect_evidence, judge, mark) for one_plan in (plan, _sweep_plan(name))]
    assert marks[0] == marks[1], f"{name}: the mark depends on the seed: {marks}"


# ------------------------------------------------------------------------------------------ marks in proportion

_WRONG = {k.split("/")[1][:3]: exp for k, (_, exp) in calibration_files(CAL).items() if exp.kind == "wrong"}
# One mistake in several forms: each group must be marked alike (the same band, the same measured mark).
SAME_MISTAKE = {
    "a wrapper size or keyword hard-coded": ("w13", "w14", "w15", "w16", "w17"),
    "a second table in exercise 1": ("w01", "w02", "w03", "w04", "w38", "w60", "w75"),
    "a second table in exercise 2": ("w12", "w39", "w42", "w46", "w58"),
    "a next-token shift misread": ("w27", "w28", "w29", "w30"),
}
CORE = ("w01", "w02", "w38", "w12", "w39", "w42", "w46", "w58")  # the head holds a second table: the lesson's core
SLIPS = ("w13", "w14", "w15", "w16", "w17", "w26", "w40", "w48", "w49", "w50", "w51", "w73", "w74")  # subtle slips
PARTIAL = ("w68", "w69", "w70")  # partial work: a part left unwritten, marked for what is written
LOSS_SLIPS = ("w27", "w28", "w29", "w30", "w31", "w32", "w53")
NO_TIE, LOSS_MISSING = "w56", "w57"


def test_every_wrong_file_states_its_band():
    missing = sorted(name for name, exp in _WRONG.items() if exp.band is None)
    assert not missing, f"wrong files without a '# marks: LOW-HIGH' line: {missing}"


def test_bands_keep_the_teachers_proportions():
    band = {name: exp.band for name, exp in _WRONG.items()}
    for what, group in SAME_MISTAKE.items():
        assert len({band[n] for n in group}) == 1, f"{what}: one mistake, one band: {[(n, band[n]) for n in group]}"
    for slip in SLIPS:  # a subtle slip never costs more than the lesson's core misconception
        assert all(band[slip][0] >= band[core][1] for core in CORE), f"{slip} {band[slip]} may cost more than a copy"
    others = set(band) - {NO_TIE, "w10", "w11", *PARTIAL}  # tying the positional table also misses the lesson
    assert all(band[NO_TIE][1] < band[n][0] for n in others), "not tying anywhere must cost more than any slip"
    assert band[LOSS_MISSING][1] <= 90, "no training objective costs at least 10 of 100"
    assert all(band[LOSS_MISSING][1] < band[n][0] for n in LOSS_SLIPS), "no loss costs more than a wrong loss"
    # partial work earns what it shows: the ties alone are worth what construction shows (identity and counts),
    # one exercise alone about its share of the points
    assert band["w68"] == (30, 45) and band["w69"][0] <= 31 <= band["w69"][1] and band["w70"][0] <= 69 <= band["w70"][1]


@pytest.mark.parametrize("what", sorted(SAME_MISTAKE))
def test_the_same_mistake_gets_the_same_mark_in_every_form(what, plan, collect_evidence, judge, score):
    files = {name[:3]: path for name, (path, _) in ((k.split("/")[1], v) for k, v in calibration_files(CAL).items())}
    marks = {n: score(judge(plan, collect_evidence(files[n], plan))) for n in SAME_MISTAKE[what]}
    assert len(set(marks.values())) == 1, f"{what}: {marks}"
