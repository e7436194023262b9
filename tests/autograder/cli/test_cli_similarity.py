"""`python -m autograder similarity` (and the options `grade` shares with it): either class layout, a graded folder's
grades.csv and report written again with similar_to, the folder's threshold kept, readable errors."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from autograder.cli.main import main
from autograder.graders.kit import KIT_ROOT

CALIBRATION = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"


@pytest.fixture(scope="module")
def corpus():
    spec = importlib.util.spec_from_file_location("similarity_corpus", KIT_ROOT / "scripts" / "similarity_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("similarity_corpus", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def submitted(tmp_path, corpus):
    """nbgrader's layout: alice in English, bob (a disguised copy of alice's) in Chinese, carol in both editions
    (her later one graded), dave in English."""
    read = lambda rel: (CALIBRATION / rel).read_text(encoding="utf-8")  # noqa: E731
    hand_ins = {
        ("alice", "weight_tying"): read("correct/c06_custom_init_after_tie.py"),
        ("bob", "weight_tying_zh"): read("similarity/copies/c06_custom_init_after_tie__all.py"),
        ("carol", "weight_tying"): read("correct/c02_reverse_tie.py"),
        ("carol", "weight_tying_zh"): read("correct/c02_reverse_tie.py"),
        ("dave", "weight_tying"): read("correct/c10_forward_by_parts.py"),
    }
    for (student, edition), code in hand_ins.items():
        folder = tmp_path / "submitted" / student / edition
        folder.mkdir(parents=True)
        language = "zh" if edition.endswith("_zh") else "en"
        (folder / "weight_tying.ipynb").write_text(corpus.in_notebook(code, language), encoding="utf-8")
        (folder / "timestamp.txt").write_text(
            "2026-05-04 09:30:00 UTC" if language == "en" else "2026-05-04 10:00:00 UTC"
        )
    return tmp_path / "submitted"


def test_a_class_in_nbgraders_layout_across_editions(submitted, tmp_path, capsys):
    assert main(["similarity", "--assignment", "weight_tying", str(submitted), "--out", str(tmp_path / "out")]) == 0
    said = capsys.readouterr().out
    assert "similarity: 4 hand-ins compared, 1 pair(s) at 60% or more" in said
    found = json.loads((tmp_path / "out" / "similarity.json").read_text())
    assert [(p["a_name"], p["b_name"]) for p in found["pairs"]] == [("alice", "bob")]
    assert (tmp_path / "out" / "similarity.html").is_file() and (tmp_path / "out" / found["pairs"][0]["page"]).is_file()
    assert not (tmp_path / "out" / "grades.csv").exists()  # a folder that was never graded gets no grades


def test_a_chinese_ta_gets_the_pass_in_chinese(submitted, tmp_path, capsys):
    """--language zh: the summary line, similarity.html and the side-by-side pages in the report's Chinese words."""
    out = tmp_path / "out"
    assert (
        main(["similarity", "--assignment", "weight_tying", str(submitted), "--out", str(out), "--language", "zh"]) == 0
    )
    assert "相似度检查：比较了 4 份提交，相似度达到 60% 或以上的有 1 对，详见 " in capsys.readouterr().out
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert '<h1 id="similar">Weight Tying 作业：代码相似的提交</h1>' in page and "Similar hand-ins" not in page
    pair = json.loads((out / "similarity.json").read_text())["pairs"][0]["page"]
    assert "alice 与 bob：相似的代码" in (out / pair).read_text(encoding="utf-8")


def test_the_folders_threshold_is_kept_until_another_is_given(submitted, tmp_path, capsys):
    out = ["--out", str(tmp_path / "out")]
    assert main(["similarity", "--assignment", "weight_tying", str(submitted), *out, "--threshold", "99%"]) == 0
    assert main(["similarity", "--assignment", "weight_tying", str(submitted), *out]) == 0
    assert json.loads((tmp_path / "out" / "similarity.json").read_text())["threshold"] == 0.99
    assert "4 hand-ins compared, no pair at 99% or more" in capsys.readouterr().out.splitlines()[-1]
    zh = ["--out", str(tmp_path / "out"), "--language", "zh"]
    assert main(["similarity", "--assignment", "weight_tying", str(submitted), *zh]) == 0
    # not "相似度达到 99% 或以上的有 0 对" (issue 48)
    assert "，没有哪两份提交的相似度达到 99%，详见 " in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["similarity", "--assignment", "nope", ".", "--out", "x"], "unknown assignment 'nope'"),
        (["similarity", "--assignment", "weight_tying", "no/such/dir", "--out", "x"], "'no/such/dir' does not exist"),
        (["grade", "--assignment", "weight_tying", ".", "--no-similarity", "--archive", "a"], "drop them or"),
    ],
)
def test_bad_arguments_are_named_with_the_fix(args, needle, capsys):
    assert main(args) == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize("value", ["2", "0", "-0.5", "half", "150%"])
def test_a_threshold_is_a_share(value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["similarity", "--assignment", "weight_tying", ".", "--out", "x", "--threshold", value])
    assert exc.value.code == 2 and repr(value) in capsys.readouterr().err


def test_an_empty_folder_is_an_error_that_says_where(tmp_path, capsys):
    assert main(["similarity", "--assignment", "weight_tying", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no .py/.ipynb hand-ins found under" in capsys.readouterr().err
