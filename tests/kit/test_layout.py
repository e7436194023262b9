"""The kit's layout keeps its promises: lint-clean, the trust boundary in every docstring, small files,
and docs/architecture.md naming every module that exists (and only those)."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest

from autograder.graders.kit import KIT_ROOT

SIDES = ("Trusted", "Untrusted", "Both sides")
MAX_LINES = 400
# Data, not the kit's code: calibration submissions imitate students and attackers.
NOT_CODE = ("calibration",)


def _modules(package: str) -> list[Path]:
    return sorted(
        p
        for p in (KIT_ROOT / package).rglob("*.py")
        if "__pycache__" not in p.parts and not set(NOT_CODE) & set(p.parts)
    )


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.fail("ruff is not installed: it comes with the kit's dev extra (bash scripts/setup.sh)")
    return found


def test_ruff_check_is_clean():
    proc = subprocess.run(
        [_ruff(), "check", "--quiet", "--no-cache", "."], cwd=KIT_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_ruff_format_is_clean():
    proc = subprocess.run(
        [_ruff(), "format", "--check", "--no-cache", "."], cwd=KIT_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


@pytest.mark.parametrize(
    "path", [*_modules("autograder"), *_modules("coursecheck")], ids=lambda p: str(p.relative_to(KIT_ROOT))
)
def test_every_grader_module_says_which_side_of_the_trust_boundary_it_serves(path):
    """The grader's modules, and the notebook reader and self-check it shares with the students (coursecheck)."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring, f"{path.relative_to(KIT_ROOT)} has no module docstring"
    first = docstring.splitlines()[0]
    assert first.startswith(SIDES), f"{path.relative_to(KIT_ROOT)}: first docstring line must start with {SIDES}"


def test_no_file_is_two_concepts():
    long = []
    for package in ("autograder", "coursecheck", "dnnlpy", "scripts", "solutions", "tests"):
        for path in _modules(package):
            lines = path.read_text(encoding="utf-8").count("\n")
            if lines > MAX_LINES:
                long.append(f"{path.relative_to(KIT_ROOT)}: {lines} lines")
    assert long == [], f"over {MAX_LINES} lines (probably two concepts in one file): {long}"


def _graders() -> list[Path]:
    return sorted(p.parent for p in (KIT_ROOT / "autograder" / "graders").glob("*/spec.py"))


def test_the_architecture_map_names_every_module_and_only_modules_that_exist():
    text = (KIT_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:autograder|coursecheck|dnnlpy|scripts|solutions)/[\w/.]+?\.(?:py|sh))`", text))
    missing = sorted(n for n in named if not (KIT_ROOT / n).exists())
    assert missing == [], f"docs/architecture.md names modules that do not exist: {missing}"
    graders = _graders()
    code = [p for p in _modules("autograder") if not any(p.is_relative_to(g) for g in graders)]
    code += _modules("coursecheck")
    unnamed = [
        str(p.relative_to(KIT_ROOT))
        for p in code
        if p.name != "__init__.py" and str(p.relative_to(KIT_ROOT)) not in named
    ]
    assert unnamed == [], f"modules docs/architecture.md does not name: {unnamed}"


# A grader's folders named whole in the map: each file there is one of a kind (a hidden test, a calibration file).
WHOLE_FOLDERS = ("judge/suite/", "judge/calibration/")


def test_the_architecture_map_names_every_module_of_each_grader_and_only_ones_that_exist():
    """The grader's table names its files relative to the grader's folder (``runner/values.py``) or by a
    pattern (``messages_*.py``); every module of every grader must match one, and every name must match
    a file of some grader."""
    text = (KIT_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("A **grader** is one folder") :]
    table = table[: table.index("\n\n", table.index("|---|"))]
    paths = [row.split("|")[2] for row in table.splitlines() if row.startswith("| ") and row.count("|") >= 4]
    names = {n for column in paths for n in re.findall(r"`([\w*/.]+?\.py|[\w]+/[\w/]*/)`", column)}
    files = {
        str(p.relative_to(g))
        for g in _graders()
        for p in _modules(str(g.relative_to(KIT_ROOT)))
        if p.name != "__init__.py" and not str(p.relative_to(g)).startswith(WHOLE_FOLDERS)
    }
    folders = {str(p.relative_to(g)) + "/" for g in _graders() for p in g.rglob("*") if p.is_dir()}
    stale = sorted(n for n in names if not any(fnmatch(f, n) for f in files) and n not in folders)
    assert stale == [], f"the grader table of docs/architecture.md names files no grader has: {stale}"
    unnamed = sorted(f for f in files if not any(fnmatch(f, n) for n in names if n.endswith(".py")))
    assert unnamed == [], f"grader modules the grader table of docs/architecture.md does not name: {unnamed}"


def test_no_test_folder_on_sys_path_shadows_a_kit_package():
    """pytest puts each test file's (and conftest's) first folder without ``__init__.py`` on sys.path. If that held a
    folder named like a kit package (``tests/`` holds ``autograder/``), a process started later (a dask worker,
    a spawned pool) could import the tests' folder as a namespace ``autograder`` and miss the real modules."""
    packages = {"autograder", "coursecheck", "dnnlpy"}
    shadowing = set()
    for test in [*(KIT_ROOT / "tests").rglob("test_*.py"), *(KIT_ROOT / "tests").rglob("conftest.py")]:
        basedir = test.parent
        while (basedir / "__init__.py").exists():
            basedir = basedir.parent
        shadowing |= {f"{basedir.relative_to(KIT_ROOT)}/{name}" for name in packages if (basedir / name).is_dir()}
    assert not shadowing, f"test folders that shadow kit packages on sys.path: {sorted(shadowing)}; move the tests"


def _cache(rel: Path) -> bool:
    """A folder tools make beside the tests (__pycache__, .hypothesis, .pytest_cache): git ignores them."""
    return any(part == "__pycache__" or part.startswith(".") for part in rel.parts)


def test_the_tests_mirror_the_packages_they_test():
    """tests/autograder/grading/pool/ tests autograder/grading/pool/: a test folder names a package that exists,
    and no test sits above the package it tests (every module of autograder/ is in a package)."""
    strays = []
    for package in ("autograder", "coursecheck", "dnnlpy"):
        tests = KIT_ROOT / "tests" / package
        for folder in (p for p in tests.rglob("*") if p.is_dir() and not _cache(p.relative_to(tests))):
            if not (KIT_ROOT / package / folder.relative_to(tests) / "__init__.py").is_file():
                strays.append(f"{folder.relative_to(KIT_ROOT)}/ (no package {package}/{folder.relative_to(tests)})")
    strays += [str(p.relative_to(KIT_ROOT)) for p in (KIT_ROOT / "tests" / "autograder").glob("test_*.py")]
    assert strays == [], f"move these tests beside the package they test: {strays}"
