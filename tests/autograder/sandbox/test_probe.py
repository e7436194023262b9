"""As root the grader never falls back to running student code unisolated without being asked.

A kit run with another checkout's venv once made both strong modes fail to start, and the probe quietly
chose ``rlimits``: the calibration attacks then wrote into the other checkout and left a daemon behind,
and ``calibrate`` still said ok.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.graders.kit import KIT_ROOT
from autograder.sandbox import SandboxResult, SandboxUnavailable, launch

ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="the strong modes need root; a student's laptop gets rlimits")


@pytest.fixture
def fresh_probe(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SANDBOX_MODE", raising=False)
    launch.probe_isolation.cache_clear()
    yield launch.probe_isolation
    launch.probe_isolation.cache_clear()


def _failing(**kwargs):
    return SandboxResult(
        exit_code=1,
        signal=None,
        timed_out=False,
        wall_seconds=0.1,
        stdout="",
        stderr="python: No module named 'autograder'\n",
        evidence=b"",
        evidence_overflow=False,
        isolation=None,
    )


@ROOT
def test_as_root_a_sandbox_that_does_not_start_is_an_error_naming_why_and_the_way_out(fresh_probe, monkeypatch):
    monkeypatch.setattr(launch, "run_sandboxed", _failing)
    with pytest.raises(SandboxUnavailable) as caught:
        fresh_probe()
    message = str(caught.value)
    assert "namespaces: python: No module named 'autograder'" in message
    assert "uid: python: No module named 'autograder'" in message
    assert "bash scripts/setup.sh" in message and "AUTOGRADER_SANDBOX_MODE=rlimits" in message


@ROOT
def test_the_weak_mode_is_had_only_by_asking_for_it(fresh_probe, monkeypatch):
    monkeypatch.setattr(launch, "run_sandboxed", _failing)
    monkeypatch.setenv("AUTOGRADER_SANDBOX_MODE", "rlimits")
    assert fresh_probe().mode == "rlimits"


@ROOT
def test_this_machine_gives_the_tests_the_namespaces_mode(fresh_probe):
    """CI runs as root with util-linux: every sandbox test below skips unless this holds, so it must not skip."""
    assert fresh_probe().mode == "namespaces"


@pytest.mark.e2e
@ROOT
def test_a_kit_copy_run_with_another_checkouts_venv_refuses_to_grade(tmp_path):
    kit = tmp_path / "kit"
    for part in ("autograder", "dnnlpy"):
        shutil.copytree(Path(KIT_ROOT) / part, kit / part, ignore=shutil.ignore_patterns("__pycache__"))
    submission = kit / "autograder/graders/selftest/judge/calibration/correct/plus.py"
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_SANDBOX_MODE"}
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--assignment", "selftest", "--seed", "1", str(submission)],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "SandboxUnavailable" in proc.stderr and "AUTOGRADER_SANDBOX_MODE=rlimits" in proc.stderr
