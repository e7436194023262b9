"""Trusted: build the autograder zip Gradescope expects (``python -m autograder gradescope-package``).

Gradescope unzips it into ``/autograder/source``, runs ``setup.sh`` once (as root) to build its image, then
``run_autograder`` for each submission, which must leave ``/autograder/results/results.json``. The zip holds
the kit without what students must never get: no reference solutions, no calibration corpus (its wrong and
hostile submissions), no nbgrader course (its source notebook holds the solutions), no tests or history::

    setup.sh  run_autograder  pyproject.toml  README.md  dnnlpy/  coursecheck/
    autograder/ (no graders/*/judge/calibration/)
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from pathlib import Path

from autograder.graders.kit import KIT_ROOT

__all__ = ["build_package", "SETUP_SH", "RUN_AUTOGRADER", "package_files", "CPU_TORCH_INDEX", "default_out"]

# PyTorch's own index of CPU-only wheels for Linux (from PyPI, "torch" on Linux is the multi-GB CUDA build).
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
# What setup.sh may hold between double quotes: no "$", backquote, quote, backslash or brace.
_URL = re.compile(r"https?://[A-Za-z0-9._~:/?#@%+=,&-]+")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image (Ubuntu; no GPU).
set -euo pipefail
cd /autograder/source
apt-get update
# util-linux: unshare and setpriv, for the sandbox's namespaces (run_autograder runs as root);
# libseccomp2: the library the sandbox builds its seccomp profile with
apt-get install -y --no-install-recommends python3.11 python3.11-venv util-linux libseccomp2
python3.11 -m venv .venv
.venv/bin/python -m pip install --upgrade pip
# torch from this wheel index (chosen when the zip was built: gradescope-package --torch-index-url); the CPU
# build by default, which is all Gradescope's machines can use and a fraction of the CUDA build's size.
TORCH_INDEX_URL="${{TORCH_INDEX_URL:-{torch_index_url}}}"
.venv/bin/python -m pip install --index-url "$TORCH_INDEX_URL" "torch>=2.4,<=2.13.0"
# Editable: the kit stays a folder of its own, which the sandbox hides all but the runner's part of.
.venv/bin/python -m pip install -e /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission: /autograder/submission/ -> /autograder/results/results.json
set -uo pipefail
root="${{AUTOGRADER_ROOT:-/autograder}}"
python="${{AUTOGRADER_PYTHON:-$root/source/.venv/bin/python}}"
cd "$root/source"
exec "$python" -m autograder.grading.gradescope.run --assignment {assignment} --root "$root" --timeout {timeout:g} \
    --visibility {visibility}
"""

_TOP = ("pyproject.toml", "README.md")
_PACKAGES = ("autograder", "coursecheck", "dnnlpy")  # coursecheck: the notebook reader the runner reads with
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}


def package_files(kit: Path = KIT_ROOT) -> list[Path]:
    """The kit's files that go into the zip, relative to the kit (see the module docstring)."""
    out = [Path(name) for name in _TOP if (kit / name).is_file()]
    for package in _PACKAGES:
        for here, dirs, files in os.walk(kit / package):
            rel = Path(here).relative_to(kit)
            dirs[:] = sorted(
                d for d in dirs if d not in _SKIP_DIRS and not (d == "calibration" and rel.name == "judge")
            )
            out += [rel / f for f in sorted(files) if not f.endswith((".pyc", ".pyo")) and f != "gradebook.db"]
    return out


def default_out(assignment: str) -> Path:
    """Where the zip goes unless told: ``dist/`` under the current folder (git ignores it in the kit)."""
    return Path("dist") / f"{assignment}-gradescope.zip"


def build_package(
    *,
    assignment: str,
    out: Path | None = None,
    timeout: float = 60.0,
    torch_index_url: str = CPU_TORCH_INDEX,
    visibility: str = "visible",
    kit: Path = KIT_ROOT,
) -> Path:
    """Write the zip for `assignment` to `out` (a .zip path; default ``default_out``); returns it. `visibility`:
    when students see their result, score and every entry alike (Gradescope's: ``after_published`` holds it
    back until grades are published)."""
    from autograder.graders import unknown_assignment
    from autograder.grading.gradescope.results import VISIBILITIES

    if error := unknown_assignment(assignment):
        raise ValueError(error)
    if not _URL.fullmatch(torch_index_url):  # it is written into setup.sh: nothing but a plain URL
        raise ValueError(
            f"--torch-index-url {torch_index_url!r} is not an http(s) URL: give a wheel index such as "
            f"{CPU_TORCH_INDEX} (CPU) or https://pypi.org/simple (PyPI's default, CUDA on Linux)"
        )
    if visibility not in VISIBILITIES:
        raise ValueError(f"--visibility {visibility!r}: choose one of {', '.join(VISIBILITIES)}")
    out = default_out(assignment) if out is None else Path(out)
    if out.suffix != ".zip":
        raise ValueError(f"{str(out)!r}: the package is a .zip file, e.g. {assignment}-gradescope.zip")
    if out.is_dir():
        raise ValueError(f"{str(out)!r} is a folder: give the zip's path, e.g. {out / f'{assignment}-gradescope.zip'}")
    out.parent.mkdir(parents=True, exist_ok=True)
    scripts = {
        "setup.sh": SETUP_SH.format(torch_index_url=torch_index_url),
        "run_autograder": RUN_AUTOGRADER.format(assignment=assignment, timeout=timeout, visibility=visibility),
    }
    executable = (stat.S_IFREG | 0o755) << 16
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, text in scripts.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = executable
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text)
        for rel in package_files(kit):
            zf.write(kit / rel, rel.as_posix())
    return out
