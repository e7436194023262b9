"""The environment the kit installs (pyproject.toml): what would make every nbgrader command slow again."""

from __future__ import annotations

import subprocess
import sys


def test_nbformat_imports_without_compiling_a_grammar():
    """jsonschema 4.24+ with the format-nongpl extra imports rfc3987-syntax, which builds a parser at import:
    2.3 s of CPU in each process that reads a notebook (every nbgrader command, kernel client, report)."""
    probe = "import sys, nbformat; print(sorted(m for m in sys.modules if m.startswith('rfc3987')))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", f"nbformat pulled in {proc.stdout.strip()}: keep jsonschema below 4.24"
