"""Fixtures for the tests of the weight-tying assignment (course directory, solutions, self-check)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "assignments" / "source" / "weight_tying"
SOLUTIONS = ROOT / "solutions" / "weight_tying.py"


def load_module(path: Path, name: str):
    """Import a file that is not on sys.path (the self-check, the build script) under a unique name."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def solution_source() -> str:
    return SOLUTIONS.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def selfcheck():
    """The public self-check module exactly as it ships in the release."""
    return load_module(SOURCE / "test_weight_tying.py", "weight_tying_selfcheck_under_test")


@pytest.fixture(scope="session")
def build_script():
    return load_module(ROOT / "scripts" / "build_notebook.py", "build_notebook_under_test")
