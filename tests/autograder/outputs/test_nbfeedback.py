"""The feedback preprocessor: a cell with hidden tests keeps one sentence of output, nothing of the tests."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.outputs.nbfeedback import HideHiddenTestOutputs

HIDDEN = "assert f(1) == 1\n### BEGIN HIDDEN TESTS\nassert f(2) == 5, 'the secret value 5'\n### END HIDDEN TESTS\n"


def test_hidden_test_outputs_are_replaced_and_other_cells_keep_theirs():
    traceback = ["AssertionError Traceback", "----> 3 assert f(2) == 5, 'the secret value 5'"]
    failed = new_code_cell(HIDDEN, execution_count=3)
    failed.outputs = [new_output("error", ename="AssertionError", evalue="the secret value 5", traceback=traceback)]
    passed = new_code_cell(HIDDEN, execution_count=4)
    passed.outputs = [new_output("stream", name="stdout", text="checked 5\n")]
    visible = new_code_cell("print(f(1))", execution_count=5)
    visible.outputs = [new_output("stream", name="stdout", text="1\n")]
    nb, _ = HideHiddenTestOutputs().preprocess(new_notebook(cells=[failed, passed, visible]), {})
    assert [o["text"] for o in nb.cells[0].outputs] == [
        "This cell runs hidden tests: their code and their messages are not shown in feedback. They did not pass.\n"
    ]
    assert nb.cells[1].outputs[0]["text"].endswith("They passed.\n") and "5" not in nb.cells[1].outputs[0]["text"]
    assert nb.cells[2].outputs[0]["text"] == "1\n"
    assert "secret" not in str(nb.cells[0].outputs)
