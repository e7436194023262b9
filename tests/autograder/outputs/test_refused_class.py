"""A hand-in that tries to read the hidden suite and the solutions, graded in the real sandbox through the command
line, is named for what it tried: in grades.csv ("refused"), in the report's *Needs a look* with the paths, and on
its page, which never says its code raised NotImplementedError (issue 45: it was "blank, nothing written beyond
the starter code"). A correct hand-in graded beside it, its demonstrations run, is refused nothing."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.outputs.classview import load_class

pytestmark = pytest.mark.e2e  # a class in the real sandbox

SPEC = get_assignment("weight_tying")
STUB = """import torch.nn as nn


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        raise NotImplementedError()


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, **kwargs):
        super().__init__()
        raise NotImplementedError()
"""


def test_a_hand_in_that_reads_hidden_files_is_named_so_everywhere_a_ta_and_the_student_look(tmp_path):
    root = tmp_path / "submitted"
    root.mkdir()
    (root / "reader.py").write_text((SPEC.calibration_dir / "attacks" / "a16_read_hidden_files.py").read_text())
    (root / "stub.py").write_text(STUB)
    notebook = json.loads((KIT_ROOT / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb").read_text())
    notebook["cells"].append(  # a cell that may reach any name: every demonstration runs (plot, tokenizer)
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "import os, gc"}
    )
    (root / "good.ipynb").write_text(json.dumps(notebook))
    out = tmp_path / "graded"
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        "--assignment",
        "weight_tying",
        str(root),
        "--out",
        str(out),
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = {row.name: row for row in load_class(out).rows}
    assert {name: row.kind for name, row in rows.items()} == {"reader": "refused", "stub": "blank", "good": "graded"}
    assert rows["good"].result.score == 100 and rows["good"].result.run.refused == []
    hidden = str(KIT_ROOT / "solutions" / "weight_tying.py")
    assert ["files", hidden] in rows["reader"].result.run.refused
    report = html.unescape((out / "report.html").read_text(encoding="utf-8"))
    look = re.sub(r"<[^>]+>", "", report[report.index("<h2>Needs a look") : report.index("<h2>Class summary")])
    assert "sandbox refused" in look and f"reader: tried to reach {hidden}" in look
    assert "reader" not in look[look.index("blank") :]
    # the statistics note leaves refused hand-ins out: the class summary counts them in a row of their own (round 20)
    summary = report[report.index("<h2>Class summary") : report.index("<h2>Pass rate per area")]
    assert '<tr><th>refused by the sandbox</th><td class="num">1</td></tr>' in summary, summary
    page = html.unescape((out / "feedback" / "reader.html").read_text(encoding="utf-8"))
    assert "Your code tried to reach files the grader's sandbox does not show it" in page
    assert "NotImplementedError" not in page and "starter code" not in page and hidden not in page
    assert "Blank submission: no code, or only the starter code." in (out / "feedback" / "stub.html").read_text()
