#!/usr/bin/env bash
# Create .venv at the repo root and install the kit into it (idempotent, offline-friendly).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$py" -m venv .venv
fi
# The kit's own modules as bytecode, brought up to date on every call (quick when nothing changed). The
# editable install leaves them as sources, and with PYTHONDONTWRITEBYTECODE set (as on CI machines) every
# new interpreter (sandbox, judge, CLI, kernel, self-check) would compile them again: ~0.7 s of CPU each.
# Calibration files are student-like data, some of them not Python at all. A module that does not compile is
# left for the tests to report with its traceback; a read-only checkout simply runs from the sources.
compile_kit() {
    .venv/bin/python -m compileall -q -x '/calibration/' dnnlpy autograder >/dev/null || true
}
# The CPU build of torch 2.13.0 as a wheel file in one of pip's find-links folders, if the machine has one.
local_torch_wheel() {
    local dir whl
    for dir in ${PIP_FIND_LINKS:-} $(.venv/bin/python -m pip config get global.find-links 2>/dev/null || true); do
        for whl in "${dir#file://}"/torch-2.13.0+cpu-*.whl; do
            if [ -f "$whl" ]; then
                echo "$whl"
                return 0
            fi
        done
    done
    return 1
}

# uv installs the same packages in about a third of pip's time (parallel downloads and unpacking). It is used
# only with a local CPU wheel of torch, given by path: a bare torch requirement would pull a CUDA build.
# --compile-bytecode as pip does: without .pyc files (and with PYTHONDONTWRITEBYTECODE set, as on CI machines)
# every new interpreter would compile torch's and Jupyter's sources again, which slows the tests twofold.
install_with_uv() {
    local wheel
    # uv does not read pip's configuration: pass on an index the machine's pip is told to use.
    if [ -n "${PIP_INDEX_URL:-}" ]; then export UV_INDEX_URL="$PIP_INDEX_URL"; fi
    wheel="$(local_torch_wheel)" &&
        .venv/bin/python -m pip install --quiet uv 2>/dev/null &&
        .venv/bin/python -m uv pip install --quiet --compile-bytecode --python .venv/bin/python "$wheel" &&
        .venv/bin/python -m uv pip install --quiet --compile-bytecode --python .venv/bin/python -e ".[dev]"
}

install_with_pip() {
    .venv/bin/python -m pip install --quiet --upgrade pip &&
        # The CPU build first: a bare "torch" requirement would pull a multi-GB CUDA build.
        .venv/bin/python -m pip install --quiet "torch==2.13.0" &&
        .venv/bin/python -m pip install --quiet -e ".[dev]"
}

stamp=.venv/.kit-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    if ! install_with_uv; then
        echo "setup: installing with pip (uv or a local CPU wheel of torch is not available)" >&2
        install_with_pip
    fi
    touch "$stamp"
fi
compile_kit
