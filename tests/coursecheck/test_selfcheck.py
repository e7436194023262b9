"""coursecheck.selfcheck: finding and loading a submission, naming what it does not define, watching its calls."""

from __future__ import annotations

import sys

import nbformat
import pytest
import torch

import coursecheck.selfcheck
from coursecheck.selfcheck import calls_into, find_submission, load_submission, missing_names_message
from dnnlpy.models import gpt, sampling

ENV = "WEIGHT_TYING_SUBMISSION"


def test_find_submission_defaults_to_the_notebook_in_the_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    (tmp_path / "weight_tying.ipynb").write_text("{}")
    assert find_submission(tmp_path, default_name="weight_tying.ipynb", env_var=ENV) == tmp_path / "weight_tying.ipynb"


def test_find_submission_honours_the_env_var_and_names_bad_values(tmp_path, monkeypatch):
    other = tmp_path / "answer.py"
    other.write_text("x = 1\n")
    monkeypatch.setenv(ENV, str(other))
    assert find_submission(tmp_path / "nowhere", default_name="weight_tying.ipynb", env_var=ENV) == other
    monkeypatch.setenv(ENV, str(tmp_path / "missing.ipynb"))
    with pytest.raises(FileNotFoundError, match=r"the path WEIGHT_TYING_SUBMISSION names: set it to"):
        find_submission(tmp_path, default_name="weight_tying.ipynb", env_var=ENV)
    (tmp_path / "notes.txt").write_text("")
    monkeypatch.setenv(ENV, str(tmp_path / "notes.txt"))
    with pytest.raises(ValueError, match="neither a .ipynb nor a .py"):
        find_submission(tmp_path, default_name="weight_tying.ipynb", env_var=ENV)


def test_load_submission_reads_notebooks_and_py_files(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%matplotlib inline\nclass A:\n    pass")]
    nbformat.write(nb, tmp_path / "sub.ipynb")
    (tmp_path / "sub.py").write_text("class A:\n    pass\n")
    assert "A" in load_submission(tmp_path / "sub.ipynb")
    assert "A" in load_submission(tmp_path / "sub.py")
    with pytest.raises(ValueError, match="expected a .ipynb or .py"):
        load_submission(tmp_path / "sub.txt")


def test_missing_names_message_lists_failing_cells(tmp_path):
    (tmp_path / "sub.py").write_text("class A:\n    pass\n# %%\n1 / 0\n")
    result = load_submission(tmp_path / "sub.py")
    assert missing_names_message(result, ["A"], "sub.py") is None
    message = missing_names_message(result, ["A", "B"], "sub.py")
    assert (
        "does not define B" in message and "cell 2: ZeroDivisionError" in message and "counted from 1" in message
    )  # as the grader counts


def test_the_teaching_library_carries_no_assignment_text():
    text = open(coursecheck.selfcheck.__file__, encoding="utf-8").read()
    for word in ("lm_head", "token_embed", "tying", "tied"):
        assert word not in text, word


def test_calls_into_sees_aliases_bound_methods_and_nested_calls():
    model = gpt.MiniGPT(20, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16)
    prompt = torch.tensor([[1, 2]])
    alias = sampling.greedy  # bound before watching, as `from dnnlpy.models.sampling import greedy` would
    with calls_into([gpt.MiniGPT.generate, sampling.greedy, sampling.sample_next_token]) as called:
        model.generate(prompt, 2)  # decorated method; calls sample_next_token, which calls greedy
        alias(torch.zeros(1, 3))
    assert called == ["MiniGPT.generate", "sample_next_token", "greedy"]


def test_calls_into_ignores_other_calls_and_restores_the_profiler():
    model = gpt.MiniGPT(20, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16)
    seen = []

    def previous(frame, event, arg):
        seen.append(event)

    sys.setprofile(previous)
    try:
        with calls_into([gpt.MiniGPT.generate, sampling.greedy]) as called:
            model(torch.tensor([[1, 2]])).argmax(-1)  # a forward pass and torch.argmax: not decoding helpers
        assert sys.getprofile() is previous
    finally:
        sys.setprofile(None)
    assert called == []
    with pytest.raises(TypeError, match="watches Python functions"):
        with calls_into([len]):
            pass


def test_each_error_carries_a_language_free_reason_for_the_self_check_to_word(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "missing.ipynb"))
    with pytest.raises(FileNotFoundError) as error:
        find_submission(tmp_path, default_name="weight_tying.ipynb", env_var=ENV)
    assert error.value.reason == "no_submission_env"
    assert error.value.params == {"var": ENV, "value": repr(str(tmp_path / "missing.ipynb"))}
    monkeypatch.delenv(ENV)
    with pytest.raises(FileNotFoundError) as error:
        find_submission(tmp_path, default_name="weight_tying.ipynb", env_var=ENV)
    assert (error.value.reason, error.value.params["var"]) == ("no_submission_default", ENV)
    (tmp_path / "broken.ipynb").write_text("{not json")
    with pytest.raises(ValueError) as error:
        load_submission(tmp_path / "broken.ipynb")
    assert error.value.reason == "unreadable" and error.value.params == {"error": str(error.value)}
