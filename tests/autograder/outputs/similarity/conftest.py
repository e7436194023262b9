"""What the similarity tests share: the corpus generator (scripts/similarity_corpus.py, loaded by path: scripts/ is
not a package on sys.path), and a class folder made of hand-ins in either form."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from autograder.graders.kit import KIT_ROOT
from autograder.grading.submissions import find_submissions
from autograder.outputs.roster import build_roster
from autograder.outputs.similarity.detect import HandIn, class_hand_ins

CALIBRATION = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"


@pytest.fixture(scope="session")
def corpus() -> ModuleType:
    """scripts/similarity_corpus.py as a module."""
    name = "similarity_corpus"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, KIT_ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _hand_ins(folder: Path) -> list[HandIn]:
    editions = ("weight_tying", "weight_tying_zh")
    found = find_submissions([folder], assignment=editions[0], also=editions[1:], notebook="weight_tying")
    roster = build_roster(found, roots=[folder], assignment=editions[0], editions=editions[1:])
    return class_hand_ins(roster, (folder,))


@pytest.fixture(scope="session")
def hand_ins_of() -> Callable[[Path], list[HandIn]]:
    """hand_ins_of(folder): a folder's hand-ins as the similarity command finds them (either layout)."""
    return _hand_ins


@pytest.fixture
def class_of(tmp_path, corpus) -> Callable[[dict[str, tuple[str, str]]], Path]:
    """make({student: (code, form)}) -> a flat class folder; form "py", "en" or "zh" (a notebook of that edition,
    the code filled into its stubs as a student does)."""

    def make(hand_ins: dict[str, tuple[str, str]], folder: str = "class") -> Path:
        root = tmp_path / folder
        root.mkdir()
        for student, (code, form) in hand_ins.items():
            if form == "py":
                (root / f"{student}.py").write_text(code, encoding="utf-8")
            else:
                (root / f"{student}.ipynb").write_text(corpus.in_notebook(code, form), encoding="utf-8")
        return root

    return make
