"""The judge's pytest plugin: points and areas from markers, messages only, fresh module state per run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from autograder.grading.judge.plugin import run_suite


def test_judge_runs_repeatedly_in_one_process_and_hides_source(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_s.py").write_text(
        textwrap.dedent("""
        import pytest
        SECRET_CONSTANT = 12345
        CALLS = []

        @pytest.mark.points(2)
        @pytest.mark.area("a")
        def test_value(evidence):
            CALLS.append(1)
            assert len(CALLS) == 1, "module state leaked between runs"
            assert evidence.get("x") == SECRET_CONSTANT, "x is wrong"

        @pytest.mark.points(1)
        @pytest.mark.area("b")
        def test_skipped():
            pytest.skip("not counted")
    """)
    )
    for value, passed in ((12345, True), (0, False), (12345, True)):
        results, _ = run_suite(suite_dir=suite, plan={}, evidence={"x": value}, run={})
        by_name = {r.name.split("::")[-1]: r for r in results}
        assert by_name["test_value"].passed is passed and by_name["test_value"].points == 2
        assert by_name["test_skipped"].passed is False
        if not passed:
            assert by_name["test_value"].output == "x is wrong"  # the message only: no source, no constant


def test_judge_requires_points(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    with pytest.raises(RuntimeError, match="points"):
        run_suite(suite_dir=tmp_path, plan={}, evidence={}, run={})


def test_an_error_in_the_judges_own_code_says_so(tmp_path):
    (tmp_path / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.points(1)\ndef test_x(evidence):\n    evidence['missing']\n"
    )
    (result,), _ = run_suite(suite_dir=tmp_path, plan={}, evidence={}, run={})
    assert not result.passed and "internal error (KeyError" in result.output and "tell your instructor" in result.output


def test_no_installed_pytest_plugin_takes_part_in_a_suite_run(tmp_path):
    """An instructor's pytest-randomly or -xdist must not change how a suite runs: autoloading is off."""
    from importlib.metadata import entry_points

    installed = {ep.name for ep in entry_points(group="pytest11")}
    assert {"xdist", "hypothesispytest"} <= installed  # the dev environment has some: the check means something
    (tmp_path / "test_x.py").write_text(
        textwrap.dedent("""
        import pytest

        @pytest.mark.points(1)
        @pytest.mark.area("a")
        def test_plugins(request):
            names = {name for name, _ in request.config.pluginmanager.list_name_plugin()}
            assert not names & INSTALLED, sorted(names & INSTALLED)
        """).replace("INSTALLED", repr(installed))
    )
    (result,), _ = run_suite(suite_dir=tmp_path, plan={}, evidence={}, run={})
    assert result.passed, result.output


def test_a_suite_run_leaves_nothing_in_the_temporary_folder(tmp_path):
    # A process of its own, whose temporary folder is tmp_path: every fresh judging ran the suite once and
    # left an /tmp/autograder-judge-*.ini behind.
    code = (
        "from autograder.graders import get_assignment; from autograder.grading.judge.plugin import run_suite;"
        "tests, _ = run_suite(suite_dir=get_assignment('selftest').suite_dir, plan={}, evidence={}, run={});"
        "print(len(tests))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path)}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) > 0
    assert list(tmp_path.iterdir()) == []
