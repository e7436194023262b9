"""What a sandbox may see: the deny-list covers every judge and the batch's folders, never the runner's code;
the allow-list is what the runner's interpreter reads, never the grader's working folder or its sys.path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autograder.graders import all_specs, get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.sandbox.runs import RUNNER_PACKAGES
from autograder.sandbox.view import build_view, hidden_paths, pth_paths

SPEC = get_assignment("weight_tying")
PACKAGES = (*RUNNER_PACKAGES, SPEC.runner_package)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _shown(view: dict) -> list[str]:
    return view["binds"] + view["kit_binds"]


def test_hidden_paths_cover_judges_but_never_the_kit_itself(tmp_path):
    kit = KIT_ROOT
    extra = (kit, kit / "autograder", kit / "autograder" / "graders", kit / "docs", tmp_path)
    hidden = hidden_paths(all_specs(), extra)
    for other in all_specs():
        assert str(other.judge_dir) in hidden and str(other.solution_path) in hidden
    assert str(SPEC.suite_dir.parents[1] / "runner") not in hidden
    for runner_code in (kit, kit / "autograder", kit / "autograder" / "graders"):
        assert str(runner_code) not in hidden
    assert str(kit / "docs") in hidden  # e.g. a batch's --out folder inside the kit
    assert str(tmp_path) in hidden  # e.g. the folder of submissions being graded


def test_the_view_shows_runner_packages_whole_and_no_judge():
    hides = list(hidden_paths(all_specs()))
    view = build_view(PACKAGES, hides)
    judge = os.path.realpath(SPEC.judge_dir)
    if view["kit_mask"] is None:
        # The kit installed inside a Python prefix: the prefix shows whole, so every judge needs its cover.
        assert any(_inside(judge, b) for b in view["binds"]), view["binds"]
        assert judge in view["hides"] and os.path.realpath(SPEC.solution_path) in view["hides"]
        return
    binds = view["kit_binds"]
    runner_dir = str(SPEC.suite_dir.parents[1] / "runner")
    assert runner_dir in binds and str(KIT_ROOT / "autograder" / "runner") in binds
    assert str(KIT_ROOT / "autograder" / "graders" / "weight_tying" / "__init__.py") in binds
    assert not any(_inside(b, judge) or _inside(judge, b) for b in _shown(view))
    assert not any(b.startswith(str(KIT_ROOT / "autograder" / "sandbox")) for b in binds)


@pytest.mark.parametrize("where", ["outside /tmp", "under /tmp"])
def test_the_view_never_shows_the_graders_working_folder_pythonpath_or_sys_path(
    where, course_dir, tmp_path, monkeypatch
):
    """`python -m autograder` run from a course folder puts that folder first on sys.path; PYTHONPATH adds
    more. None of it is what the runner's `python -I` reads, and none of it may be bound into the sandbox."""
    course = course_dir if where == "outside /tmp" else tmp_path / "course"
    (course / "source").mkdir(parents=True)
    (course / "secret.txt").write_text("the instructor's secret")
    extra = course / "lib"
    extra.mkdir()
    monkeypatch.chdir(course)
    monkeypatch.syspath_prepend(str(extra))
    monkeypatch.syspath_prepend(str(course))
    monkeypatch.setenv("PYTHONPATH", f"{course}{os.pathsep}{extra}")
    view = build_view(PACKAGES, [])
    real = os.path.realpath(course)
    for shown in _shown(view):
        assert not _inside(shown, real) and not _inside(real, shown), f"{shown} shows the course folder {real}"


def test_the_view_holds_everything_the_runners_python_reads(course_dir):
    """Every folder on the sys.path of `python -I` (as the runner starts), run from a course folder with
    PYTHONPATH set, is in the view; the course folder is not on it."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(course_dir)}
    probe = "import json, sys; print(json.dumps(sys.path))"
    out = subprocess.run([sys.executable, "-I", "-c", probe], cwd=course_dir, env=env, capture_output=True, text=True)
    paths = [os.path.realpath(p) for p in json.loads(out.stdout) if p and os.path.isdir(p)]
    assert paths, out.stderr
    view = build_view(PACKAGES, [])
    for path in paths:
        assert not _inside(path, os.path.realpath(course_dir))
        assert any(_inside(path, shown) for shown in _shown(view)), f"{path} (runner's sys.path) is not in the view"


def test_pth_files_add_their_path_lines_only(tmp_path):
    site_dir = tmp_path / "site-packages"
    (site_dir / "relative").mkdir(parents=True)
    absolute = tmp_path / "absolute"
    absolute.mkdir()
    (site_dir / "a.pth").write_text(f"# a comment\n\nrelative\n{absolute}\nmissing\nimport os; os.getcwd()\n")
    (site_dir / "b.pth").write_text("import\tsys\n")
    (site_dir / ".hidden.pth").write_text(f"{tmp_path}\n")
    (site_dir / "c.txt").write_text(f"{tmp_path}\n")
    assert pth_paths(str(site_dir)) == [str(site_dir / "relative"), str(absolute)]
    assert pth_paths(str(tmp_path / "nowhere")) == []
