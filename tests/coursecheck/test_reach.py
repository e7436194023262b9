"""coursecheck.reach: what can reach a notebook's names without naming them is read from the syntax tree, not
spelling."""

from __future__ import annotations

import ast

import pytest

from coursecheck.reach import MODULES, reaches, spelled_names


@pytest.mark.parametrize(
    "code",
    [
        "import sys as s\nm = s.modules",
        "import  sys\nm = sys .\\\n  modules",  # spacing and a line break
        "from sys import modules as found",
        "import os, gc",
        "x = os.sys",
        "y = frame.f_back",
        "z = gen.gi_frame",
        "w = f.__globals__",
        "v = obj.__dict__",
        "u = object.__subclasses__()",
        "t = sys._getframe",
        "s = getattr(mod, name)",
        "r = eval(text)",
        "q = __builtins__",
        "from torch import sys",
        "from . import helper",
        "import matplotlib.pyplot as plt",  # a module not listed may hand anything out: it counts
    ],
)
def test_each_way_to_reach_names_counts(code):
    assert reaches(ast.parse(code))


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nimport torch.nn as nn\nfrom torch import Tensor\nimport dnnlpy.nn as dnn",
        "import math, warnings, numpy as np\nfrom __future__ import annotations",
        "class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.eval()",
        "print(torch.__version__, type(x).__name__, x.__class__)",
        "if __name__ == '__main__':\n    pass",
    ],
)
def test_what_the_exercises_are_written_with_reaches_nothing(code):
    assert not reaches(ast.parse(code))


def test_a_string_without_spaces_names_its_words_and_a_sentence_names_none():
    tree = ast.parse("hint = 'Optional[shown]'\npath = '__main__.base'\ndoc = 'the shown table and its base'")
    assert spelled_names(tree) == {"Optional", "shown", "__main__", "base"}


def test_the_modules_a_notebook_needs_hand_out_no_frame_nor_module():
    assert {"torch", "numpy", "math", "dnnlpy"} <= MODULES
    assert not {"sys", "inspect", "gc", "builtins", "importlib", "ctypes", "pickle", "operator"} & MODULES
