"""The marking scheme and its rule (the top of marking.toml), each clause tested from its statement: findings are
values, a misconception is charged once per exercise and never more than the tests it fails, a knock-on is free
only behind a charged misconception of its exercise, and the charges sum to the points lost."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Failed, Finding, finding_of
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.marking import MISCONCEPTION, OWN, apply_marking, breakdown, load_scheme
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, TestOutcome
from autograder.protocol.said import Said, verbatim
from autograder.qa.inprocess import InProcessGrader

SPEC = get_assignment("weight_tying")
SCHEME = SPEC.scheme
COPY = Finding(Said("diag.tie.copied"), names="two_tables")
PLAIN = Finding(Said("judge.failed_your_code_raised", what="x", text="ValueError: boom"))


def _outcomes(failing: dict[str, Finding]) -> list[TestOutcome]:
    return [
        TestOutcome(f"t.py::{t.name}", t.points, t.area, t.name not in failing, failing.get(t.name))
        for t in SCHEME.tests.values()
    ]


def _marked(failing: dict[str, Finding]) -> list[TestOutcome]:
    return apply_marking(Result(tests=_outcomes(failing), run=None), SCHEME).tests


def _mark(failing: dict[str, Finding]) -> float:
    return round(sum(t.score for t in _marked(failing)), 6)


def _points(*names: str) -> float:
    return sum(SCHEME.tests[n].points for n in names)


def test_the_suite_is_the_scheme():
    """Every test function the suite's files define is a test of the scheme, in the area its module grades, and
    the other way round (read from the files themselves: the suite's runner takes its points from the scheme)."""
    import ast

    found = {}  # test function -> the area its module grades
    for path in sorted(SPEC.suite_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = [n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "AREA"]
        area = assigned[0].value.value
        found |= {n.name: area for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}
    assert set(found) == set(SCHEME.tests)
    assert {n: a for n, a in found.items() if SCHEME.tests[n].area != a} == {}, "tests outside their module's area"
    assert {t.function for t in InProcessGrader(SPEC).tests} == set(SCHEME.tests)
    assert SCHEME.max_score == 100


def test_a_misconception_is_charged_once_per_exercise_never_more_than_its_failing_tests():
    identity = SCHEME.misconceptions["two_tables"].costs["parameter identity"]
    one = "test_tied_lm_head_is_the_embedding_parameter"
    three = (one, "test_tied_lm_tie_survives_state_dict_reload", "test_tied_lm_tie_survives_to_float64")
    assert _mark({one: COPY}) == 100 - min(identity, _points(one))
    assert _mark(dict.fromkeys(three, COPY)) == 100 - min(identity, _points(*three))
    wrapper = "test_wrapper_head_is_the_embedding_parameter"
    both = _mark({one: COPY, wrapper: COPY})  # each exercise missed the lesson: charged in each
    assert both == 100 - min(identity, _points(one)) - min(identity, _points(wrapper))


def test_a_passing_test_is_never_charged_and_a_charge_never_leaves_its_exercise():
    marked = _marked({"test_tied_lm_head_is_the_embedding_parameter": COPY})
    assert all(t.charged == 0 for t in marked if t.passed)
    assert all(t.charged == 0 for t in marked if SCHEME.exercise(t.name) == 2)


def test_the_charges_never_exceed_a_tests_points_so_no_area_goes_below_zero():
    rng = random.Random(1)
    names = list(SCHEME.tests)
    kinds = [COPY, PLAIN, Finding(Said("diag.tie.shape", got="x", want="y"), names="transposed")]
    for _ in range(300):
        failing = {n: rng.choice(kinds) for n in rng.sample(names, rng.randint(1, len(names) - 1))}
        for n in rng.sample(list(failing), min(3, len(failing))):  # some knock-ons, some on passing tests
            failing[n] = Finding(Said("note.count_not_checked_table_rewritten"), waits_on=rng.choice(names))
        marked = _marked(failing)
        assert all(0 <= t.charged <= t.points for t in marked), failing
        areas = Result(tests=marked, run=None).areas
        assert all(got >= 0 for got, _ in areas.values())
        lost = sum(c.points for c in breakdown(marked, SCHEME))
        assert round(lost, 6) == round(100 - sum(t.score for t in marked), 6)


def test_a_knock_on_is_free_only_behind_a_misconception_charged_at_least_its_points():
    shapes, grad = "test_tied_lm_shapes_and_values", "test_tied_lm_shared_gradient_is_sum_of_paths"
    step = "test_tied_lm_sgd_step_updates_table_once"
    knock = Finding(Said("note.gradient_not_checked_not_tied_product", what="TiedEmbeddingLM"), waits_on=shapes)
    transposed = Finding(Said("judge.shapes.transposed_values", what="x"), names="transposed")
    w_shapes, w_grad = "test_wrapper_shapes_and_values", "test_wrapper_shared_gradient_is_sum_of_paths"
    w_knock = Finding(
        Said("note.gradient_not_checked_not_judge_minigpt", what="MiniGPTWithWeightTying"), waits_on=w_shapes
    )
    shape_cost = min(SCHEME.misconceptions["transposed"].costs["shape flow"], _points(w_shapes))
    grad_cost = SCHEME.misconceptions["transposed"].costs["gradient accumulation"]
    assert shape_cost >= _points(w_grad)  # charged at least the knock-on's points: it carries the cause's charge
    assert _mark({w_shapes: transposed, w_grad: w_knock}) == 100 - shape_cost - min(grad_cost, _points(w_grad))
    # a cheap misconception frees no dearer knock-on: max_norm costs less than the gradient test is worth
    max_norm = Finding(Said("diag.lookup.max_norm", cap="1"), names="max_norm")
    cost = min(SCHEME.misconceptions["max_norm"].costs["shape flow"], _points(shapes))
    assert cost < _points(grad)
    assert _mark({shapes: max_norm, grad: knock}) == 100 - cost - _points(grad)
    # ... but a cheaper knock-on it frees (and what that one carries counts for the next)
    assert cost >= _points(step)
    assert _mark({shapes: max_norm, step: knock}) == 100 - cost
    # behind a failure nobody named, the knock-on costs its own points
    assert _mark({shapes: PLAIN, grad: knock}) == 100 - _points(shapes, grad)
    # waiting on a test that passed (a forward that misbehaves only where the gradient is measured)
    assert _mark({grad: knock}) == 100 - _points(grad)
    # waiting on a test of the other exercise
    wrapper = "test_wrapper_shared_gradient_is_sum_of_paths"
    assert _mark({shapes: max_norm, wrapper: knock}) == 100 - cost - _points(wrapper)


def test_a_charge_of_nothing_frees_nothing():
    """A misconception named only where it costs nothing (no cost in that test's area) charges nothing: its test
    and the knock-ons behind it pay their own points."""
    head, grad = "test_tied_lm_head_is_the_embedding_parameter", "test_tied_lm_shared_gradient_is_sum_of_paths"
    assert "parameter identity" not in SCHEME.misconceptions["max_norm"].costs
    max_norm = Finding(Said("diag.lookup.max_norm", cap="1"), names="max_norm")
    knock = Finding(Said("note.gradient_not_checked_not_tied_product", what="TiedEmbeddingLM"), waits_on=head)
    assert _mark({head: max_norm}) == 100 - _points(head)
    assert _mark({head: max_norm, grad: knock}) == 100 - _points(head, grad)


def test_the_budget_is_once_per_exercise_not_once_per_test():
    """A misconception shown by two tests of one area costs its cost once, not once per test."""
    within, past = "test_generate_greedy_within_block_size", "test_generate_greedy_past_block_size"
    crop = Finding(Said("suite.gen.crop_first"), names="crop")
    cost = SCHEME.misconceptions["crop"].costs["argmax generation"]
    assert cost < _points(within, past)  # each test alone could carry all of it
    assert _mark({within: crop, past: crop}) == 100 - cost


def test_a_test_showing_several_misconceptions_charges_each_within_its_points():
    loss = "test_wrapper_loss_values"
    both = Finding(
        Said("suite.loss.ignore_index", call="x", got="1", want="2", hint="h"),
        names="loss_ignore_index",
        also=("loss_not_mean",),
    )
    one = Finding(Said("suite.loss.ignore_index", call="x", got="1", want="2", hint="h"), names="loss_ignore_index")
    costs = [SCHEME.misconceptions[m].costs["shape flow"] for m in ("loss_ignore_index", "loss_not_mean")]
    assert _mark({loss: one}) == 100 - costs[0]
    assert _mark({loss: both}) == 100 - min(sum(costs), _points(loss))
    marked = {t.name.rpartition("::")[2]: t for t in _marked({loss: both})}
    assert marked[loss].shares == {
        MISCONCEPTION + "loss_ignore_index": costs[0],
        MISCONCEPTION + "loss_not_mean": costs[1],
    }
    charges = [c for c in breakdown(list(marked.values()), SCHEME)]
    assert sorted((c.cause, c.points) for c in charges) == sorted(
        zip(("loss_ignore_index", "loss_not_mean"), costs, strict=True)
    )


def test_a_misconception_is_never_read_from_a_findings_words():
    """The English of a naming message, quoted as text, names nothing: only the finding's ids do."""
    from autograder.protocol.said import render

    words = render(Said("diag.tie.copied"))
    quoted = Finding(verbatim(words))
    head = "test_tied_lm_head_is_the_embedding_parameter"
    assert quoted.kind == "plain" and finding_of(AssertionError(verbatim(words))).names is None
    assert _mark({head: quoted}) == 100 - _points(head)
    assert _mark({head: COPY}) == 100 - min(
        SCHEME.misconceptions["two_tables"].costs["parameter identity"], _points(head)
    )


def test_evidence_the_runner_owed_and_the_judges_own_failure_cost_their_points():
    owed = Finding(
        Said("judge.no_evidence_for", what="x", why=Said("judge.the_experiment_did_not_report_see")), owed=True
    )
    internal = Finding(Said("judge.the_grader_hit_an_internal_error", what="E"), internal=True)
    one = "test_wrapper_dropout_honoured"
    assert _mark({one: owed}) == _mark({one: internal}) == _mark({one: PLAIN}) == 100 - _points(one)
    marked = _marked({one: owed})
    assert [t.charged_to for t in marked if not t.passed] == [OWN]


def test_covers_makes_a_consequence_carry_the_cause_and_goes_one_way(tmp_path):
    head, grad = "test_wrapper_head_is_the_embedding_parameter", "test_wrapper_shared_gradient_is_sum_of_paths"
    one_path = Finding(Said("diag.grad.one_path.head"), names="only_one_path")
    marked = _marked({head: COPY, grad: one_path})
    assert {t.charged_to for t in marked if not t.passed} == {MISCONCEPTION + "two_tables"}
    text = Path(SCHEME.path).read_text(encoding="utf-8")
    cyclic = text.replace('covers = ["only_one_path"]', 'covers = ["only_one_path", "data_sharing"]', 1)
    (tmp_path / "marking.toml").write_text(cyclic, encoding="utf-8")
    with pytest.raises(ValueError, match="cover each other"):
        load_scheme(tmp_path / "marking.toml")


def test_a_submission_that_passes_nothing_gets_nothing():
    assert _mark(dict.fromkeys(SCHEME.tests, COPY)) == 0


def test_an_area_whose_tests_do_not_add_up_is_refused(tmp_path):
    text = Path(SCHEME.path).read_text(encoding="utf-8").replace('"argmax generation" = 18', '"argmax generation" = 20')
    (tmp_path / "marking.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="argmax generation"):
        load_scheme(tmp_path / "marking.toml")


def test_the_students_text_is_a_parameter_never_a_finding():
    """What a student's code raised, quoted in a message, names nothing: only message ids do."""
    raised = Said("judge.failed_your_code_raised", what="loss", text="ValueError: loss not mean, copied table")
    assert finding_of(AssertionError(raised)).names is None
    assert finding_of(AssertionError(verbatim("transposed") + raised)).names is None
    assert finding_of(Failed(Said("diag.tie.copied"))).names == "two_tables"
    assert finding_of(AssertionError("copied table")).internal  # a suite that fails with words is the grader's bug


IDENTITY = "test_tied_lm_head_is_the_embedding_parameter"


def test_marks_survive_the_wire_and_reach_gradescope_json_adding_up():
    marked = _marked(
        {"test_tied_lm_head_is_the_embedding_parameter": COPY, "test_tied_lm_tie_survives_to_float64": COPY}
    )
    result = Result(tests=marked, run=None, output="x")
    back = Result.from_wire(json.loads(json.dumps(result.to_wire())))
    assert (back.score, back.areas) == (result.score, result.areas)
    assert [(t.charged, t.charged_to) for t in back.tests] == [(t.charged, t.charged_to) for t in result.tests]
    data = gradescope_results(rendered(result, SPEC))
    assert round(sum(t["score"] for t in data["tests"]), 6) == data["score"] == result.score
    assert all((t["status"] == "passed") == (t["score"] == t["max_score"]) for t in data["tests"])

    # a test that costs nothing (a knock-on where the mistake costs 0) says so, never "-0" or "扣 0 分" (issue 48)
    knock = Finding(Said("note.gradient_not_checked_not_tied_product", what="TiedEmbeddingLM"), waits_on=IDENTITY)
    gradients = ("test_tied_lm_shared_gradient_is_sum_of_paths", "test_tied_lm_sgd_step_updates_table_once")
    # the gradient knock-ons carry the charge's 6 of their 9; the float64 one, in an area the copy costs nothing in,
    # costs nothing at all (the area's note says its cost is 0): "not charged", not "not charged again"
    marked = _marked({IDENTITY: COPY, **dict.fromkeys(gradients, knock), "test_tied_lm_float64": knock})
    # and a test the charge takes only part of: why the rest is not charged (its area's cost is reached) is said
    # once for the area, under the tests, not under each test as if the cap were the test's (issue 48)
    # a test in an area whose cap sentence says the cost there says its worth alone (issue 48, round 24)
    part = {"en": "sum of paths: worth 6\n", "zh": "两条路径的梯度之和：该测试 6 分\n"}
    cap = {
        "en": "In “gradient accumulation” this mistake costs a fixed 6 points, so the 2 tests of that area above",
        "zh": "这个错误在“两条路径的梯度相加”一项固定扣 6 分，所以上面属于这一项的 2 个测试（共 9 分）合计只扣 6 分",
    }
    for language, covered, never in (
        ("en", "float64: worth 1\n", "−0 "),
        ("zh", "float64 下输出正确：该测试 1 分\n", "分，扣 0 分"),  # a test never loses 0 (a cap note may cost 0)
    ):
        data = gradescope_results(rendered(Result(tests=marked, run=None, output="x", language=language), SPEC))
        output = next(t["output"] for t in data["tests"] if t["status"] == "failed")
        assert covered in output and never not in output and part[language] in output, output
        assert output.count(cap[language]) == 1 and output.splitlines()[-1].startswith(cap[language]), output
        assert output.startswith(COPY.render(language))  # opened by the test that names it, as the pages do
    # one test of the area under the charge: its line ("该测试 8 分，扣 6 分") says what it lost, a sentence of its
    # own why (issue 48, round 15: a single test's cap note had been left out, and 8 costing 6 went unexplained)
    softmax = Finding(Said("checkfail.loss_softmax", what="loss", got="3", want="2"), names="loss_softmax")
    alone = rendered(Result(tests=_marked({"test_wrapper_loss_values": softmax}), run=None, language="zh"), SPEC)
    (charge,) = alone.shown_in("zh").charges
    assert [lost for _, lost, _ in charge.tests] == [6.0], charge
    assert charge.caps == ("这个错误在“形状与输出数值”一项固定扣 6 分，所以这个 8 分的测试只扣 6 分",), charge


def test_an_areas_mark_never_goes_below_0_and_no_test_loses_more_than_its_points():
    """Rule 2 and 5: costs beyond an area's points stop at 0 for the area; the other areas keep theirs."""
    area = "argmax generation"
    points = SCHEME.areas[area]
    tests = [t.name for t in SCHEME.tests.values() if t.area == area]
    costs = [SCHEME.misconceptions[n].costs[area] for n in ("delegated_generate", "sampling")]
    assert sum(costs) > points  # the two costs together are more than the area is worth
    failing = {
        tests[0]: Finding(Said("judge.gen.delegated", names="x"), names="delegated_generate"),
        tests[1]: Finding(Said("diag.generate.sampling"), names="sampling"),
    }
    failing |= dict.fromkeys(tests[2:], PLAIN)  # and the area's other tests fail unexplained
    marked = _marked(failing)
    assert all(0 <= t.charged <= t.points for t in marked), [(t.name, t.charged) for t in marked]
    assert sum(t.charged for t in marked if t.area == area) == points  # the area's mark: 0, not below
    assert _mark(failing) == 100 - points  # every other area keeps all its points
    one = {tests[0]: failing[tests[1]]}  # a cost below the test's points is charged whole
    assert _mark(one) == 100 - min(SCHEME.misconceptions["sampling"].costs[area], SCHEME.tests[tests[0]].points)


def test_gradescope_opens_a_charge_with_the_test_that_names_it_as_the_pages_do():
    """Issue 48: a misconception's entry opened with its first test in the suite's order, a knock-on ("…但这一项不给分")
    here, while the pages open it with the test naming the mistake."""
    within = "test_generate_greedy_within_block_size"
    sampling = Finding(Said("diag.generate.sampling"), names="sampling")
    knock = Finding(Said("note.shape_not_credited", test="x"), waits_on=within)
    marked = _marked({"test_generate_returns_prompt_plus_int64_tokens": knock, within: sampling})
    for language in ("en", "zh"):
        data = gradescope_results(rendered(Result(tests=marked, run=None, output="x", language=language), SPEC))
        output = next(t["output"] for t in data["tests"] if t["status"] == "failed")
        assert output.startswith(sampling.render(language)), output
