#!/usr/bin/env bash
# Create .venv at the repo root and install the kit into it (idempotent, offline-friendly).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$py" -m venv .venv
fi
stamp=.venv/.kit-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    # The CPU build first: a bare "torch" requirement would pull a multi-GB CUDA build.
    .venv/bin/python -m pip install --quiet "torch==2.13.0"
    .venv/bin/python -m pip install --quiet -e ".[dev]"
    touch "$stamp"
fi
