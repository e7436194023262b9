"""Cell constructors for the weight-tying notebook.

`md(...)` is a markdown cell, `code(...)` a plain code cell, `solution("Name")` a solution cell whose code is
class `Name` copied from solutions/weight_tying.py, and `test(...)` an nbgrader test cell (read-only for
students; its `hidden` part is stripped from the release and put back at autograde time).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Cell", "md", "code", "solution", "test"]


class Cell(NamedTuple):
    kind: str  # "markdown", "code", "solution" or "test"
    source: str  # text; for "solution", the class name in solutions/weight_tying.py
    grade_id: str = ""  # nbgrader's unique id (solution and test cells)
    points: int = 0  # test cells only
    hidden: str = ""  # test cells only: the hidden tests


def md(text: str) -> Cell:
    return Cell("markdown", text.strip("\n"))


def code(text: str) -> Cell:
    return Cell("code", text.strip("\n"))


def solution(class_name: str) -> Cell:
    return Cell("solution", class_name, grade_id=f"solution_{class_name}")


def test(grade_id: str, points: int, title: str, visible: str, hidden: str) -> Cell:
    # The messages come from weight_tying_diagnosis.py (shipped next to the notebook): the hidden suite and
    # the self-check name each misconception with the same words.
    head = (
        f"# Tests: {title} ({points} points; read-only)\n"
        "import warnings\n"
        "warnings.simplefilter('ignore')  # output on stderr would zero this cell when graded\n"
        "import math\nimport torch\nimport torch.nn.functional as F\nfrom dnnlpy.models import gpt\n"
        "from weight_tying_diagnosis import (generated_ids_problem, gradient_problem, greedy_problem,\n"
        "                                    logits_problem, tie_problem)\n\n"
    )
    return Cell("test", head + visible.strip("\n"), grade_id=grade_id, points=points, hidden=hidden.strip("\n"))
