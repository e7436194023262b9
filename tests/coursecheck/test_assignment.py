"""coursecheck's self-check for any assignment, on the toy selftest's checks: declared in order, each run once
after the checks it needs, every word from the release's catalog in the student's language, an assignment's
settings named after it (SELFTEST_LANG, SELFTEST_SECONDS), a notebook loaded as the grader loads it."""

from __future__ import annotations

import json

import pytest
import torch

from coursecheck.assignment import Assignment, SelfCheck
from coursecheck.notebook import exec_source
from coursecheck.practice import PracticeFailed

NAMES = ["test_add_returns_a_tensor", "test_add_adds", "test_add_broadcasts"]


def _session(selftest, body: str):
    namespace = exec_source(f"import torch\n\ndef add(a, b):\n{body}\n", "answer.py").namespace
    return selftest.SELF_CHECK.session({"add": namespace["add"]})


def _outcomes(session) -> dict:
    return {name: (session.outcome(name).status, session.outcome(name).message) for name in NAMES}


def test_the_checks_are_declared_in_order_with_their_group(selftest):
    assert list(selftest.CHECKS) == NAMES
    assert selftest.SELF_CHECK.groups == ("add",)
    assert [selftest.SELF_CHECK.title(c) for c in selftest.CHECKS.values()][0] == "add returns a plain torch.Tensor"


def test_a_right_answer_passes_and_a_mistake_is_named_once_with_its_area(selftest):
    assert {status for status, _ in _outcomes(_session(selftest, "    return a + b")).values()} == {"passed"}
    outcomes = _outcomes(_session(selftest, "    return a - b"))
    assert outcomes["test_add_returns_a_tensor"][0] == "passed"
    status, message = outcomes["test_add_adds"]
    assert status == "failed" and message == "add returned a - b: subtraction instead of addition\nGraded area: values."
    status, message = outcomes["test_add_broadcasts"]
    assert status == "not checked" and "“add(a, b) is a + b for two tensors of one shape” passes" in message


def test_a_stub_fails_once_and_what_needs_it_waits(selftest):
    outcomes = _outcomes(_session(selftest, "    raise NotImplementedError()"))
    status, message = outcomes["test_add_returns_a_tensor"]
    assert status == "failed" and message.startswith("add is not implemented yet") and "Graded area" not in message
    assert "reread" not in message  # the starter code is no mistake: nothing to reread yet
    assert [outcomes[name] for name in NAMES[1:]] == [("not checked", "not checked until add is implemented")] * 2
    stubbed = _session(selftest, "    raise NotImplementedError()")
    assert [stubbed.unwritten(name) for name in NAMES] == ["add"] * 3
    assert [_session(selftest, "    return a - b").unwritten(name) for name in NAMES] == ["", "", ""]
    session = selftest.SELF_CHECK.session({"add": None})  # not defined at all: said once
    assert session.outcome(NAMES[0]).message == "add is not defined"
    assert session.outcome(NAMES[1]).message.startswith("not checked until")


def test_code_that_raises_is_named_with_its_line(selftest):
    session = _session(selftest, "    x = 1\n    return x / 0")
    outcome = session.outcome(NAMES[0])
    assert outcome.status == "failed" and outcome.unwritten == ""
    assert "add((3, 4), (3, 4)) raised ZeroDivisionError (at answer.py, line 5): “division by zero”" in outcome.message


def test_a_practice_cell_prints_a_line_per_check_and_raises_on_a_failure(selftest, capsys):
    namespace = exec_source("def add(a, b):\n    return a - b\n", "answer.py").namespace
    with pytest.raises(
        PracticeFailed, match="1 of the add checks failed \\(marked ✗\\) and 1 wait for an earlier check to pass"
    ):
        selftest.practice("add", add=namespace["add"])
    lines = capsys.readouterr().out.splitlines()
    assert [line[0] for line in lines if line[:1] in "✓✗–"] == ["✓", "✗", "–"]
    selftest.practice("add", add=torch.add)
    assert capsys.readouterr().out.endswith(
        "All passed. These checks are a preview and worth no points: the hidden suite grades.\n"
    )
    with pytest.raises(ValueError, match="unknown group 'sub': choose one of add"):
        selftest.practice("sub", add=torch.add)
    stub = exec_source("def add(a, b):\n    raise NotImplementedError()\n", "answer.py").namespace
    with pytest.raises(PracticeFailed, match="^the add checks wait for add, not implemented yet: run this cell again"):
        selftest.practice("add", add=stub["add"])  # the starter code: something to write, not to fix
    out = capsys.readouterr().out
    assert "fix" not in out and [line[0] for line in out.splitlines() if line[:1] in "✓✗–○"] == ["○", "–", "–"]


def test_the_settings_are_named_after_the_assignment(selftest, monkeypatch):
    monkeypatch.setenv("SELFTEST_LANG", "zh")
    message = _outcomes(_session(selftest, "    return a - b"))["test_add_adds"][1]
    assert message == "add 返回的是 a - b：做成了减法而不是加法。\n评分项：values。", message
    monkeypatch.setenv("SELFTEST_LANG", "fr")
    with pytest.raises(ValueError, match="SELFTEST_LANG='fr' is not a language of this assignment"):
        selftest.SELF_CHECK.words.language()
    monkeypatch.setenv("SELFTEST_LANG", "en")
    monkeypatch.setenv("SELFTEST_SECONDS", "soon")
    with pytest.raises(ValueError, match="SELFTEST_SECONDS='soon' is not a number of seconds"):
        selftest.SELF_CHECK.clock()
    monkeypatch.setenv("SELFTEST_SECONDS", "8")
    assert selftest.SELF_CHECK.clock().step_limit == 2.0


def test_a_notebook_is_run_as_the_grader_runs_it_without_its_demonstration(selftest, selftest_release, tmp_path):
    """The instructor's notebook, solution included: its demo (as released) is left out and every check passes;
    the same cell edited is the student's and runs (it raises here, and is named like any cell that raised)."""
    loaded = selftest.SELF_CHECK.load(selftest_release / "selftest.ipynb")
    assert loaded.left_out and loaded.errors == []
    assert {loaded.session.outcome(name).status for name in NAMES} == {"passed"}
    nb = json.loads((selftest_release / "selftest.ipynb").read_text(encoding="utf-8"))
    demo = next(c for c in nb["cells"] if "demo" in c["metadata"].get("tags", []))
    demo["source"] = "torch.zeros(3) + torch.zeros(4)  # edited: no longer the course's"
    path = tmp_path / "edited.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    loaded = selftest.SELF_CHECK.load(path)
    assert loaded.left_out == frozenset()
    assert [message.split(":")[0] for _, message in loaded.errors] == ["RuntimeError"]
    assert loaded.cell(2).startswith("cell 3 (in “Self-test: add”, starting “torch.zeros(3) + torch.zeros(4)")


def test_a_notebook_that_misses_a_name_is_said_missing_once_its_cells_ran(selftest, selftest_release, tmp_path):
    """Without `add`'s cell the run misses `add`: no demonstration left out could have defined it (a demo that
    binds a name the checks need is never left out), so the cells that ran are the ones that count."""
    nb = json.loads((selftest_release / "selftest.ipynb").read_text(encoding="utf-8"))
    nb["cells"] = [c for c in nb["cells"] if c.get("id") != "solution_add"]
    path = tmp_path / "no_add.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    loaded = selftest.SELF_CHECK.load(path)
    assert loaded.errors == []
    message = loaded.session.outcome(NAMES[0]).message
    assert message.startswith("no_add.ipynb does not define add once its cells have run. No cell raised"), message


def test_cells_that_raised_are_listed_then_how_they_are_counted_on_a_line_of_its_own(
    selftest, selftest_release, tmp_path
):
    """The heading says only what the list is; how the cells are numbered follows the list, as the grader says it."""
    nb = json.loads((selftest_release / "selftest.ipynb").read_text(encoding="utf-8"))
    add = next(c for c in nb["cells"] if c.get("id") == "solution_add")
    add["source"] = "1 / 0"
    path = tmp_path / "raises.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    lines = selftest.SELF_CHECK.load(path).session.outcome(NAMES[0]).message.splitlines()
    assert lines[0].endswith("once its cells have run. These cells did not finish:"), lines
    assert "ZeroDivisionError" in lines[1]
    assert lines[-1] == "Cells are numbered from 1 at the top of the notebook, text cells included."


def test_an_assignment_and_its_checks_are_checked_when_made(selftest):
    catalog = selftest.SELF_CHECK.assignment.catalog
    with pytest.raises(ValueError, match="assignment name 'Self Test'"):
        Assignment(name="Self Test", names=("add",), catalog=catalog, edition="en")
    with pytest.raises(ValueError, match="builds from no names"):
        Assignment(name="toy", names=(), catalog=catalog, edition="en")
    toy = SelfCheck(Assignment(name="toy", names=("add",), catalog=catalog, edition="en"))
    declare = toy.check(cls="add", group="add", area="values", section=1, title="t")
    declare(lambda add: None)
    with pytest.raises(ValueError, match="two checks are called <lambda>"):
        declare(lambda add: None)
    with pytest.raises(ValueError, match="needs \\['test_x'\\], which are not declared before it"):
        toy.check(cls="add", group="add", area="values", section=1, title="t", needs=("test_x",))(print)
    with pytest.raises(ValueError, match="a check of 'sub': the toy self-check builds one of \\('add',\\)"):
        toy.check(cls="sub", group="add", area="values", section=1, title="t")
    assert toy.assignment.notebook == "toy.ipynb" and toy.assignment.setting("SUBMISSION") == "TOY_SUBMISSION"


def test_the_release_says_the_frameworks_words_and_the_assignments_own(selftest):
    from coursecheck.messages import MESSAGES

    catalog = selftest.SELF_CHECK.assignment.catalog
    assert set(MESSAGES) <= set(catalog.CATALOG) and catalog.SELF_CHECK_IDS == "selftest.check."
    own = {key for key in catalog.CATALOG if key.startswith(catalog.SELF_CHECK_IDS)}
    wanted = {"header", "covers.here", "covers.seeds", "group.add", *(f"title.{name}" for name in NAMES)}
    assert own == {f"selftest.check.{word}" for word in wanted}
    assert all(message.en and message.zh for message in catalog.CATALOG.values())
