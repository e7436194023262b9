"""Finding submissions in nbgrader's and flat layouts, and reading one without its outputs."""

from __future__ import annotations

import codecs
import json
import os

import pytest

from autograder.grading.submissions import (
    MAX_JSON_DEPTH,
    MAX_SUBMISSION_BYTES,
    SubmissionRefused,
    SubmissionTooLarge,
    find_submissions,
    read_submission,
    submission_root,
)

CORRECT = "def add(a, b):\n    return a + b\n"


def test_find_submissions_nbgrader_and_flat_layouts(tmp_path):
    submitted = tmp_path / "submitted"
    for student in ("alice", "bob"):
        folder = submitted / student / "selftest"
        folder.mkdir(parents=True)
        (folder / "selftest.ipynb").write_text("{}")
        (folder / ".ipynb_checkpoints").mkdir()
        (folder / ".ipynb_checkpoints" / "selftest-checkpoint.ipynb").write_text("{}")
    other = submitted / "alice" / "homework0"
    other.mkdir()
    (other / "homework0.ipynb").write_text("{}")  # another assignment's work is not graded here
    (submitted / "eve" / "homework0").mkdir(parents=True)
    (submitted / "eve" / "homework0" / "homework0.ipynb").write_text("{}")
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "carol.py").write_text(CORRECT)
    found = find_submissions([submitted, flat], assignment="selftest")
    assert sorted(found) == ["alice", "bob", "carol"]
    assert found["alice"].name == "selftest.ipynb"


def test_notebook_outputs_are_not_sent_to_the_runner(tmp_path):
    big_output = {"output_type": "stream", "name": "stdout", "text": "x" * 200_000}
    cell = {
        "cell_type": "code",
        "metadata": {"tags": ["t"]},
        "outputs": [big_output],
        "execution_count": 3,
        "source": CORRECT,
    }
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}}, "cells": [cell]}
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(nb))
    kind, text = read_submission(path)
    assert kind == "ipynb" and len(text) < 1000
    assert json.loads(text)["cells"] == [{"cell_type": "code", "source": CORRECT, "metadata": {"tags": ["t"]}}]


def test_oversized_file_is_refused_with_how_to_fix_it(tmp_path):
    path = tmp_path / "huge.py"
    with path.open("wb") as fh:  # sparse: no real disk use
        fh.truncate(MAX_SUBMISSION_BYTES + 1)
    with pytest.raises(SubmissionTooLarge, match="Clear Outputs"):
        read_submission(path)


def test_other_files_are_refused_by_name(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="neither a .py nor an .ipynb"):
        read_submission(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError, match="no submission file"):
        read_submission(tmp_path / "gone.py")


def _notebook(source: str = CORRECT) -> str:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]})


def test_links_and_special_files_are_listed_so_their_student_gets_a_refusal(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "solution.py").write_text(CORRECT)
    root = tmp_path / "submitted"
    for student in ("alice", "bob", "carol", "dave"):
        (root / student / "selftest").mkdir(parents=True)
    (root / "alice" / "selftest" / "selftest.ipynb").write_text(_notebook())
    os.symlink(tmp_path / "elsewhere" / "solution.py", root / "bob" / "selftest" / "selftest.py")
    os.rmdir(root / "carol" / "selftest")
    os.symlink(tmp_path / "elsewhere", root / "carol" / "selftest")  # the whole folder is a link
    os.mkfifo(root / "dave" / "selftest" / "selftest.py")
    os.symlink(root / "alice", root / "eve")  # a student folder that is a link to a classmate's
    found = find_submissions([root], assignment="selftest")
    assert sorted(found) == ["alice", "bob", "carol", "dave", "eve"]
    assert read_submission(found["alice"], root=root)[0] == "ipynb"
    for student, why in [
        ("bob", "symbolic link"),
        ("carol", "symbolic link"),
        ("dave", "special file"),
        ("eve", "link"),
    ]:
        with pytest.raises(SubmissionRefused, match=why):
            read_submission(found[student], root=submission_root(found[student], (root,)))


def test_a_student_with_a_real_notebook_is_graded_on_it_not_on_a_stray_link(tmp_path):
    folder = tmp_path / "submitted" / "alice" / "selftest"
    folder.mkdir(parents=True)
    (folder / "selftest.ipynb").write_text(_notebook())
    os.symlink(folder / "selftest.ipynb", tmp_path / "submitted" / "alice" / "homework0")
    assert find_submissions([tmp_path / "submitted"], assignment="selftest") == {"alice": folder / "selftest.ipynb"}


def test_submission_root_is_the_deepest_folder_given():
    assert str(submission_root("/a/b/c/x.py", ("/a", "/a/b", "/z"))) == "/a/b"
    assert submission_root("/a/bc/x.py", ("/a/b",)) is None


def test_deep_huge_or_broken_notebooks_are_refused_with_the_fix(tmp_path):
    deep = tmp_path / "deep.ipynb"
    deep.write_text("[" * 100_000 + "]" * 100_000)  # the review's notebook: RecursionError while reading it
    with pytest.raises(SubmissionRefused, match="nested too deeply.*File > Save"):
        read_submission(deep)
    meta = json.loads(_notebook())
    meta["cells"][0]["metadata"] = json.loads("[" * (MAX_JSON_DEPTH + 5) + "]" * (MAX_JSON_DEPTH + 5))
    (tmp_path / "meta.ipynb").write_text(json.dumps(meta))
    with pytest.raises(SubmissionRefused, match="nested over"):
        read_submission(tmp_path / "meta.ipynb")
    (tmp_path / "wide.ipynb").write_text("[" + "[]," * 3_000_000 + "[]]")
    with pytest.raises(SubmissionRefused, match="JSON values"):
        read_submission(tmp_path / "wide.ipynb")
    for name, text in [
        ("text.ipynb", "print('not a notebook')"),
        ("list.ipynb", "[1, 2]"),
        ("half.ipynb", '{"cells": ['),
    ]:
        (tmp_path / name).write_text(text)
        with pytest.raises(SubmissionRefused, match="not a notebook"):
            read_submission(tmp_path / name)


def test_encodings_are_read_as_python_and_jupyter_read_them(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n")
    assert "name = 'été'" in read_submission(tmp_path / "latin.py")[1]
    (tmp_path / "bom.py").write_bytes(codecs.BOM_UTF8 + CORRECT.encode())
    assert read_submission(tmp_path / "bom.py")[1] == CORRECT
    (tmp_path / "bad.py").write_bytes(b"x = '\xff\xfe\xfa'\n" + CORRECT.encode())
    assert "\ufffd" in read_submission(tmp_path / "bad.py")[1]
    (tmp_path / "bogus.py").write_bytes(b"# coding: no-such-codec\n" + CORRECT.encode())
    assert CORRECT in read_submission(tmp_path / "bogus.py")[1]
    (tmp_path / "wide.ipynb").write_bytes(_notebook().encode("utf-16"))  # UTF-16 with its BOM
    kind, text = read_submission(tmp_path / "wide.ipynb")
    assert json.loads(text)["cells"][0]["source"] == CORRECT
    (tmp_path / "escaped.ipynb").write_text(_notebook("s = '\\ud800'\n" + CORRECT))  # a lone surrogate escape
    json.loads(read_submission(tmp_path / "escaped.ipynb")[1])


def test_a_folder_nested_thousands_deep_and_undecodable_names_are_listed_without_failing(tmp_path):
    root = tmp_path / "submitted"
    deep = root / "alice"
    deep.mkdir(parents=True)
    try:
        for _ in range(1200):  # os.walk recurses in Python 3.11: this depth raised RecursionError
            deep = deep / "d"
            os.mkdir(deep)
        (deep / "hw.py").write_text(CORRECT)
        os.close(os.open(os.path.join(os.fsencode(root), b"b\xffb.py"), os.O_CREAT | os.O_WRONLY, 0o644))
        found = find_submissions([root], assignment="selftest")
        assert sorted(found) == ["alice", "b\\xffb"]  # an undecodable byte becomes \\xNN: any output can write it
        "".join(found).encode("utf-8")
        assert read_submission(found["b\\xffb"], root=root) == ("py", "")
    finally:  # shutil.rmtree recurses too (Python 3.11): pytest's clean-up of /tmp would crash on this tree
        (deep / "hw.py").unlink(missing_ok=True)
        while deep != root:
            if deep.exists():
                deep.rmdir()
            deep = deep.parent


def test_in_nbgrader_layout_a_student_is_graded_on_the_assignments_own_notebook_only(tmp_path):
    root = tmp_path / "submitted"
    zed = root / "zed" / "weight_tying"
    (zed / "checks").mkdir(parents=True)
    for name in ("weight_tying.ipynb", "zz_attempt2.ipynb", "a_first_try.ipynb", "conftest.py", "checks/x.py"):
        (zed / name).write_text("{}")  # a stub beside a solution: today's main graded each and kept the best
    renamed = root / "ren" / "weight_tying_zh"
    renamed.mkdir(parents=True)
    (renamed / "my copy.ipynb").write_text("{}")  # the only notebook, renamed: still this student's work
    (renamed / "scratch.py").write_text("")
    deep = root / "dee" / "weight_tying"
    (deep / "work").mkdir(parents=True)
    (deep / "conftest.py").write_text("")  # the release's self-check, shipped beside the notebook
    (deep / "work" / "try.ipynb").write_text("{}")
    both = root / "bo"
    for edition in ("weight_tying", "weight_tying_zh"):
        (both / edition / "deeper").mkdir(parents=True)
        (both / edition / "deeper" / "weight_tying.ipynb").write_text("{}")
    (both / "weight_tying_zh" / "weight_tying.ipynb").write_text("{}")
    found = find_submissions([root], assignment="weight_tying", also=("weight_tying_zh",), notebook="weight_tying")
    assert found == {
        "zed": zed / "weight_tying.ipynb",
        "ren": renamed / "my copy.ipynb",
        "dee": deep / "work" / "try.ipynb",  # a notebook, however deep, before a script
        "bo": both / "weight_tying" / "deeper" / "weight_tying.ipynb",  # the first edition counts, then depth
    }
    zh = find_submissions([root], assignment="weight_tying_zh", also=("weight_tying",), notebook="weight_tying")
    assert zh["bo"] == both / "weight_tying_zh" / "weight_tying.ipynb" and zh["zed"] == zed / "weight_tying.ipynb"
    flat = tmp_path / "flat"
    (flat / "ann").mkdir(parents=True)
    (flat / "ann" / "part1.ipynb").write_text("{}")
    (flat / "ann" / "part2.ipynb").write_text("{}")  # not nbgrader's layout: each notebook is a submission
    assert sorted(find_submissions([flat], assignment="weight_tying")) == ["ann/part1", "ann/part2"]


def test_a_hand_in_holds_code_unless_it_is_blank_lines_comments_and_markdown():
    """What makes a submission blank without running it: no line of code (grading.submissions.holds_code)."""
    import json

    from autograder.grading.submissions import holds_code

    assert not holds_code("py", "") and not holds_code("py", "# language: zh\n\n   # later\n")
    assert holds_code("py", "# language: zh\nclass A: pass\n")
    cells = [{"cell_type": "markdown", "source": ["x = 1"]}, {"cell_type": "code", "source": ["# YOUR CODE HERE\n"]}]
    assert not holds_code("ipynb", json.dumps({"cells": cells}))
    cells.append({"cell_type": "code", "source": "import torch"})
    assert holds_code("ipynb", json.dumps({"cells": cells}))


def test_a_py_hand_in_runs_as_as_many_parts_as_the_loader_makes():
    """RunFacts.parts: a .py file with no # %% line is one part (its pages name it "your file", never "part 1"),
    and the count is the loader's own (coursecheck.notebook.exec_source: a mark on the first line starts none)."""
    from autograder.grading.submissions import py_parts
    from coursecheck.notebook import exec_source

    for source in ("nope_1\n", "# %%\nnope_1\n# %%\nnope_2\n", "nope_1\n# %%\nnope_2\n# %% [markdown]\nnope_3\n"):
        ran = exec_source(source)  # every part raises a NameError: one error per part the loader made
        assert py_parts(source) == len(ran.errors) == source.count("nope"), source
    assert py_parts("") == 1
