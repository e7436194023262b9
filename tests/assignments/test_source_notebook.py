"""The source notebooks: built from their single sources, the editions alike but for prose, well-formed for
nbgrader, correct, and stating the points the grader really gives."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize

import nbformat
import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR, KIT_ROOT
from autograder.graders.weight_tying.messages import area_name
from autograder.grading.judge.suite import Suite
from coursecheck.notebook import load_notebook

ROOT = KIT_ROOT
SOURCES = {"en": COURSE_DIR / "source" / "weight_tying", "zh": COURSE_DIR / "source" / "weight_tying_zh"}
REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION", re.S | re.M)
CJK = re.compile(r"[\u4e00-\u9fff]")
PRACTICE = ["practice_tied", "practice_gradients", "practice_wrapper", "practice_loss", "practice_generate"]


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@pytest.fixture(scope="module", params=list(SOURCES))
def edition(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def notebooks() -> dict[str, nbformat.NotebookNode]:
    return {
        language: nbformat.read(folder / "weight_tying.ipynb", as_version=4) for language, folder in SOURCES.items()
    }


def _code(region: str) -> list[str]:
    """A solution region's code, token for token, without its comments (each edition's words)."""
    from scripts.notebook_parts.comments import without_comments

    return without_comments(region)


def _normalized(code: str) -> list[str]:
    return [line.rstrip() for line in code.strip("\n").splitlines() if line.strip()]


def test_the_built_files_equal_a_fresh_build(build_script):
    stale = [str(p) for p, text in build_script.outputs().items() if not p.is_file() or p.read_text("utf-8") != text]
    assert stale == [], "out of date: run python scripts/build_notebook.py"
    assert build_script.main(["--check"]) == 0


def _code_shape(source: str) -> list[tuple[int, str]]:
    """A code cell's tokens with its string literals blanked, its comments left out (an edition may say more in
    them: the Chinese practice cells name the checks' key): what the editions share."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    kept = [
        t for t in tokens if t.type != tokenize.COMMENT and not (t.type == tokenize.NL and t.line.lstrip()[:1] == "#")
    ]
    return [(t.type, t.string if t.type != tokenize.STRING else "") for t in kept]


def _shared_metadata(cell) -> dict:
    """A cell's metadata but a demo's digest (of its own edition's text)."""
    kit = {k: v for k, v in cell.metadata.get("course_kit", {}).items() if k != "demo_sha256"}
    return {**cell.metadata, "course_kit": kit}


def test_no_built_file_is_committed(build_script):
    """A generated copy in the repository is a second source that drifts: the build's outputs are git-ignored."""
    listed = subprocess.run(["git", "ls-files", "-z", "assignments"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()[:200]}")
    committed = {ROOT / name for name in listed.stdout.split("\0") if name}
    built = set(build_script.outputs())
    assert built and committed and sorted(str(p.relative_to(ROOT)) for p in built & committed) == []
    ignored = subprocess.run(["git", "check-ignore", *map(str, built)], cwd=ROOT, capture_output=True, text=True)
    assert len(ignored.stdout.splitlines()) == len(built), "add the build's new outputs to .gitignore"


def test_the_release_carries_no_hidden_test_and_no_judge_message(build_script, checks, tmp_path):
    """The students' files say what the self-check says: no hidden test's name, in any spelling (its function,
    without ``test_``, or its title with spaces, in either language), none of the judge's messages."""
    from autograder.graders.weight_tying import release
    from autograder.graders.weight_tying.messages import CATALOG

    shipped = "\n".join(build_script.outputs(tmp_path).values())
    spec = get_assignment("weight_tying")
    # a check of the self-check's own may share a hidden test's name: the self-check declares its checks (CHECKS);
    # a `def` in a released file is no such declaration (issue 45: a hidden test's def there went unseen)
    hidden = [t.function for t in Suite.load(spec.suite_dir, spec.scheme).tests if t.function not in checks.CHECKS]
    assert len(hidden) > 20
    titles = {name: CATALOG.get(f"title.{name.removeprefix('test_')}") for name in hidden}
    spellings = {
        name: {name, name.removeprefix("test_"), name.removeprefix("test_").replace("_", " ")}
        | ({titles[name].en, titles[name].zh} if titles[name] is not None else set())
        for name in hidden
    }
    leaked = [(name, form) for name in hidden for form in spellings[name] if form in shipped]
    assert leaked == [], f"hidden tests named in the release: {leaked}"
    released = release.released_catalog()
    said = {text for m in released.values() for text in (m.en, m.zh)}
    judge_only = {key: m for key, m in CATALOG.items() if key not in released}
    assert any(key.startswith(("judge.", "suite.", "title.", "note.")) for key in judge_only)
    leaked = [key for key in judge_only if f"'{key}'" in shipped or f'"{key}"' in shipped]
    leaked += [
        f"{key}: {text[:60]!r}"
        for key, m in judge_only.items()
        for text in (m.en, m.zh)
        if len(text) >= 30 and text in shipped and not any(text in words for words in said)
    ]
    assert leaked == [], f"judge-only messages in the release: {leaked}"


def test_the_editions_differ_in_prose_only(notebooks):
    """Code, solution and test cells, cell ids and nbgrader metadata are one source: only markdown and what a
    code cell prints, draws or says in a comment differ."""
    en, zh = notebooks["en"], notebooks["zh"]
    assert [c.id for c in en.cells] == [c.id for c in zh.cells]
    assert [c.cell_type for c in en.cells] == [c.cell_type for c in zh.cells]
    printing = 0
    for a, b in zip(en.cells, zh.cells, strict=True):
        if a.cell_type == "code":
            assert _code_shape(a.source) == _code_shape(b.source), a.id
            printing += a.source != b.source
            if _nbgrader(a).get("solution"):  # the reference answer's code verbatim; its words in each language
                assert [_code(r) for r in REGION.findall(a.source)] == [_code(r) for r in REGION.findall(b.source)]
        assert _shared_metadata(a) == _shared_metadata(b), a.id
    assert printing >= 10  # the demos and the practice cells print in each edition's words
    generated = "scripts/build_notebook.py (edit scripts/weight_tying_notebook/ and solutions/)"
    assert en.metadata.course_kit == {"assignment": "weight_tying", "language": "en", "generated_by": generated}
    assert zh.metadata.course_kit == {"assignment": "weight_tying", "language": "zh", "generated_by": generated}
    assert {k: v for k, v in en.metadata.items() if k != "course_kit"} == {
        k: v for k, v in zh.metadata.items() if k != "course_kit"
    }
    for cell in en.cells:
        if cell.cell_type == "markdown":
            assert not CJK.search(cell.source), cell.id
    for cell in zh.cells:
        if cell.cell_type == "markdown":
            assert len(CJK.findall(cell.source)) > 20, cell.id  # written in Chinese, not left in English


def test_the_chinese_notebook_teaches_in_chinese_in_its_code_too(notebooks):
    """Item 4 of issue 48: the comments a student reads in the Chinese notebook's code, and the docstrings of the
    two classes they complete, are Chinese (the solution regions' too); shape comments stay as written."""
    import importlib.util as util

    path = ROOT / "scripts" / "notebook_parts" / "comments.py"
    spec = util.spec_from_file_location("comments_under_test", path)
    comments = util.module_from_spec(spec)
    spec.loader.exec_module(comments)
    from autograder.graders.weight_tying.zh_text import english

    seen, docstrings = 0, 0
    for cell in notebooks["zh"].cells:
        if cell.cell_type != "code":
            continue
        for token, text in comments.comments_of(cell.source):
            seen += 1
            docstrings += token.type == tokenize.STRING
            assert not english(text), (cell.id, text)
    assert seen > 20 and docstrings == 2
    zh = "\n".join(c.source for c in notebooks["zh"].cells if c.cell_type == "code")
    assert '"""token embedding 与 LM head 共享同一张 (V, D) 表' in zh and "# 只供查表路径使用" in zh
    en = "\n".join(c.source for c in notebooks["en"].cells if c.cell_type == "code")
    assert "# used only by the lookup" in en and not CJK.search(en)


def test_every_comment_translation_is_used():
    """An edition's COMMENTS name comments the code has: a stale one (its English comment reworded) fails."""
    from scripts.weight_tying_notebook import lessons, text_zh

    code = (
        (ROOT / "solutions" / "weight_tying.py").read_text("utf-8")
        + "\n".join(
            c.source
            for name in lessons.__all__
            for c in getattr(lessons, name)
            if isinstance(getattr(lessons, name), list)
        )
        + lessons.IMPORTS.source
    )
    unused = [english for english in text_zh.COMMENTS if english not in code]
    assert unused == []


def test_the_editions_ship_the_same_self_check():
    def files(folder):
        return {
            p.relative_to(folder).as_posix(): p.read_text("utf-8")
            for p in folder.rglob("*")
            # the notebook and the README are each edition's own prose (test_student_readme.py holds the README)
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".ipynb" and p.name != "README.md"
        }

    en, zh = files(SOURCES["en"]), files(SOURCES["zh"])
    assert set(en) == set(zh)
    generated_in_en = {name for name, text in en.items() if text.startswith("# Generated by")}
    differ = sorted(name for name in en if en[name] != zh[name])
    assert "weight_tying_checks/edition.py" in generated_in_en and "weight_tying_checks/messages.py" in generated_in_en
    # the Chinese folder's copy of each of the English folder's own files is that file under a "generated" header
    header = (
        "# Generated by scripts/build_notebook.py from assignments/source/weight_tying/{}:\n"
        "# edit that file, not this copy.\n"
    )
    # but the plumbing a student may open, which says first in Chinese what it is for (issue 48)
    told = {"conftest.py", "pytest.ini"}
    assert all(zh[name] == header.format(name) + en[name] for name in differ if name not in generated_in_en | told)
    for name in told:
        first, _, rest = zh[name].partition("\n")
        assert first.startswith("# ") and not first.isascii() and rest == header.format(name) + en[name], name
    assert [name for name in differ if name in generated_in_en] == ["weight_tying_checks/edition.py"]
    assert 'LANGUAGE = "zh"' in zh["weight_tying_checks/edition.py"]


def test_formulas_read_without_mathjax(notebooks, edition):
    """nbgrader's feedback page loads MathJax from a CDN: offline, $h_t \\cdot W_{out,j}$ stayed raw. The prose
    writes formulas in Markdown and HTML (<sub>, ·, Σ) that read the same in JupyterLab and in any page."""
    for cell in notebooks[edition].cells:
        if cell.cell_type == "markdown":
            prose = re.sub(r"`[^`]*`", "", cell.source)  # code may hold a $
            assert not re.search(r"\$[^$\n]+\$|\\(?:cdot|text|exp|sum|top|ln)\b", prose), (cell.id, prose[:200])


def test_chinese_paragraphs_have_no_hard_breaks(notebooks):
    # Markdown shows a break inside a paragraph as a space: none may fall between two Chinese characters.
    for cell in notebooks["zh"].cells:
        if cell.cell_type == "markdown":
            assert not re.search(r"[\u4e00-\u9fff，。：；]\n[\u4e00-\u9fff]", cell.source), cell.id


def test_solution_regions_match_solutions_module(notebooks, edition, solution_source):
    """The English regions are solutions/weight_tying.py's, line for line; the Chinese ones its code token for
    token, with the comments in Chinese (a teacher reads them in the source notebook; nbgrader releases none)."""
    in_notebook = [
        region
        for cell in notebooks[edition].cells
        if _nbgrader(cell).get("solution")
        for region in REGION.findall(cell.source)
    ]
    in_solutions = REGION.findall(solution_source)
    assert len(in_solutions) == 6  # __init__ + forward, then __init__, forward, loss, generate
    assert [_code(r) for r in in_notebook] == [_code(r) for r in in_solutions]
    if edition == "en":
        assert [_normalized(r) for r in in_notebook] == [_normalized(r) for r in in_solutions]
    else:
        comments = [line.partition("#")[2] for r in in_notebook for line in r.splitlines() if "#" in line]
        shapes = [c for c in comments if re.fullmatch(r"[\sA-Za-z0-9_(),+\->]*", c)]  # (B, t) -> (B, t, V): no words
        assert len(comments) - len(shapes) == 7 and all(CJK.search(c) for c in comments if c not in shapes)


def test_nbgrader_metadata_is_complete_and_unique(notebooks, edition):
    notebook = notebooks[edition]
    grade_ids = [_nbgrader(c)["grade_id"] for c in notebook.cells if _nbgrader(c)]
    assert len(grade_ids) == len(set(grade_ids))
    tests = [c for c in notebook.cells if _nbgrader(c).get("grade")]
    assert [_nbgrader(c)["grade_id"] for c in tests] == PRACTICE
    assert all(_nbgrader(c)["locked"] and not _nbgrader(c)["solution"] for c in tests)
    # The practice checks are worth nothing in nbgrader: the grade is the hidden suite's (one point system).
    assert [_nbgrader(c)["points"] for c in tests] == [0] * len(PRACTICE)
    for cell in notebook.cells:
        if "BEGIN SOLUTION" in cell.source:
            assert _nbgrader(cell).get("solution") is True
        assert "BEGIN HIDDEN TESTS" not in cell.source
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize(
    "language, opens, worth", [("en", "# Practice check (", "0 points"), ("zh", "# 练习检查（", "0 分")]
)
def test_practice_cells_say_they_are_worth_nothing_and_carry_no_internal_comment(notebooks, language, opens, worth):
    for cell in notebooks[language].cells:
        if _nbgrader(cell).get("grade"):
            first = cell.source.splitlines()[0]
            assert first.startswith(opens) and worth in first
            assert "stderr" not in cell.source and "warnings" not in cell.source
            assert "lm_head.weight = " not in cell.source  # the answer is not printed in a check


def test_a_chinese_practice_cell_says_its_english_key_is_the_checks_own_name(notebooks):
    keys = 0
    for cell in notebooks["zh"].cells:
        if _nbgrader(cell).get("grade"):
            key = re.search(r'^practice\("([^"]+)"', cell.source, re.M).group(1)
            second = cell.source.splitlines()[1]
            assert second.startswith(f'# practice("{key}", ...) 的第一个参数是') and "请勿修改" in second, second
            keys += 1
    assert keys == len(PRACTICE)


def _suite_points() -> list[tuple[str, float, str]]:
    """(test name, points, area) of every hidden test, as the suite's runner reads them (the marking scheme)."""
    spec = get_assignment("weight_tying")
    return [(t.function, t.points, t.area) for t in Suite.load(spec.suite_dir, spec.scheme).tests]


def test_the_notebook_states_the_points_the_grader_gives(notebooks):
    tests = _suite_points()
    exercise = {1: 0.0, 2: 0.0}
    areas: dict[str, list[float]] = {}
    for name, points, area in tests:
        number = 1 if name.startswith("test_tied_") else 2
        assert name.startswith(("test_tied_", "test_wrapper_", "test_generate_")), name
        exercise[number] += points
        areas.setdefault(area, [0.0, 0.0])[number - 1] += points
    text = "\n".join(c.source for c in notebooks["en"].cells if c.cell_type == "markdown")
    total = sum(exercise.values())
    assert f"worth\n{total:g} points" in text or f"worth {total:g} points" in text
    assert f"Exercise 1: `TiedEmbeddingLM` ({exercise[1]:g} points)" in text
    assert f"Exercise 2: `MiniGPTWithWeightTying` ({exercise[2]:g} points)" in text
    for area, (one, two) in areas.items():
        assert f"| {area} | {one:g} | {two:g} | {one + two:g} |" in text, area
    assert f"| **total** | **{exercise[1]:g}** | **{exercise[2]:g}** | **{total:g}** |" in text
    zh = "\n".join(c.source for c in notebooks["zh"].cells if c.cell_type == "markdown")
    assert f"练习 1：`TiedEmbeddingLM`（{exercise[1]:g} 分）" in zh and f"共 {total:g} 分" in zh
    for area, (one, two) in areas.items():
        name = area_name(area, "zh")  # the Chinese name alone: no English in the table
        assert f"| {name} | {one:g} | {two:g} | {one + two:g} |" in zh and name != area, area


def test_the_text_nits_stay_fixed(notebooks):
    en = "\n".join(c.source for c in notebooks["en"].cells)
    assert "50_257" in en and "50,000" not in en and "50_000" not in en  # one GPT-2 V in text, code and plot
    assert "2**20:.1f} MiB" in en and "1024**2" not in en
    assert "U+FFFD" in en and "save first" in en
    cells = notebooks["en"].cells
    practice = next(i for i, c in enumerate(cells) if _nbgrader(c).get("grade_id") == "practice_gradients")
    section_7 = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## 7."))
    assert practice > section_7  # the gradient check comes after section 7 explains gradients


def test_which_demonstrations_run_is_said_once_where_the_notebook_says_how_to_work(notebooks):
    """Cell 0 said the demo rule twice (grader, then self-check); round 20 said it once in section 7, beside the
    demonstration that calls the student's class. Round 23: a reader looked for it under "how to work" at the top,
    where a student reads it before running anything: cell 0 says it once, and section 7 points there."""
    said = {
        "en": "the grader and the `pytest` self-check skip them",
        "zh": "评分程序和 `pytest` 自检都会跳过它们",
    }
    pointer = {"en": "*Working in this notebook*, at the top", "zh": "见开头的“怎么做题”"}
    heading = {"en": "**Working in this notebook**", "zh": "**怎么做题**"}
    # round 24: said short, as one sentence each way (left as released: skipped; changed: runs, errors reported)
    reporters = {
        "en": "A demonstration you changed runs as usual, and an error in it is reported",
        "zh": "改动过的演示单元格则照常运行，出错会被报告",
    }
    for language, book in notebooks.items():
        text = [c.source if c.cell_type == "markdown" else "" for c in book.cells]
        flat = ["".join(t.split()) for t in text]
        rule = "".join(said[language].split())
        section_7 = next(i for i, t in enumerate(text) if t.startswith("## 7."))
        assert [i for i, t in enumerate(flat) if rule in t] == [0], language
        title = "".join(heading[language].split())
        working = flat[0].index(title)
        assert working < flat[0].index(rule) < flat[0].index("**", working + len(title)), language
        assert "".join(pointer[language].split()) in flat[section_7], language
        assert "section 7 says which" not in flat[0] and "见第7节" not in flat[0], language
        assert book.cells[section_7 + 1].cell_type == "code" and "TiedEmbeddingLM(" in book.cells[section_7 + 1].source
        assert "".join(reporters[language].split()) in flat[0], language


def test_every_cell_runs_on_the_reference_answer_practice_checks_included(monkeypatch, edition, capsys):
    monkeypatch.syspath_prepend(str(SOURCES[edition]))  # as a kernel started in the folder finds the checks
    monkeypatch.delenv("WEIGHT_TYING_LANG", raising=False)
    for name in [m for m in sys.modules if m.split(".")[0] == "weight_tying_checks"]:
        monkeypatch.delitem(sys.modules, name)  # each edition's own copy
    result = load_notebook(SOURCES[edition] / "weight_tying.ipynb", skip_grade_cells=False)
    assert result.errors == []
    assert result.skipped == []
    out = capsys.readouterr().out
    assert out.count("✓") == 16 and "✗" not in out
    if edition == "zh":
        assert "全部通过" in out


def test_self_check_loader_skips_the_practice_cells(notebooks, edition):
    result = load_notebook(SOURCES[edition] / "weight_tying.ipynb")
    expected = [i for i, c in enumerate(notebooks[edition].cells) if _nbgrader(c).get("grade")]
    assert result.skipped == expected and len(expected) == len(PRACTICE)
    assert {"TiedEmbeddingLM", "MiniGPTWithWeightTying", "tokenizer"} <= set(result.namespace)


def test_each_chinese_shorthand_is_introduced_once_before_it_is_used(notebooks):
    """位置表 and 交叉熵 (glossary.SHORT_FORMS) appear first where the notebook introduces them, in the chapter's
    words (positional embedding 的表（下文简称位置表）), and are introduced once."""
    from autograder.graders.weight_tying.glossary import SHORT_FORMS

    text = "\n".join(c.source for c in notebooks["zh"].cells)  # prose and what the code prints, in reading order
    for short, introduced in SHORT_FORMS.items():
        assert text.count(introduced) == 1, (short, text.count(introduced))
        assert text.index(short) >= text.index(introduced), f"{short!r} is used before “{introduced}”"
