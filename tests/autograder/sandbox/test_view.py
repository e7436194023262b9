"""What a sandbox may see: the deny-list covers every judge and the batch's folders, never the runner's code."""

from __future__ import annotations

from autograder.graders import all_specs, get_assignment
from autograder.kit import KIT_ROOT
from autograder.sandbox.view import build_view, hidden_paths


def test_hidden_paths_cover_judges_but_never_the_kit_itself(tmp_path):
    kit = KIT_ROOT
    spec = get_assignment("weight_tying")
    extra = (kit, kit / "autograder", kit / "autograder" / "graders", kit / "docs", tmp_path)
    hidden = hidden_paths(all_specs(), extra)
    for other in all_specs():
        assert str(other.judge_dir) in hidden and str(other.solution_path) in hidden
    assert str(spec.suite_dir.parents[1] / "runner") not in hidden
    for runner_code in (kit, kit / "autograder", kit / "autograder" / "graders"):
        assert str(runner_code) not in hidden
    assert str(kit / "docs") in hidden  # e.g. a batch's --out folder inside the kit
    assert str(tmp_path) in hidden  # e.g. the folder of submissions being graded


def test_the_view_shows_runner_packages_whole_and_no_judge():
    spec = get_assignment("weight_tying")
    view = build_view(("autograder.runner", "autograder.protocol", spec.runner_package), [])
    if view["kit_mask"] is None:  # the kit installed inside a Python prefix: nothing to mask
        return
    binds = view["kit_binds"]
    runner_dir = str(spec.suite_dir.parents[1] / "runner")
    assert runner_dir in binds and str(KIT_ROOT / "autograder" / "runner") in binds
    assert str(KIT_ROOT / "autograder" / "graders" / "weight_tying" / "__init__.py") in binds
    assert not any(b.startswith(str(spec.judge_dir)) for b in binds)
    assert not any(b.startswith(str(KIT_ROOT / "autograder" / "sandbox")) for b in binds)
