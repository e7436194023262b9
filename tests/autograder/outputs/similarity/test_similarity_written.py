"""What a student wrote: their code cells without the released ones, never run; a .py split at its cell marks;
what cannot be compared is said."""

from __future__ import annotations

import json

from autograder.outputs.similarity.pages import detail
from autograder.outputs.similarity.starter import same_cell
from autograder.outputs.similarity.written import EMPTY, HUGE, MAX_WRITTEN, NOT_UTF8, UNREADABLE, read_written

RELEASED = {same_cell("import torch\n"), same_cell("print('demo')")}


def _notebook(path, *sources, kind="code"):
    cells = [{"cell_type": kind, "source": s, "metadata": {}} for s in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_released_cells_are_left_out_whole_and_the_rest_is_numbered(tmp_path):
    nb = _notebook(tmp_path / "a.ipynb", "import torch\r\n", "x = 1  \n", ["print('demo')"], "y = 2")
    written = read_written(nb, root=tmp_path, released=RELEASED)
    assert written.compared and written.text == "# cell 2\nx = 1\n\n# cell 4\ny = 2\n"


def test_markdown_is_not_code(tmp_path):
    nb = _notebook(tmp_path / "a.ipynb", "all my notes", kind="markdown")
    assert read_written(nb, root=tmp_path, released=RELEASED).problem == EMPTY


def test_a_script_is_split_at_its_cell_marks(tmp_path):
    script = tmp_path / "a.py"
    script.write_text("import torch\n# %%\nx = 1\n# In[3]:\nprint('demo')\n")
    written = read_written(script, root=tmp_path, released=RELEASED)
    assert written.text == "# part 2\nx = 1\n"  # parts 1 and 3 are cells of the release
    assert written.places == {"part": "# part 2"}
    zh = read_written(script, root=tmp_path, released=RELEASED, language="zh")  # the place line in the report's words
    assert zh.text == "# 第 2 段\nx = 1\n" and zh.places == {"part": "# 第 2 段"}


def test_nothing_is_run(tmp_path):
    marker = tmp_path / "ran"
    script = tmp_path / "a.py"
    script.write_text(f"open({str(marker)!r}, 'w').write('x')\nimport os\nos._exit(3)\n")
    assert read_written(script, root=tmp_path, released=set()).compared and not marker.exists()


def test_what_cannot_be_compared_is_said(tmp_path):
    (tmp_path / "not.ipynb").write_text("{")
    (tmp_path / "blank.py").write_text("   \n")
    (tmp_path / "bytes.py").write_bytes(b"x = '\xff'\n")
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_WRITTEN // 4))
    (tmp_path / "link.py").symlink_to(tmp_path / "bytes.py")
    read = {p: read_written(tmp_path / p, root=tmp_path, released=set()) for p in ("not.ipynb", "blank.py", "link.py")}
    assert [read[p].problem for p in read] == [UNREADABLE, EMPTY, UNREADABLE]
    assert "link" in detail(read["link.py"].detail) and "链接" in detail(read["link.py"].detail, "zh")
    assert read_written(tmp_path / "bytes.py", root=tmp_path, released=set()).notes == (NOT_UTF8,)
    big = read_written(tmp_path / "big.py", root=tmp_path, released=set())
    assert big.notes == (HUGE,) and len(big.text) == MAX_WRITTEN and f"{MAX_WRITTEN:,} compared" in detail(big.detail)
    assert read_written(tmp_path / "gone.py", root=tmp_path, released=set()).problem == UNREADABLE
