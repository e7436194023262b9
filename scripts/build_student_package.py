"""Build the students' wheel: the book's library `dnnlpy` and the kit's notebook reader and self-check framework
`coursecheck`, without `autograder` or `solutions`.

    python scripts/build_student_package.py               # wheel into dist/student/
    python scripts/build_student_package.py --out DIR     # wheel into DIR

The root pyproject.toml installs the whole kit (library and grader) for instructors. Students get only this
wheel plus the nbgrader release folder: `pip install dnnlpy-<version>-py3-none-any.whl`, then `pytest` in the
release folder (each release's checks package is written against coursecheck, which the wheel carries beside
dnnlpy: one file to hand out). The wheel is built from a throw-away project directory holding a copy of both
packages (data files included) and a small pyproject.toml, with `pip wheel --no-build-isolation` so that no
download is needed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["ROOT", "PACKAGE", "SHIPPED", "DEPENDENCIES", "package_version", "write_project", "build_wheel", "main"]

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dnnlpy"  # the wheel's name and version are the book's library's
SHIPPED = ("coursecheck",)  # the kit's packages the wheel carries beside it (each a folder of the kit)
DEFAULT_OUT = ROOT / "dist" / "student"
# What the library, the release notebook and its self-check import. torch has the same range as the root
# pyproject (the local CPU wheel satisfies it; install torch first so that pip does not pick a CUDA build).
DEPENDENCIES = ("torch>=2.4,<=2.13.0", "numpy", "tokenizers>=0.15", "nbformat>=5.9", "pytest>=8", "matplotlib>=3.7")

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "dnnlpy"
version = "{version}"
description = "Teaching library for chapter 18.4 and the course's notebook self-check; students' package"
requires-python = ">=3.11"
dependencies = [{dependencies}]

[tool.setuptools.packages.find]
include = ["dnnlpy*", "coursecheck*"]

[tool.setuptools.package-data]
dnnlpy = ["data/*.txt"]
"""


def package_version(package: Path = PACKAGE) -> str:
    """The `__version__` string of dnnlpy/__init__.py, read without importing the package."""
    text = (package / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.M)
    if match is None:
        raise ValueError(f"no __version__ = '...' line in {package / '__init__.py'}; add one to version the wheel")
    return match.group(1)


def write_project(project: Path, package: Path = PACKAGE) -> Path:
    """Fill the empty directory `project` with pyproject.toml and clean copies of `package` and of ``SHIPPED``
    (from the kit beside `package`); returns it."""
    if not (package / "__init__.py").is_file():
        raise ValueError(f"{package} is not a Python package (no __init__.py); pass the dnnlpy/ folder")
    if project.exists() and any(project.iterdir()):
        raise ValueError(f"project directory {project} is not empty; pass a new or empty directory")
    project.mkdir(parents=True, exist_ok=True)
    for name, folder in {"dnnlpy": package, **{name: package.parent / name for name in SHIPPED}}.items():
        if not (folder / "__init__.py").is_file():
            raise ValueError(f"{folder} is not a Python package (no __init__.py): the wheel ships {name}/ from there")
        shutil.copytree(folder, project / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dependencies = ", ".join(f'"{d}"' for d in DEPENDENCIES)
    (project / "pyproject.toml").write_text(
        PYPROJECT.format(version=package_version(package), dependencies=dependencies), encoding="utf-8"
    )
    return project


def build_wheel(out: Path, package: Path = PACKAGE, python: str = sys.executable) -> Path:
    """Build the students' wheel into `out` and return its path (raises RuntimeError if pip fails)."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dnnlpy-wheel-") as tmp:
        project = write_project(Path(tmp) / "project", package)
        # Building in a separate folder keeps stale wheels in `out` from being mistaken for this one.
        built = Path(tmp) / "wheel"
        command = [
            python,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--wheel-dir",
            str(built),
            str(project),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
        wheels = sorted(built.glob("dnnlpy-*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            raise RuntimeError(f"`{' '.join(command)}` failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
        target = out / wheels[0].name
        shutil.copy2(wheels[0], target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"wheel folder (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    print(build_wheel(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
