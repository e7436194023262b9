"""coursecheck.notebook: code cells run as a kernel would, without a kernel; reading one imports no torch."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from coursecheck.notebook import exec_source, load_notebook, strip_ipython


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    for cell in cells:
        if isinstance(cell, str):
            nb.cells.append(nbformat.v4.new_code_cell(cell))
        else:
            nb.cells.append(cell)
    return nb


def _test_cell(source, grade_id="t1"):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "locked": True,
        "points": 1,
        "grade_id": grade_id,
        "schema_version": 3,
    }
    return cell


def test_line_magics_and_shell_lines_are_skipped_rest_of_cell_runs():
    result = load_notebook(
        _nb("%matplotlib inline\n!pip install nothing\nx = 1\nif True:\n    !ls\n    y = 2", "files = !ls\nz = x + y")
    )
    assert result.errors == []
    assert (result["x"], result["y"], result["z"], result["files"]) == (1, 2, 3, None)


def test_help_lookups_are_skipped():
    result = load_notebook(_nb("import math\nmath.sqrt?\nmath??\nroot = math.sqrt(4)"))
    assert result.errors == [] and result["root"] == 2.0


def test_cell_magic_skips_the_whole_cell():
    result = load_notebook(_nb("%%bash\necho hi\nnot python at all", "a = 1"))
    assert result.errors == []
    assert result.skipped == [0]
    assert result["a"] == 1


def test_percent_inside_a_string_is_kept_when_the_cell_compiles():
    result = load_notebook(_nb('text = """\n% not a magic\n!nor a shell line\n"""'))
    assert result["text"] == "\n% not a magic\n!nor a shell line\n"


def test_failing_cell_is_recorded_and_later_cells_still_define_classes():
    result = load_notebook(_nb("class A:\n    pass", "1 / 0", "def broken(:\n    pass", "class B(A):\n    pass"))
    assert [index for index, _ in result.errors] == [1, 2]
    assert result.errors[0][1].startswith("ZeroDivisionError: ")
    assert result.errors[1][1].startswith("SyntaxError: ")
    assert issubclass(result["B"], result["A"])


def test_system_exit_in_a_cell_does_not_stop_the_notebook():
    result = load_notebook(_nb("import sys\nsys.exit(3)", "after = True"))
    assert result.errors == [(0, "SystemExit: 3")]
    assert result["after"] is True


def test_grade_cells_are_skipped_unless_asked():
    nb = _nb("x = 1", _test_cell("x = 'overwritten by a test cell'"))
    assert load_notebook(nb)["x"] == 1
    assert load_notebook(nb).skipped == [1]
    assert load_notebook(nb, skip_grade_cells=False)["x"] == "overwritten by a test cell"


def test_skip_cell_leaves_out_the_cells_it_chooses_and_lists_them():
    shown = nbformat.v4.new_code_cell("import no_such_plotting_library\nplotted = True")
    shown.metadata["tags"] = ["demo"]
    seen = []

    def skip(index, source, metadata):
        seen.append((index, source.splitlines()[0]))
        return "demo" in metadata.get("tags", [])

    result = load_notebook(_nb("a = 1", shown, _test_cell("assert a == 1"), "b = a + 1"), skip_cell=skip)
    assert result.errors == [] and result.namespace["b"] == 2 and "plotted" not in result.namespace
    assert result.skipped == [1, 2]  # the test cell is skipped before skip_cell is asked
    assert seen == [(0, "a = 1"), (1, "import no_such_plotting_library"), (3, "b = a + 1")]


def test_solution_cells_with_grade_metadata_still_run():
    cell = nbformat.v4.new_code_cell("answer = 42")
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": True,
        "locked": False,
        "points": 1,
        "grade_id": "s1",
        "schema_version": 3,
    }
    assert load_notebook(_nb(cell))["answer"] == 42


def test_markdown_cells_are_ignored_and_indices_count_all_cells():
    nb = _nb(nbformat.v4.new_markdown_cell("# title"), "raise ValueError('bad')")
    assert load_notebook(nb).errors == [(1, "ValueError: bad")]


def test_classes_live_in_a_main_like_namespace():
    result = load_notebook(_nb("class Model:\n    pass"))
    assert result["Model"].__module__ == "__main__"


def test_accepts_a_path_and_json_text(tmp_path):
    nb = _nb("value = 7")
    path = tmp_path / "sub.ipynb"
    nbformat.write(nb, path)
    assert load_notebook(path)["value"] == 7
    assert load_notebook(str(path))["value"] == 7
    assert load_notebook(nbformat.writes(nb))["value"] == 7


def test_bad_inputs_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="no notebook at"):
        load_notebook(tmp_path / "missing.ipynb")
    py = tmp_path / "sub.py"
    py.write_text("x = 1\n")
    with pytest.raises(ValueError, match="exec_source"):
        load_notebook(py)
    with pytest.raises(TypeError, match="got int"):
        load_notebook(3)
    with pytest.raises(TypeError, match="got bytes"):
        exec_source(b"x = 1")


def test_malformed_notebook_text_raises_value_error():
    with pytest.raises(ValueError, match="not valid JSON"):
        load_notebook('{"cells": [')
    with pytest.raises(ValueError, match="JSON object"):
        load_notebook("[1, 2]\n")
    with pytest.raises(ValueError, match="no 'cells' list"):
        load_notebook('{"cells": 3}')
    with pytest.raises(ValueError, match="cell 0 is a int"):
        load_notebook('{"cells": [3]}')
    with pytest.raises(ValueError, match="source is neither"):
        load_notebook('{"cells": [{"cell_type": "code", "source": 5}]}')
    bom = "\ufeff" + nbformat.writes(_nb("ok = True"))
    assert load_notebook(bom)["ok"] is True


def test_exec_source_runs_a_py_file_with_percent_cells_failing_independently():
    source = "a = 1\n# %%\nraise RuntimeError('scratch')\n# %%\nclass C:\n    pass\n"
    result = exec_source(source, "sub.py")
    assert result.errors == [(1, "RuntimeError: scratch")]
    assert result["a"] == 1 and isinstance(result["C"], type)


def test_exec_source_keeps_file_line_numbers():
    source = "x = 1\n# %%\n\n\nimport sys\nline = sys._getframe().f_lineno\n"
    assert exec_source(source, "sub.py")["line"] == 6


def test_strip_ipython_returns_none_for_non_python_cell_magics_only():
    assert strip_ipython("%%bash\necho hi") is None
    assert strip_ipython("%%time\nx = 1") == "x = 1"
    assert strip_ipython("x = 1\n%time y = 2\n%matplotlib inline") == "x = 1\ny = 2\npass"


def test_the_notebook_reader_imports_no_torch():
    """The grader's coordinator names cells with ``coursecheck.notebook`` (and the runner reads cells with
    ``coursecheck.cells``) without paying for torch or the book's library."""
    probe = (
        "import sys, coursecheck, coursecheck.notebook, coursecheck.cells, coursecheck.reach\n"
        "print(sorted(m for m in ('torch', 'dnnlpy', 'numpy') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout.strip()) == (0, "[]"), run.stderr


def test_public_names():
    import coursecheck.notebook
    import coursecheck.selfcheck

    assert sorted(coursecheck.notebook.__all__) == sorted(
        [
            "NotebookNamespace",
            "load_notebook",
            "exec_source",
            "code_cells",
            "strip_ipython",
            "syntax_message",
            "SyntaxSpot",
            "CellPlace",
            "cell_places",
            "name_cell",
            "cell_at",
        ]
    )
    assert sorted(coursecheck.selfcheck.__all__) == sorted(
        ["find_submission", "load_submission", "missing_names_message", "calls_into"]
    )


def test_display_calls_do_not_break_a_cell():
    # `display` is a kernel builtin; a cell that calls it must still define what follows the call.
    import nbformat

    from coursecheck.notebook import load_notebook

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\ndisplay(x)\ny = x + 1")])
    result = load_notebook(nb)
    assert result.errors == []
    assert result.namespace["y"] == 2


def test_timing_cell_magics_still_define_what_their_body_defines():
    # `%%time` and `%%capture` run their body in the notebook's namespace: a class defined under them exists.
    result = load_notebook(
        _nb("%%time\nclass A:\n    pass", "%%capture out\nb = 2\n%matplotlib inline", "%%bash\necho not python")
    )
    assert result.errors == []
    assert "A" in result.namespace and result.namespace["b"] == 2
    assert 2 in result.skipped  # the %%bash cell


def test_a_cell_that_does_not_compile_is_its_syntax_error_with_the_line_and_each_cell_is_announced():
    cells = ["x = 1", "def f(:\n    return 2", "y = x + 1"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    started: list[int] = []
    result = load_notebook(nb, on_cell=started.append)
    assert started == [0, 1, 2]
    assert result.errors == [(1, "SyntaxError: invalid syntax (line 1: def f(:)")]
    assert result["y"] == 2
    py = exec_source("a = 1\n# %%\nb = (\n", "x.py", on_cell=started.append)
    assert py.errors[0][0] == 1 and py.errors[0][1].startswith("SyntaxError: ") and "(line 3" in py.errors[0][1]


WORDS = {
    "full": "cell {number} (in “{heading}”, starting “{first}”)",
    "no_heading": "cell {number} (starting “{first}”)",
    "no_first": "cell {number} (in “{heading}”)",
    "bare": "cell {number}",
}


def test_a_cell_is_named_by_its_number_its_section_and_its_first_line():
    from coursecheck.notebook import CellPlace, cell_places, name_cell

    nb = _nb(
        "import torch",
        nbformat.v4.new_markdown_cell("Intro text\n\n## 3. Exercise 1: *TiedEmbeddingLM* ##\n\nmore"),
        "\n\n   torch.manual_seed(0)\nx = 1",
        nbformat.v4.new_markdown_cell("no heading here"),
        "",
        nbformat.v4.new_markdown_cell("# 4. `generate`\n### 4.1 Try it"),
        "torch.manual_seed(0)  # " + "y" * 80,
    )
    places = cell_places(nb)
    assert places == {
        0: CellPlace(1, "", "import torch"),
        2: CellPlace(3, "3. Exercise 1: TiedEmbeddingLM", "torch.manual_seed(0)"),
        4: CellPlace(5, "3. Exercise 1: TiedEmbeddingLM", ""),  # a text cell without a heading keeps the section
        6: CellPlace(7, "4.1 Try it", "torch.manual_seed(0) # " + "y" * 36 + "…"),
    }
    named = [name_cell(place, WORDS) for place in places.values()]
    assert named == [
        "cell 1 (starting “import torch”)",
        "cell 3 (in “3. Exercise 1: TiedEmbeddingLM”, starting “torch.manual_seed(0)”)",
        "cell 5 (in “3. Exercise 1: TiedEmbeddingLM”)",
        "cell 7 (in “4.1 Try it”, starting “torch.manual_seed(0) # " + "y" * 36 + "…”)",
    ]
    assert len(set(named)) == 4  # two cells starting alike are told apart by their section
    assert cell_places({"cells": "not a list"}) == {} and cell_places({"cells": [None, 3]}) == {}


def test_a_traceback_frame_in_a_cell_gives_that_cells_place():
    import traceback

    from coursecheck.notebook import CellPlace, cell_at

    nb = _nb(nbformat.v4.new_markdown_cell("# Setup"), "def f():\n    return 1 / 0", "f()")
    result = load_notebook(nb)
    assert result.errors == [(2, "ZeroDivisionError: division by zero")]
    try:
        result["f"]()
    except ZeroDivisionError as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
    assert cell_at(frame.filename) == CellPlace(2, "Setup", "def f():") and frame.lineno == 2
    assert cell_at("some_module.py") is None
