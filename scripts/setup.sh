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

# The CPU build first, from PyTorch's CPU wheel index (TORCH_INDEX_URL chooses another, e.g. a CUDA one or a
# mirror): from PyPI, a bare "torch" requirement on Linux pulls a multi-GB CUDA build.
TORCH_INDEX_URL="${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}"
install_with_pip() {
    .venv/bin/python -m pip install --quiet --upgrade pip &&
        { .venv/bin/python -m pip install --quiet --index-url "$TORCH_INDEX_URL" "torch==2.13.0" ||
            { echo "setup: torch did not install from $TORCH_INDEX_URL: set TORCH_INDEX_URL to an index this" \
                "machine reaches (a PyPI mirror serves the CUDA build on Linux)" >&2 && false; }; } &&
        .venv/bin/python -m pip install --quiet -e ".[dev]"
}

# The sandbox builds its seccomp profile with the system's libseccomp (autograder/sandbox/seccomp.py). Debian
# and Ubuntu ship it almost always (systemd needs it); where it is missing, install it as root, or say what the
# isolation report will say: runs get no seccomp filter.
ensure_libseccomp() {
    if ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2'; then
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y --no-install-recommends libseccomp2 >/dev/null 2>&1 ||
            { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends libseccomp2 >/dev/null 2>&1; } ||
            echo "setup: could not install libseccomp2; sandboxed runs will have no seccomp filter" >&2
    else
        echo "setup: libseccomp.so.2 not found: install libseccomp2 (as root), or runs get no seccomp filter" >&2
    fi
}

stamp=.venv/.kit-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    if ! install_with_uv; then
        echo "setup: installing with pip (uv or a local CPU wheel of torch is not available)" >&2
        install_with_pip
    fi
    touch "$stamp"
fi
ensure_libseccomp
compile_kit
