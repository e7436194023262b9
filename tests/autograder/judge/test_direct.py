"""The warm judge's lean runner gives what pytest.main gives (outcomes, ids, order, messages), or steps aside."""

from __future__ import annotations

import textwrap

import pytest
import torch

from autograder.graders import get_assignment
from autograder.grading.judge import direct
from autograder.grading.judge.direct import DirectSuite, Unsupported
from autograder.grading.judge.plugin import run_suite

CONFTEST = """
import pytest

CALLS = []


@pytest.fixture(scope="session", autouse=True)
def _session_marker():
    CALLS.append("session up")
    yield
    CALLS.append("session down")


@pytest.fixture
def doubled(plan):
    return plan["x"] * 2


@pytest.fixture(scope="module")
def constant():
    return 2
"""

TESTS = """
import pytest

from autograder.grading.judge.suite_api import need


@pytest.fixture
def value(evidence, run):
    return need(evidence, "answer", run)["value"]


@pytest.fixture
def broken_teardown():
    yield 1
    raise AssertionError("teardown found a problem")


@pytest.mark.area("values")
@pytest.mark.points(2)
def test_value_is_doubled(value, doubled, constant):
    assert value == doubled == 2 * constant, f"got {value}, expected {doubled}: forgot to double"


@pytest.mark.points(1)
def test_fails_with_pytest_fail(evidence):
    if evidence.get("answer", {}).get("value") != 4:
        pytest.fail("pytest.fail message only")


@pytest.mark.points(1)
def test_skipped_inside():
    pytest.skip("not today")


@pytest.mark.points(1)
def test_internal_error():
    {}["missing"]


@pytest.mark.points(1)
def test_teardown_error_fails_a_passing_test(broken_teardown):
    print("printed output is not feedback")
"""


def _suite(tmp_path, tests: str = TESTS, conftest: str = CONFTEST):
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "conftest.py").write_text(textwrap.dedent(conftest))
    (folder / "test_things.py").write_text(textwrap.dedent(tests))
    return folder


def _as_tuples(outcomes):
    return [(t.name, t.points, t.area, t.passed, t.output) for t in outcomes]


@pytest.mark.parametrize("answer", [4, 5, None])
def test_lean_runner_equals_pytest_main(tmp_path, answer):
    folder = _suite(tmp_path)
    plan = {"x": 2}
    evidence = {} if answer is None else {"answer": {"value": answer}}
    run = {"status": "ok"}
    expected, _ = run_suite(suite_dir=folder, plan=plan, evidence=evidence, run=run)
    suite = DirectSuite.load(folder)
    try:
        got = list(suite.run(plan=plan, evidence=evidence, run=run))
    finally:
        suite.close()
    assert _as_tuples(got) == _as_tuples(expected)
    by_name = {t.name.split("::")[1]: t for t in got}
    assert by_name["test_skipped_inside"].output == "not run (skipped)"
    assert "internal error (KeyError" in by_name["test_internal_error"].output
    assert by_name["test_teardown_error_fails_a_passing_test"].output == "teardown found a problem"
    assert by_name["test_value_is_doubled"].passed is (answer == 4)


def test_one_load_judges_many_submissions_independently(tmp_path):
    suite = DirectSuite.load(_suite(tmp_path))
    try:
        plan = {"x": 2}
        first = _as_tuples(suite.run(plan=plan, evidence={"answer": {"value": 4}}, run={}))
        wrong = _as_tuples(suite.run(plan=plan, evidence={"answer": {"value": 3}}, run={}))
        again = _as_tuples(suite.run(plan=plan, evidence={"answer": {"value": 4}}, run={}))
    finally:
        suite.close()
    assert first == again != wrong
    assert [t[0] for t in first] == [t[0] for t in wrong]


@pytest.mark.parametrize(
    "extra",
    [
        '@pytest.mark.parametrize("n", [1, 2])\n@pytest.mark.points(1)\ndef test_param(n):\n    pass\n',
        "class TestGrouped:\n    def test_in_class(self):\n        pass\n",
        "@pytest.mark.points(1)\ndef test_uses_tmp_path(tmp_path):\n    pass\n",
        "@pytest.mark.xfail\n@pytest.mark.points(1)\ndef test_xfail():\n    pass\n",
        '@pytest.fixture(scope="module")\ndef wide(evidence):\n    return 1\n\n\n'
        "@pytest.mark.points(1)\ndef test_wide(wide):\n    pass\n",
    ],
    ids=["parametrize", "class", "pytest-fixture", "other-marker", "scope-mismatch"],
)
def test_what_only_pytest_runs_faithfully_is_refused(tmp_path, extra):
    with pytest.raises(Unsupported):
        DirectSuite.load(_suite(tmp_path, TESTS + "\n\n" + extra))


def test_selftest_suite_runs_lean_with_identical_messages():
    spec = get_assignment("selftest")
    plan = spec.make_plan(3)
    cases = [
        {"same_shape": {"value": plan["a"] + plan["b"]}, "broadcast": {"value": plan["col"] + plan["row"]}},
        {"same_shape": {"value": plan["a"] - plan["b"]}, "broadcast": {"error": "TypeError: nope"}},
        {"same_shape": {"value": torch.zeros(2)}},
    ]
    suite = DirectSuite.load(spec.suite_dir)
    try:
        for evidence in cases:
            expected, _ = run_suite(suite_dir=spec.suite_dir, plan=plan, evidence=evidence, run={"status": "ok"})
            got = list(suite.run(plan=plan, evidence=evidence, run={"status": "ok"}))
            assert _as_tuples(got) == _as_tuples(expected)
    finally:
        suite.close()


def test_the_installed_pytest_is_a_major_the_lean_runner_is_tested_on():
    """It reads fixtures with pytest's private API: a new major must be tried (this file) before it is used."""
    assert direct.pytest_supported(pytest.__version__), (
        f"pytest {pytest.__version__} is not among the majors judge/direct.py is tested on {direct.TESTED_PYTEST}: "
        "run tests/autograder/judge/ with it, then add its major there and raise pyproject.toml's pytest pin"
    )


def test_pyproject_pins_pytest_below_the_first_untested_major():
    import tomllib

    from autograder.graders.kit import KIT_ROOT

    deps = tomllib.loads((KIT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (pin,) = [d for d in deps if d.replace(" ", "").startswith("pytest>") or d.startswith("pytest<")]
    assert f"<{max(direct.TESTED_PYTEST) + 1}" in pin.replace(" ", ""), pin


@pytest.mark.parametrize("version", ["10.0.0", "7.4.4", "dev"])
def test_on_an_untested_pytest_the_suite_goes_to_pytest_main(tmp_path, monkeypatch, version):
    assert not direct.pytest_supported(version)
    monkeypatch.setattr(direct.pytest, "__version__", version)
    with pytest.raises(Unsupported, match="tested on pytest"):
        DirectSuite.load(_suite(tmp_path))
