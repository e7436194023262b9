"""nbgrader's generate_assignment releases a kit assignment only as the build makes it (the built files are
never committed: a fresh clone has none), whichever assignment it is; one the build cannot make is refused."""

from __future__ import annotations

import shutil

import pytest

from autograder.graders import ASSIGNMENTS
from autograder.graders.kit import COURSE_DIR, KIT_ROOT
from autograder.outputs.nbgenerate import BUILD_COMMAND, CANNOT_BUILD, built_first, refusal


@pytest.fixture(scope="module")
def build_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_notebook_for_nbgenerate", KIT_ROOT / "scripts" / "build_notebook.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_release_from_an_unbuilt_or_stale_source_stops_naming_the_build(tmp_path):
    source = tmp_path / "source"  # the kit's course as scripts/test.sh leaves it: every assignment built
    shutil.copytree(COURSE_DIR / "source", source, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    hook = built_first(source)
    hook(assignment="weight_tying", student=".", notebooks=[])  # built: released as it is
    hook(assignment="selftest", student=".", notebooks=[])  # the toy too: any kit assignment is checked
    hook(assignment="homework_3", student=".", notebooks=[])  # the course's own assignment: nbgrader's business
    (source / "weight_tying_zh" / "weight_tying_checks" / "messages.py").unlink()
    with pytest.raises(SystemExit) as stopped:
        hook(assignment="weight_tying_zh", student=".", notebooks=[])
    assert BUILD_COMMAND in str(stopped.value) and "messages.py" in str(stopped.value)
    hook(assignment="weight_tying", student=".", notebooks=[])  # its own folder is as built: released
    nb = source / "weight_tying" / "weight_tying.ipynb"
    nb.write_text(nb.read_text().replace("Exercise 1", "Exercise one"))
    with pytest.raises(SystemExit, match="weight_tying.ipynb"):
        hook(assignment="weight_tying", student=".", notebooks=[])
    shutil.rmtree(source / "selftest" / "selftest_checks")
    with pytest.raises(SystemExit, match=r"--assignment selftest` in the kit") as stopped:
        hook(assignment="selftest", student=".", notebooks=[])
    assert "4 file(s) missing" in str(stopped.value) and "/selftest/selftest_checks/" in str(stopped.value)


def test_an_assignment_the_build_cannot_make_is_refused_saying_what_it_lacks(
    tmp_path, build_script, capsys, monkeypatch
):
    """A grader registered without a student side (no notebook content, no release module, no self-check): the
    build exits CANNOT_BUILD naming what is missing, and the guard refuses the release with those words."""
    monkeypatch.setitem(ASSIGNMENTS, "toy", "autograder.graders.toy.spec")
    assert build_script.main(["--assignment", "toy", "--check", "--copy", str(tmp_path)]) == CANNOT_BUILD
    said = capsys.readouterr().err
    assert "cannot build 'toy'" in said and "scripts/toy_notebook/" in said, said
    why = refusal("toy", tmp_path, CANNOT_BUILD, said)
    assert why is not None and "'toy' is not released" in why and "scripts/toy_notebook/" in why
    assert refusal("selftest", tmp_path, 0, "") is None  # as built: released
    monkeypatch.setitem(ASSIGNMENTS, "selftest_fr", "autograder.graders.selftest.spec")  # an edition with no text
    assert build_script.main(["--assignment", "selftest", "--check"]) == CANNOT_BUILD
    assert "registry grades ['selftest', 'selftest_fr']" in capsys.readouterr().err
