"""Both install scripts take torch from a CPU wheel index unless told otherwise, and the zip goes where asked.

The scripts run for real with stand-ins for apt-get and Python that record what they were asked: nothing
is fetched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from autograder.cli.main import main
from autograder.graders.kit import KIT_ROOT
from autograder.grading.gradescope.package import CPU_TORCH_INDEX, build_package

# A python stand-in: records its arguments; `-m venv DIR` makes DIR/bin/python, another stand-in.
FAKE_PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$CALLS"
case "$*" in *"${FAIL_ON:-no such argument}"*) exit 1 ;; esac
if [ "${1:-}" = -m ] && [ "${2:-}" = venv ]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
fi
"""


def _stand_ins(folder: Path, *names: str) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(FAKE_PYTHON if "python" in name else '#!/bin/sh\necho "$0 $*" >> "$CALLS"\n')
        (folder / name).chmod(0o755)
    calls = folder.parent / "calls.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "TORCH_")) and k != "PYTHON"}
    return {**env, "PATH": f"{folder}:{os.environ['PATH']}", "CALLS": str(calls)}


def _torch_installs(calls: Path) -> list[str]:
    return [line for line in calls.read_text().splitlines() if "pip install" in line and "torch" in line]


def _run_zip_setup(tmp_path: Path, zip_path: Path, **env) -> list[str]:
    with zipfile.ZipFile(zip_path) as zf:
        script = zf.read("setup.sh").decode()
    source = tmp_path / "source"
    source.mkdir(parents=True)
    # Gradescope's folder is /autograder/source; here the script runs in a folder of the test's own.
    (source / "setup.sh").write_text(script.replace("cd /autograder/source", f"cd {source}"))
    stand_ins = _stand_ins(tmp_path / "bin", "apt-get", "python3.11")
    proc = subprocess.run(
        ["bash", str(source / "setup.sh")], env={**stand_ins, **env}, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return _torch_installs(tmp_path / "calls.log")


def test_the_zips_setup_installs_the_cpu_build_of_torch_by_default(tmp_path):
    installs = _run_zip_setup(tmp_path, build_package(assignment="weight_tying", out=tmp_path / "wt.zip"))
    assert installs == [f"python -m pip install --index-url {CPU_TORCH_INDEX} torch>=2.4,<=2.13.0"]
    assert CPU_TORCH_INDEX == "https://download.pytorch.org/whl/cpu"


def test_the_index_is_chosen_when_packaging_and_can_still_be_overridden_in_the_image(tmp_path):
    index = "https://download.pytorch.org/whl/cu126"
    zip_path = build_package(assignment="weight_tying", out=tmp_path / "wt.zip", torch_index_url=index)
    installs = _run_zip_setup(tmp_path / "a", zip_path)
    assert installs == [f"python -m pip install --index-url {index} torch>=2.4,<=2.13.0"]
    mirror = "https://mirror.example.edu/torch-cpu/simple"
    installs = _run_zip_setup(tmp_path / "b", zip_path, TORCH_INDEX_URL=mirror)
    assert installs == [f"python -m pip install --index-url {mirror} torch>=2.4,<=2.13.0"]


@pytest.mark.parametrize("url", ["ftp://x/simple", 'https://x/"; rm -rf /; "', "https://x/$(id)", "cpu", ""])
def test_an_index_that_is_not_a_plain_url_is_refused(tmp_path, url):
    with pytest.raises(ValueError, match="not an http\\(s\\) URL"):
        build_package(assignment="weight_tying", out=tmp_path / "wt.zip", torch_index_url=url)
    assert not (tmp_path / "wt.zip").exists()


def test_the_zip_goes_to_dist_by_default_or_where_out_says(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["gradescope-package", "--assignment", "weight_tying"]) == 0
    assert (tmp_path / "dist" / "weight_tying-gradescope.zip").is_file()
    assert "dist/weight_tying-gradescope.zip" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]
    out = tmp_path / "elsewhere" / "course.zip"
    assert main(["gradescope-package", "--assignment", "weight_tying", "--out", str(out)]) == 0
    assert out.is_file()
    code = main(["gradescope-package", "--assignment", "weight_tying", "--torch-index-url", "cpu"])
    assert code == 2 and "--torch-index-url 'cpu' is not an http(s) URL" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("git") is None or not (KIT_ROOT / ".git").exists(), reason="not a git checkout")
def test_git_ignores_the_default_zip_in_the_kit():
    proc = subprocess.run(
        ["git", "check-ignore", "-q", "dist/weight_tying-gradescope.zip"], cwd=KIT_ROOT, capture_output=True
    )
    assert proc.returncode == 0


def test_scripts_setup_pip_fallback_installs_the_cpu_build_of_torch(tmp_path):
    kit = tmp_path / "kit"
    (kit / "scripts").mkdir(parents=True)
    shutil.copy(KIT_ROOT / "scripts" / "setup.sh", kit / "scripts" / "setup.sh")
    (kit / "pyproject.toml").write_text("")
    env = _stand_ins(tmp_path / "bin", "python3")  # no local torch wheel: uv is skipped, pip installs
    proc = subprocess.run(
        ["bash", str(kit / "scripts" / "setup.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert _torch_installs(tmp_path / "calls.log") == [
        f"python -m pip install --quiet --index-url {CPU_TORCH_INDEX} torch==2.13.0"
    ]
    env["TORCH_INDEX_URL"] = "https://mirror.example.edu/simple"
    (kit / ".venv" / ".kit-installed").unlink()
    (tmp_path / "calls.log").unlink()
    subprocess.run(["bash", str(kit / "scripts" / "setup.sh")], env=env, capture_output=True, timeout=60, check=True)
    installs = _torch_installs(tmp_path / "calls.log")
    assert installs == ["python -m pip install --quiet --index-url https://mirror.example.edu/simple torch==2.13.0"]


def test_scripts_setup_says_which_index_failed_and_how_to_choose_another(tmp_path):
    kit = tmp_path / "kit"
    (kit / "scripts").mkdir(parents=True)
    shutil.copy(KIT_ROOT / "scripts" / "setup.sh", kit / "scripts" / "setup.sh")
    (kit / "pyproject.toml").write_text("")
    env = {**_stand_ins(tmp_path / "bin", "python3"), "FAIL_ON": "torch=="}
    proc = subprocess.run(["bash", str(kit / "scripts" / "setup.sh")], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert f"torch did not install from {CPU_TORCH_INDEX}: set TORCH_INDEX_URL" in proc.stderr, proc.stderr
