"""What the kit's own tests share: the scripts under test, imported from scripts/ (not a package on sys.path)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def script() -> Iterator[Callable[[str], ModuleType]]:
    """script("marks_dump"): scripts/marks_dump.py as a module, imported once for the session and registered under
    its name while the session runs (a dataclass of it looks its module up)."""
    loaded: dict[str, ModuleType] = {}

    def load(name: str) -> ModuleType:
        if name not in loaded:
            spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            loaded[name] = module
        return loaded[name]

    yield load
    for name, module in loaded.items():
        if sys.modules.get(name) is module:
            del sys.modules[name]
