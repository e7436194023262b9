"""The one catalog mechanism (autograder.protocol.said) and the weight_tying catalog: every message in both
languages with the same parameters; every id used somewhere; the marking scheme and the catalog name the same
misconceptions; every hidden-suite test has a title in both languages."""

import ast
import json
import re
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.graders.release import release_of  # registers the self-check framework's words (coursecheck)
from autograder.graders.weight_tying import messages
from autograder.graders.weight_tying.messages import CATALOG, NAMES, Message, render
from autograder.graders.weight_tying.zh_text import english as english_words
from autograder.grading.findings import Finding
from autograder.grading.marking import scheme_markdown
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, TestOutcome
from autograder.grading.titles import names
from autograder.outputs.feedback import feedback_html
from autograder.protocol import said
from autograder.protocol.said import Said

SPEC = get_assignment("weight_tying")
SCHEME = SPEC.scheme
HAN = re.compile(r"[\u4e00-\u9fff]")


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


def test_every_message_of_every_catalog_has_both_languages_with_the_same_parameters():
    assert said.problems() == []  # the engine's, every grader's, the pages'
    for key, message in CATALOG.items():  # a code word may stay as it is
        assert HAN.search(message.zh) or message.zh != message.en or key == "said.verbatim", key


@pytest.mark.parametrize(
    "broken, why",
    [
        (Message("{n} checks", ""), "no zh template"),
        (Message("{n} checks", "{m} 项检查"), "zh fills ['m'], English ['n']"),
    ],
)
def test_a_missing_or_mismatched_translation_is_reported(monkeypatch, broken, why):
    monkeypatch.setitem(CATALOG, "test.broken", broken)
    assert said.problems(CATALOG) == [f"test.broken: {why}"]


def test_render_fills_parameters_and_names_an_unknown_id():
    assert render("check.header", "en", path="nb.ipynb", var="X").startswith("weight-tying self-check of nb.ipynb")
    assert render("check.header", "zh", path="nb.ipynb", var="X").startswith("Weight Tying 作业自检：nb.ipynb")
    with pytest.raises(KeyError, match="no message 'check.nope'"):
        render("check.nope", "zh")
    with pytest.raises(KeyError, match="no message 'check.waits' in the weight_tying catalog"):
        render("check.waits", "en", need="x")  # the self-check framework's words are coursecheck's own
    with pytest.raises(ValueError, match="'fr'"):
        render("check.header", "fr", path="nb.ipynb", var="X")


def test_the_marking_scheme_and_the_catalog_name_the_same_misconceptions():
    titled = {key.removeprefix("misconception.") for key in CATALOG if key.startswith("misconception.")}
    assert titled == set(SCHEME.misconceptions), {
        "no title": set(SCHEME.misconceptions) - titled,
        "stale title": titled - set(SCHEME.misconceptions),
    }
    assert set(NAMES.values()) <= set(SCHEME.misconceptions), set(NAMES.values()) - set(SCHEME.misconceptions)
    assert set(NAMES) <= set(CATALOG), set(NAMES) - set(CATALOG)
    assert all(CATALOG[key].names == name for key, name in NAMES.items())


def _used_literals() -> tuple[set[str], set[str]]:
    """Every string literal of the kit's code (the catalogs' own tables aside), and the opening words of its
    f-strings (an id built as f"diag.tie.{key}")."""
    root = Path(SPEC.judge_dir).parents[3]
    files = [
        p
        for folder in ("autograder", "coursecheck", "scripts", "assignments/source", "dnnlpy")
        for p in (root / folder).rglob("*.py")
        if "calibration" not in p.parts and not (p.name.startswith("messages") or p.name == "catalog.py")
    ]
    literals, prefixes = set(), set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
                prefixes.add(node.values[0].value)
    # The pages' and the report's words are read by name (w["rule"] in code, w.rule or w["col.area"] in a
    # template): page.<name> and report.<name> are used.
    for template in (root / "autograder" / "outputs" / "templates").glob("*.j2"):
        found = re.findall(r"\bw(?:\.(\w+)|\[\"([\w. ]+)\"\])", template.read_text(encoding="utf-8"))
        literals |= {a or b for a, b in found}
    literals |= {f"{owner}.{literal}" for literal in literals for owner in ("page", "report")}
    # a subject's label form is read through the grader's own table (messages.label_form), kept beside its catalog
    literals |= {messages.label_form(key) for key in literals} - {None}
    prefixes |= {f"report.{prefix}" for prefix in prefixes}
    # A lead's opening message said again, short, is its id's ".again" (grading.rendering: ShownCharge.again).
    literals |= {f"{literal}.again" for literal in literals}
    # A self-check names its own words by its release's prefix (coursecheck's Words.own: "header", "title.<check>"):
    # a grader's SELF_CHECK_IDS before each word the framework asks for.
    own = [release_of(p.parent.name).SELF_CHECK_IDS for p in (root / "autograder" / "graders").glob("*/release.py")]
    prefixes |= {f"{ids}{word}" for ids in own for word in ("header", "covers.", "title.", "group.")}
    # messages.py builds the first five, the engine's catalog.cell_name the last
    return literals, prefixes | {"area.", "misconception.", "title.", "section.", "experiment.", "cell.place."}


def test_every_id_of_every_catalog_is_used_somewhere():
    literals, prefixes = _used_literals()
    unused = sorted(
        key
        for key in said.registered()
        if key not in literals and not any(key.startswith(p) for p in prefixes if "." in p and " " not in p)
    )
    assert unused == [], f"{len(unused)} ids nothing uses (delete them from their catalog): {unused}"


def test_every_area_of_the_scheme_has_a_chinese_name_without_english():
    for area in SCHEME.areas:
        name = messages.area_name(area, "zh")
        assert HAN.search(name) and not re.search(r"[A-Za-z]", name), (area, name)


def test_every_suite_test_has_a_title_and_no_title_is_stale():
    suite = _suite_tests()
    titled = {key.removeprefix("title.") for key in CATALOG if key.startswith("title.")}
    assert suite and titled == suite, {"missing": suite - titled, "stale": titled - suite}


def test_the_output_tests_titles_say_what_holds_as_the_other_titles_do():
    """Issue 48, round 19: "TiedEmbeddingLM 在 float64 下的输出" named a thing where the other titles state what
    holds ("……两端仍然共享"): the output tests' titles say their outputs are right."""
    for name in ("tied_lm_shapes_and_values", "tied_lm_float64", "wrapper_shapes_and_values", "wrapper_float64"):
        zh = CATALOG[f"title.{name}"].zh
        assert zh.endswith("正确") and not zh.endswith(("的输出", "形状与数值")), (name, zh)


def test_every_experiment_of_the_runner_has_a_title_and_no_title_is_stale():
    from autograder.graders.weight_tying.runner.experiments import EXPERIMENTS

    titled = {key.removeprefix("experiment.") for key in CATALOG if key.startswith("experiment.")}
    assert titled == set(EXPERIMENTS), {"missing": set(EXPERIMENTS) - titled, "stale": titled - set(EXPERIMENTS)}
    assert messages.experiment_title("gpt_generate", "zh") == "MiniGPTWithWeightTying.generate 的生成"
    assert messages.experiment_title("not_an_experiment", "zh") is None


def test_the_spec_names_areas_and_titles_from_the_catalog():
    name = names(SPEC, "zh")
    assert name("tied lm shapes and values") == render("title.tied_lm_shapes_and_values", "zh")
    assert name("wrapper float64 [2]") == render("title.wrapper_float64", "zh") + " [2]"
    assert name("gradient accumulation") == "两条路径的梯度相加"


def test_a_chinese_feedback_page_names_its_tests_and_areas_in_chinese():
    tests = [
        TestOutcome(
            "test_shapes.py::test_tied_lm_shapes_and_values", 6, "shape flow", False, Finding(Said("diag.tie.copied"))
        ),
        TestOutcome("test_counts.py::test_tied_lm_counts_one_table", 4, "parameter counts", True),
    ]
    result = rendered(Result(tests=tests, run=None, output="评分完成", language="zh"), SPEC)
    page = feedback_html(result, student="chen", language="zh", spec=SPEC)
    assert render("title.tied_lm_shapes_and_values", "zh") in page
    assert render("title.tied_lm_counts_one_table", "zh") in page
    assert "tied lm shapes and values" not in page and "tied lm counts one table" not in page
    assert ">shape flow<" not in page and ">parameter counts<" not in page  # the areas table too
    assert "形状与输出数值" in page


def test_the_chinese_notebook_headings_are_the_catalogs():
    """The Chinese feedback's "(请重读第 N 节“...”)" names a heading the Chinese notebook has."""
    notebook = Path(SPEC.judge_dir).parents[3] / "assignments" / "source" / "weight_tying_zh" / "weight_tying.ipynb"
    text = "\n".join(
        "".join(cell["source"])
        for cell in json.loads(notebook.read_text("utf-8"))["cells"]
        if cell["cell_type"] == "markdown"
    )
    headings = {line for line in text.splitlines() if line.startswith("## ")}
    for number, (_, chinese) in messages.SECTION_HEADINGS.items():
        # the heading as a student reads it, in a page or the terminal: plain text, no Markdown code marks
        read = {h.replace("`", "") for h in headings}
        assert any(h.startswith(f"## {number}. {chinese}") for h in read), (number, chinese, sorted(headings))
        assert "`" not in chinese, (number, chinese)
    assert "形状流" not in text and "评分领域" not in text and "梯度累积" not in text
    english = [h for h in headings if english_words(h)]  # code and the book's kept terms aside (glossary.py)
    assert english == [], "headings of the Chinese notebook with English outside code"


def _literal_ids(path: Path) -> list[tuple[str, str, int]]:
    """(renderer, id, line) for each say/render/tell call whose first argument is a string literal: the grader's
    say/render/tell read its catalog, ``suite_api.say`` the engine's."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "say":
            owner = func.value.id if isinstance(func.value, ast.Name) else ""
            out.append(("engine" if owner == "suite_api" else "grader", node.args[0].value, node.lineno))
        elif (
            isinstance(func, ast.Name) and func.id in ("say", "render", "tell") and isinstance(node.args[0].value, str)
        ):
            out.append(("grader", node.args[0].value, node.lineno))
    return out


def test_every_id_the_judge_renders_is_in_the_catalog_its_renderer_reads():
    """A message id the suite names must exist where its `say` looks (a wrong one raises only on the rare path
    that renders it: the sweep's leaf mutations found one); the engine's helpers read the engine's catalog."""
    from autograder.grading import catalog as engine

    grader = Path(messages.__file__).parent
    files = [p for p in grader.rglob("*.py") if "calibration" not in p.parts and not p.name.startswith("messages")]
    files += list((Path(engine.__file__).parent / "judge").glob("*.py"))
    missing = []
    for path in files:
        local = path.is_relative_to(grader)
        for renderer, key, line in _literal_ids(path):
            if not re.fullmatch(r"[a-z_]+\.[\w.]+", key):
                continue
            known = key in engine.MESSAGES if renderer == "engine" or not local else key in CATALOG
            if not known:
                missing.append(f"{path.name}:{line} {key} ({renderer if local else 'engine'})")
    assert missing == [], missing


def test_a_title_stands_alone_and_the_float_ids_message_gives_its_cause_as_a_guess():
    """Issue 48, round 22: "一步 SGD 只更新这张表一次" pointed back at nothing in a list of titles; and the float ids'
    message, said after "token id 应当是 int64", said it again and gave a buffer made with torch.zeros as the cause."""
    titles = {key: CATALOG[key].zh for key in CATALOG if key.startswith("title.")}
    assert not [key for key, zh in titles.items() if "这张表" in zh]
    assert titles["title.tied_lm_sgd_step_updates_table_once"].endswith("只更新共享表一次")
    floats = CATALOG["judge.gen.model.float"]
    assert "int64" not in floats.zh and "常见原因" in floats.zh and "common cause" in floats.en


@pytest.mark.parametrize(
    ("reported", "zh", "en"),
    [
        ([["a", 0.0], ["b", 0.0]], "各 dropout 层的概率都是 0.0，应为 1.0：", "has probability 0.0, expected 1.0:"),
        (
            [["a", 0.5], ["b", 0.0]],
            "各 dropout 层的概率分别是 0.0、0.5，应当都为 1.0：",
            "probabilities 0.0, 0.5, expected",
        ),
    ],
)
def test_the_dropout_message_lists_each_probability_once_in_the_readers_words(monkeypatch, reported, zh, en):
    """Issue 48, round 22: "minigpt 内部的 dropout 概率是 [0.0]，应当处处为 1" printed a Python list and an int."""
    from autograder.graders.weight_tying.judge.suite import test_counts
    from autograder.protocol.said import render as render_said

    monkeypatch.setattr(test_counts, "for_model", lambda *_: [("a", 1.0), ("b", 1.0)])
    problem = test_counts._dropout_problem({"dropout": 1}, {}, reported)
    assert zh in render_said(problem, "zh") and en in render_said(problem, "en")
    assert (
        "[" not in render_said(problem, "zh") and test_counts._dropout_problem({}, {}, [["a", 1.0], ["b", 1.0]]) is None
    )


def test_misconceptions_doc_is_generated_from_the_scheme_and_the_catalog():
    doc = (Path(SPEC.judge_dir).parent / "MISCONCEPTIONS.md").read_text(encoding="utf-8")
    command = "python -m autograder misconceptions --assignment weight_tying"
    marker = f"<!-- generated from marking.toml and the catalog: {command} -->"
    assert marker in doc, "MISCONCEPTIONS.md lost its generated section"
    table = scheme_markdown(SCHEME, messages.misconception_title)
    assert doc.split(marker, 1)[1].lstrip("\n").startswith(table), f"MISCONCEPTIONS.md is out of date: {command}"


@pytest.mark.parametrize("key", ["suite.loss.softmax_first", "checkfail.loss_softmax"])
def test_the_softmax_first_message_names_both_cross_entropy_functions_the_chapter_teaches(key):
    # the mistake is found from the loss's value, so the student may have called either function (§5 teaches both)
    message = CATALOG[key]
    for text in (message.en, message.zh):
        assert "F.cross_entropy " in text and "dF.cross_entropy_loss" in text, (key, text)


def test_the_grader_names_the_final_layernorm_as_the_notebook_does():
    """Issue 48, round 23, item 4: the grader said "最后的 LayerNorm" where the notebook says "末尾的 LayerNorm"."""
    from scripts.weight_tying_notebook import text_zh

    name = render("note.the_final_layernorm", "zh")
    assert name in "\n".join(map(str, text_zh.TEXT.values())), name


def test_a_gradient_that_could_not_be_checked_names_its_class_first_and_points_at_the_area():
    """Issue 48 (round 24, item 6): "MiniGPTWithWeightTying 中，没有检查梯度：……，见“形状与输出数值”的测试" read as
    the grader skipping a check; the note names the class whose gradient could not be checked, then why, then
    where to look, in brackets."""
    from autograder.graders.weight_tying.judge.suite.test_gradients import _not_checked

    failed = _not_checked("MiniGPTWithWeightTying", "note.gradient_not_checked_forward_raised", "t", error="E", at="")
    zh = failed.finding.render("zh")
    assert zh.startswith("MiniGPTWithWeightTying 的梯度无法检查：forward 抛出了异常“E”"), zh
    assert zh.endswith("（详见“形状与输出数值”一项）。") and "没有检查" not in zh and " 中，" not in zh, zh


def test_two_other_wrong_loss_forms_read_as_one_list_and_every_pair_has_its_words():
    """Issue 48 (round 24, item 7): "另外，targets 形状为 (B, T-1) 时的 loss 和 targets 形状为 (B, T) 时的 loss 也不对"
    said "时的 loss" twice; two other forms are one list, one form keeps its sentence."""
    from itertools import combinations

    from autograder.graders.weight_tying.judge.suite.test_loss import _FORMS, _TWO_FORMS

    assert set(_TWO_FORMS) == {frozenset(pair) for pair in combinations(_FORMS, 2)}
    pair = render("suite.forms.short_full", "zh")
    assert render("suite.and_two_more_forms", "zh", forms=pair) == (
        "。另外两种形式（targets 形状为 (B, T-1) 或 (B, T)）的 loss 也不对"
    )
    one = render("suite.and_more_forms", "zh", forms=render("suite.form.short", "zh"))
    assert one == "。另外，targets 形状为 (B, T-1) 时的 loss 也不对"


def test_the_delegated_generate_message_names_the_three_calls_the_loop_needs():
    """Issue 48, round 25: it said "self.minigpt(...) 的 forward、torch.argmax 和拼接（torch.cat）"; the loop calls
    three things, named as the student writes them."""
    message = CATALOG["checkfail.delegated_generate"]
    assert message.zh.endswith("只需要调用 self.minigpt(...)、torch.argmax 和 torch.cat"), message.zh
    assert message.en.endswith("it only needs to call self.minigpt(...), torch.argmax and torch.cat"), message.en


def test_an_unshifted_loss_says_each_position_predicts_its_own_token():
    """w27 (round 25): "拿 ids 的 logits 去预测 ids 本身" read as jargon; it says what each position predicts."""
    said = render("suite.loss_shift.none", "zh", call="loss(ids, targets)", got="0.1", want="2.3", hint="")
    assert "用每个位置的 logits 去预测这个位置自己的 token" in said and "ids 本身" not in said
