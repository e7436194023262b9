"""The grading coordinator (the CLI, the executors, the local pool) never imports torch nor what builds on it:
each worker's processes do, so the command itself starts in a fraction of a bare torch import."""

from __future__ import annotations

import json
import subprocess
import sys

# What a coordinator has no use for: torch and the libraries a graded run imports.
HEAVY = ("torch", "numpy", "matplotlib", "tokenizers", "dnnlpy.nn", "dnnlpy.models", "dnnlpy.tokenizers")

_REPORT = f"""
import json, sys
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""

_IMPORTS = """
import autograder.cli.main, autograder.cli.grade, autograder.grading.executors
import autograder.grading.pool.local, autograder.grading.pool.worker, autograder.outputs.classrun
"""

_GRADE = """
import sys
from autograder.cli.main import main
code = main(["grade", "--assignment", "selftest", "--seed", "7", sys.argv[1]])
assert code == 0, code
"""


def _heavy_after(code: str, *args: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-c", code + _REPORT, *args], capture_output=True, text=True, timeout=300, cwd="/"
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_importing_the_cli_and_the_pool_pulls_in_no_torch():
    assert _heavy_after(_IMPORTS) == []


def test_grading_a_file_on_the_pool_imports_no_torch_in_the_coordinator(tmp_path):
    path = tmp_path / "add.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    assert _heavy_after(_GRADE, str(path)) == []
