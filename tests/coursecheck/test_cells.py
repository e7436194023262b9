"""coursecheck.cells: what a cell binds and reads, and the course's demonstrations a notebook's run leaves out."""

from __future__ import annotations

import nbformat
import pytest

import coursecheck.cells
from coursecheck.cells import bound_names, demo_digest, read_names
from coursecheck.notebook import load_notebook


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) if isinstance(c, str) else c for c in cells]
    return nb


def _demo(source):
    """A demonstration cell as the course's build releases it: tagged (for the reader)."""
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["demo"]
    return cell


_SHOWS = "import no_such_plotting_library\nshown = 1"  # raises if it runs
_RELEASED = {demo_digest(text) for text in (_SHOWS, "base = 2", "derived = base * 3", "def A():\n    return 1")}


def _load(nb, keep=("A",)):
    return load_notebook(nb, leave_out_demos=keep, released_demos=_RELEASED)


def test_a_released_demo_that_nothing_uses_is_left_out_and_listed():
    nb = _nb("import math", _demo(_SHOWS), "class A:\n    def f(self, x):\n        shown = x\n        return shown")
    result = _load(nb)
    assert result.errors == [] and "shown" not in result.namespace and result.skipped == [1]
    # without the option, or without the released texts' digests, every cell runs, as before
    assert load_notebook(nb).errors[0][0] == 1
    assert load_notebook(nb, leave_out_demos=("A",)).errors[0][0] == 1


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
        # issue 45: what the former list of spellings let through
        "import sys as s\nclass A:\n    def f(self):\n        return s.modules['__main__']",
        "import sys\nclass A:\n    def f(self):\n        return sys._getframe(1).f_locals['shown']",
        "import os, gc\nclass A:\n    def f(self):\n        return gc.get_referrers(self)",
        "import os\nclass A:\n    def f(self):\n        return os.sys.modules",
        "class A:\n    def f(self, frame):\n        return frame.f_locals",
        "class A:\n    def f(self):\n        try:\n            1 / 0\n        except Exception as e:\n"
        "            return e.__traceback__.tb_frame.f_globals",
        "import typing\nclass A:\n    def f(self, x: 'shown'):\n        return typing.get_type_hints(A.f)",
        "class A:\n    def f(self):\n        return print.__self__.globals()",
        "from importlib import import_module as im\nclass A:\n    def f(self):\n        return im('__main__')",
        "import pickle\nclass A:\n    def f(self, blob):\n        return pickle.loads(blob)",
        "class A:\n    def f(self):\n        return type(self).__init__.__globals__",
    ],
)
def test_a_demo_whose_names_a_cell_may_use_runs(student):
    result = _load(_nb(_demo(_SHOWS), student))
    assert result.skipped == [] and result.errors[0][0] == 0  # it ran (and raised)


@pytest.mark.parametrize(
    "student",
    [
        "import torch\nimport torch.nn as nn\nclass A(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.head = nn.Linear(2, 3)\n        print(torch.__version__)",
        "import math, numpy as np\nfrom dnnlpy.models import gpt\nclass A:\n    def f(self):\n"
        "        return np.array([math.pi]).sum()\n    def __repr__(self):\n        return 'A(...)'",
    ],
)
def test_a_correct_students_plain_code_leaves_the_demos_out(student):
    """What the exercises are written with (torch, numpy, dnnlpy, ``super().__init__()``) reaches nothing."""
    result = _load(_nb(_demo(_SHOWS), student))
    assert result.skipped == [0] and result.errors == []


def test_a_students_own_cell_tagged_demo_runs_whatever_its_metadata_says():
    """A cell whose text is not one the course released is the student's: tags and a digest of its own text
    in its metadata (what the former rule trusted) leave it in, so a failure in it reaches the report."""
    own = "class A:\n    pass\nraise RuntimeError('mine')"
    cell = _demo(own)
    cell.metadata["course_kit"] = {"demo_sha256": demo_digest(own)}
    result = _load(_nb(cell))
    assert result.skipped == [] and [i for i, _ in result.errors] == [0] and "A" in result.namespace


def test_what_a_needed_demo_uses_is_needed_in_turn_and_kept_names_count_as_used():
    first, second = _demo("base = 2"), _demo("derived = base * 3")
    result = _load(_nb(first, second, "def A():\n    return derived"))
    assert result.skipped == [] and result.namespace["A"]() == 6
    binds_kept = _demo("def A():\n    return 1")
    assert _load(_nb(binds_kept)).skipped == []
    assert _load(_nb(binds_kept), keep=()).skipped == [0]
    spelled = _load(_nb(_demo("base = 2"), "class A:\n    where = 'base'"))  # a name given as text counts
    assert spelled.skipped == []


def test_a_demo_changed_by_one_character_runs_and_its_tag_decides_nothing():
    edited = _demo("base = 2 \nraise RuntimeError('edited')")  # "base = 2" as released, a space and a line added
    untagged = nbformat.v4.new_code_cell(_SHOWS)  # the released text, its tag removed: still the course's demo
    result = _load(_nb(edited, untagged, "class A: pass"))
    assert result.skipped == [1] and [i for i, _ in result.errors] == [0]


def test_read_and_bound_names_follow_scopes_not_spelling():
    source = "import torch as t\nx = 1\nfor i in range(2): pass\ndef f(y):\n    z = y\n    return z + w\n"
    assert bound_names(source) == {"t", "x", "i", "f"}
    assert read_names(source) == {"range", "w"}  # y and z are f's own
    assert read_names("%time v = u + 1\n!ls") == {"u"}  # read as the cell runs (IPython lines made plain)
    assert read_names("def (") is None and bound_names("def (") is None


def test_public_names():
    assert sorted(coursecheck.cells.__all__) == sorted(
        [
            "strip_ipython",
            "is_test_cell",
            "DEMO_TAG",
            "demo_digest",
            "is_released_demo",
            "bound_names",
            "read_names",
            "unneeded_demos",
            "cell_facts",
            "CellFacts",
            "facts_table",
        ]
    )
