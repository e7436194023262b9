"""pytest over a hidden suite (``judge/pytest_suite.py``, each suite's conftest): on kept evidence its fixtures are
what the judge reads and each failure shows the kit's finding; without evidence every file is skipped saying how,
and the kit's own test run collects none; evidence that does not fit is refused naming what and the fix.

The toy ``selftest`` grader, its run made here from its own experiments (the weight_tying corpus through the real
pipeline: tests/autograder/graders/weight_tying/test_suite_on_pytest.py)."""

from __future__ import annotations

import ast
import dataclasses
import sys
import tomllib
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.graders.selftest.runner.experiments import run as experiments
from autograder.grading import pipeline
from autograder.grading.judge.kept import Kept
from autograder.grading.judge.server import judged_inputs
from autograder.grading.judge.suite import Suite
from autograder.protocol.frames import Done, Load, frame_bytes
from autograder.sandbox.limits import Isolation, Limits
from autograder.sandbox.runs import SandboxResult

SPEC = get_assignment("selftest")
SEED = 7


def _keep(folder: Path, add, *, seed: int = SEED, plan_seed: int = SEED) -> Kept:
    """A run of `add` as the runner would report it, judged by the kit's runner, kept in `folder` (the plan the
    runner measured drawn from `plan_seed`)."""
    plan = SPEC.make_plan(plan_seed)
    frames = [frame_bytes(Load.NAME, {"errors": [], "defined": ["add"]})]
    experiments({"add": add}, plan, lambda name, record: frames.append(frame_bytes(name, record)))
    box = SandboxResult(0, None, False, 0.2, "", "", b"".join([*frames, frame_bytes(Done.NAME, {})]), False, ISOLATION)
    job = pipeline.job(SPEC, plan, pipeline.Submission("py", "def add(a, b): ...", "hand-in.py"))
    run, evidence = judged_inputs(dataclasses.replace(box), SPEC, Limits())
    suite = Suite.load(SPEC.suite_dir, SPEC.scheme)
    outcomes = tuple(o.to_wire() for o in suite.run(plan=plan, evidence=evidence, run=run.to_dict()))
    suite.close()
    kept = Kept(SPEC.name, seed, Limits(), job, box, outcomes, run.to_dict())
    folder.mkdir(exist_ok=True)
    kept.write(folder)
    return kept


ISOLATION = Isolation("rlimits", ("rlimits",), ())


def _pytest(capfd, *args: str, suite: Path = SPEC.suite_dir) -> tuple[int, str]:
    """pytest over `suite` in this process: its exit code and what it printed."""
    saved_path, saved_conftest = list(sys.path), sys.modules.get("conftest")
    try:
        code = pytest.main([str(suite), "-p", "no:cacheprovider", "-rs", *args])
    finally:
        sys.path[:] = saved_path
        sys.modules.pop("conftest", None)
        if saved_conftest is not None:
            sys.modules["conftest"] = saved_conftest
    printed = capfd.readouterr()
    return int(code), printed.out + printed.err


def test_without_evidence_each_suite_file_is_skipped_saying_how(capfd):
    code, out = _pytest(capfd)
    assert (
        code == pytest.ExitCode.NO_TESTS_COLLECTED
        and "1 skipped" in out
        and " passed" not in out
        and "failed" not in out
    )
    assert "the hidden suite runs on a hand-in's kept evidence: python -m autograder grade FILE" in out
    code, out = _pytest(capfd, "--collect-only", "-q", suite=KIT_ROOT / "autograder")  # every suite, all at once
    files = len(list((KIT_ROOT / "autograder" / "graders").glob("*/judge/suite/test_*.py")))
    assert code == pytest.ExitCode.NO_TESTS_COLLECTED and f"SKIPPED [{files}] " in out, out[-1500:]


def test_the_kits_own_test_run_never_collects_a_hidden_suite():
    """pytest's default folders and the test script name tests/ only: the suites are reached by a path."""
    config = tomllib.loads((KIT_ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert config["testpaths"] == ["tests"]
    script = (KIT_ROOT / "scripts" / "test.sh").read_text()
    assert "autograder" not in script.split("exec python -m pytest", 1)[1]


@pytest.mark.parametrize("grader", ["selftest", "weight_tying"])
def test_a_suites_tests_are_what_pytest_takes_for_tests(grader):
    """What pytest's own collection would take for a test (a module function or a class named test*, Test*) is
    exactly the kit's runner's list, each taking only fixtures the conftest supplies: pytest-style functions."""
    spec = get_assignment(grader)
    suite = Suite.load(spec.suite_dir, spec.scheme)
    suite.close()
    seen = set()
    for path in sorted(spec.suite_dir.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                seen.add(f"{path.name}::{node.name}")
                assert {a.arg for a in node.args.args} <= {"plan", "evidence", "run"}, (path.name, node.name)
            assert not (isinstance(node, ast.ClassDef) and node.name.startswith("Test")), (path.name, node.name)
    assert seen == {t.name for t in suite.tests}


def test_on_kept_evidence_a_failure_shows_the_kits_finding(tmp_path, capfd):
    _keep(tmp_path, lambda a, b: a - b)
    code, out = _pytest(capfd, "--evidence", str(tmp_path), "-v")
    assert code == 1, out[-3000:]
    assert f"evidence: {tmp_path} (selftest, seed {SEED}, run ok); the kit's grade failed 2 of 2 tests" in out
    assert "test_add.py::test_same_shape FAILED" in out and "test_add.py::test_broadcast FAILED" in out
    assert "the kit's finding" in out and "names subtraction\nadd returned a - b: subtraction" in out
    assert "a failure that names no misconception\nadd(col, row) does not equal col + row" in out
    assert "not as the kit's judge had them" not in out
    code, out = _pytest(capfd, "--evidence", str(tmp_path), "-k", "broadcast", "-q")
    assert code == 1 and "1 failed, 1 deselected" in out


def test_a_correct_run_passes_every_test(tmp_path, capfd):
    _keep(tmp_path, lambda a, b: a + b)
    code, out = _pytest(capfd, "--evidence", str(tmp_path))
    assert code == 0 and "2 passed" in out and "the kit's grade failed 0 of 2 tests" in out


def test_a_verdict_the_kit_did_not_give_is_named(tmp_path, capfd):
    """After an edit of the suite (or of how a run's facts are derived), what pytest finds on the same evidence can
    differ from what the kit's judge had and decided: the summary names it."""
    kept = _keep(tmp_path / "first", lambda a, b: a - b)
    edited = [{**o, "passed": True, "finding": None} for o in kept.outcomes]
    dataclasses.replace(kept, outcomes=tuple(edited), run={**kept.run, "exit_code": 3}).write(tmp_path)
    code, out = _pytest(capfd, "--evidence", str(tmp_path))
    assert code == 1 and "the kit's grade said otherwise" in out
    assert (
        "not as the kit's judge had them with this evidence (the kit changed since it was kept, or the evidence is"
        in out
    )
    assert "the run's facts (the fixture run), test_add.py::test_same_shape, test_add.py::test_broadcast" in out


def test_evidence_measured_on_another_plan_is_refused(tmp_path, capfd):
    _keep(tmp_path, lambda a, b: a + b, seed=SEED + 1)
    code, out = _pytest(capfd, "--evidence", str(tmp_path))
    assert code == pytest.ExitCode.USAGE_ERROR, out[-2000:]
    assert f"the kit draws another plan for seed {SEED + 1} than the one the evidence" in out
    assert "keep it again with python -m autograder grade FILE --keep-evidence NEW_DIR" in out


def test_a_folder_without_kept_evidence_is_a_usage_error(tmp_path, capfd):
    code, out = _pytest(capfd, "--evidence", str(tmp_path / "absent"))
    assert code == pytest.ExitCode.USAGE_ERROR
    assert f"--evidence {str(tmp_path / 'absent')!r}: " in out and "is not a folder: keep a hand-in's evidence" in out


def test_evidence_on_another_graders_suite_names_the_right_one(tmp_path, capfd):
    _keep(tmp_path, lambda a, b: a + b)
    code, out = _pytest(capfd, "--evidence", str(tmp_path), suite=get_assignment("weight_tying").suite_dir)
    assert code == pytest.ExitCode.INTERRUPTED, out[-2000:]
    assert "is not selftest's suite, which the evidence in" in out and f"--evidence {tmp_path}" in out
