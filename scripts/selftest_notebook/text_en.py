"""The selftest notebook's only edition: one markdown text per key of ``CELLS`` (`{{name}}` is filled by the build)."""

from __future__ import annotations

__all__ = [
    "LANGUAGE",
    "TEXT",
    "AREA_NAMES",
    "AREA_SPLIT",
    "TABLE_HEADER",
    "JOIN_WRAPPED_LINES",
    "PRINTED",
    "PRACTICE_CHECK",
    "README",
    "COMMENTS",
]

LANGUAGE = "en"
AREA_NAMES: dict[str, str] = {}  # graded areas are named as the grader names them
JOIN_WRAPPED_LINES = False
TABLE_HEADER = ("graded area", "points", "total")
AREA_SPLIT = {"both": "", "one": "exercise {n}"}  # one exercise: an area's points are all its (unused in TEXT)
COMMENTS: dict[str, str] = {}
PRACTICE_CHECK = "Practice check ({group}): 0 points, the hidden suite grades"
PRINTED: dict[str, str] = {}

TEXT = {
    "intro": r"""
# Self-test: `add`

A toy assignment the course kit tests itself with: one function to write, graded by the kit's hidden suite
({{total}} points) and previewed by a self-check, `pytest` in this folder (each cell and each check within
{{step_seconds}} s, the whole run within {{run_minutes}} minutes).

{{points_table}}
""",
    "exercise": r"""
## 1. Exercise: `add`

Write `add(a, b)`: the elementwise sum of two tensors, broadcast as torch broadcasts (shapes `(3, 1)` and `(1, 5)`
give `(3, 5)`), returned as a plain `torch.Tensor`.
""",
    "grading": r"""
## Grading

The cells below hold the grader's score for each graded area, {{total}} points in all.
""",
    "graded_area": r"""
**Graded area: {{area}}** ({{points}} of the {{total}} points), scored by the hidden suite.
""",
}

# The release folder's README.md (the build fills {{folder}}, {{wheel}} and {{torch}}).
README = """
# Self-test: your assignment

This folder is the assignment: `selftest.ipynb`, the notebook you fill in, and its self-check (`pytest`, with the
files it reads in `selftest_checks/`). Install the course library, the file `{{wheel}}`, after PyTorch
(`pip install "{{torch}}"`, its CPU build).

```bash
cd {{folder}}
jupyter lab selftest.ipynb    # write add, then save
pytest                        # checks selftest.ipynb as it is saved on disk
```

`SELFTEST_SUBMISSION=copy.ipynb pytest` checks another file; `SELFTEST_LANG=zh pytest` gives the messages in
Chinese. Hand in the folder the way your course collects it.
"""
