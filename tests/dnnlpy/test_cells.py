"""dnnlpy.cells: what a cell binds and reads, and the course's demonstrations a notebook's run leaves out."""

from __future__ import annotations

import hashlib

import nbformat
import pytest

import dnnlpy.cells
from dnnlpy.cells import bound_names, read_names
from dnnlpy.notebook import load_notebook


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) if isinstance(c, str) else c for c in cells]
    return nb


def _demo(source):
    """A demonstration cell as the course's build releases it: tagged, its text's digest in its metadata."""
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["demo"]
    cell.metadata["course_kit"] = {"demo_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest()}
    return cell


_SHOWS = "import no_such_plotting_library\nshown = 1"  # raises if it runs


def test_a_released_demo_that_nothing_uses_is_left_out_and_listed():
    nb = _nb("import math", _demo(_SHOWS), "class A:\n    def f(self, x):\n        shown = x\n        return shown")
    result = load_notebook(nb, leave_out_demos=("A",))
    assert result.errors == [] and "shown" not in result.namespace and result.skipped == [1]
    # without the option every cell runs, as before
    assert load_notebook(nb).errors[0][0] == 1


@pytest.mark.parametrize(
    "student",
    [
        "class A:\n    def f(self):\n        return shown",  # a global looked up in a method
        "class A:\n    size = shown",  # in a class body
        "def helper():\n    global shown\n    shown += 1\nclass A: pass",  # declared global
        "A = type('A', (), {'v': shown})",  # at the top level
        "class A:\n    def f(self):\n        return globals()['sh' + 'own']",  # reached without its name
        "import sys\nclass A:\n    def f(self):\n        return vars(sys.modules['__main__'])",
        "import inspect\nclass A:\n    def f(self):\n        return inspect.currentframe().f_globals",
        "class A:\n    def f(self):\n        from inspect import getmodule\n        return getmodule(A).shown",
        "import sys\nclass A:\n    def f(self):\n        return list(sys.modules.values())[-1]",
        "import gc\nclass A:\n    def f(self):\n        return [o for o in gc.get_objects() if o is not self]",
    ],
)
def test_a_demo_whose_names_a_cell_may_use_runs(student):
    result = load_notebook(_nb(_demo(_SHOWS), student), leave_out_demos=("A",))
    assert result.skipped == [] and result.errors[0][0] == 0  # it ran (and raised)


def test_what_a_needed_demo_uses_is_needed_in_turn_and_kept_names_count_as_used():
    first, second = _demo("base = 2"), _demo("derived = base * 3")
    result = load_notebook(_nb(first, second, "def A():\n    return derived"), leave_out_demos=("A",))
    assert result.skipped == [] and result.namespace["A"]() == 6
    binds_kept = _demo("def A():\n    return 1")
    assert load_notebook(_nb(binds_kept), leave_out_demos=("A",)).skipped == []
    assert load_notebook(_nb(binds_kept), leave_out_demos=()).skipped == [0]


def test_a_demo_changed_or_tagged_without_its_digest_runs():
    edited = _demo(_SHOWS)
    edited.source = _SHOWS + "\n"
    tagged = nbformat.v4.new_code_cell(_SHOWS)
    tagged.metadata["tags"] = ["demo"]
    result = load_notebook(_nb(edited, tagged, "class A: pass"), leave_out_demos=("A",))
    assert result.skipped == [] and [i for i, _ in result.errors] == [0, 1]


def test_read_and_bound_names_follow_scopes_not_spelling():
    source = "import torch as t\nx = 1\nfor i in range(2): pass\ndef f(y):\n    z = y\n    return z + w\n"
    assert bound_names(source) == {"t", "x", "i", "f"}
    assert read_names(source) == {"range", "w"}  # y and z are f's own
    assert read_names("%time v = u + 1\n!ls") == {"u"}  # read as the cell runs (IPython lines made plain)
    assert read_names("def (") is None and bound_names("def (") is None


def test_public_names():
    assert sorted(dnnlpy.cells.__all__) == sorted(
        ["strip_ipython", "is_test_cell", "DEMO_TAG", "is_released_demo", "bound_names", "read_names", "unneeded_demos"]
    )
