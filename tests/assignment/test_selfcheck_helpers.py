"""dnnlpy.selfcheck: finding and loading a submission, and the diagnoses' edge cases."""
from __future__ import annotations

import nbformat
import pytest
import torch
import torch.nn as nn

from dnnlpy.selfcheck import (diagnose_generate, diagnose_logits, diagnose_tie, find_submission,
                              load_submission, missing_names_message)

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
    with pytest.raises(FileNotFoundError, match=r"\$WEIGHT_TYING_SUBMISSION="):
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
    assert "does not define B" in message and "cell 1: ZeroDivisionError" in message


def test_diagnose_tie_transposed_head():
    embed = nn.Embedding(5, 3)
    head = nn.Parameter(embed.weight.detach().T.clone())
    assert "transposed" in diagnose_tie(embed.weight, head)
    assert diagnose_tie(embed.weight, embed.weight) is None


def test_diagnose_logits_shapes_and_bias():
    expected = torch.randn(2, 3, 7)
    assert "token ids" in diagnose_logits(expected.argmax(-1), expected)
    assert "embeddings" in diagnose_logits(torch.randn(2, 3, 4), expected)
    assert "flattened" in diagnose_logits(expected.reshape(6, 7), expected)
    assert "adds a bias" in diagnose_logits(expected + torch.randn(7), expected)
    assert diagnose_logits(expected.clone(), expected) is None


def test_diagnose_generate_dtype_and_prompt():
    prompt = torch.tensor([[1, 2]])
    expected = torch.tensor([[1, 2, 3, 4]])
    assert "int64" in diagnose_generate(expected.float(), prompt, expected)
    assert "start with the prompt" in diagnose_generate(torch.tensor([[0, 2, 3, 4]]), prompt, expected)
    assert "(B, T + max_new_tokens)" in diagnose_generate(torch.tensor([[1, 2, 3]]), prompt, expected)
    assert diagnose_generate(expected.clone(), prompt, expected) is None
