#!/usr/bin/env bash
# Set up .venv if needed, then run the kit's tests, sandbox included, in three tiers:
#   bash scripts/test.sh            everything through the kit's Python API (sandbox, warm pool, judge, grader,
#                                   outputs, dnnlpy, the notebook's checks), and the samples of the sweeps
#   bash scripts/test.sh -m e2e     documented commands and outside tools end to end: nbgrader release, autograde
#                                   and export, Jupyter kernels, the student wheel, `python -m autograder` class
#                                   runs (hostile ones too), Gradescope's run_autograder, dask, headless Chromium
#   bash scripts/test.sh -m sweep   whole-corpus and many-seed runs
# CI runs all three (.ci/run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
cd "$root"
# Every assignment's source folders are built, never committed (the notebooks, the release's catalog).
"$root/.venv/bin/python" scripts/build_notebook.py >/dev/null
"$root/.venv/bin/python" scripts/build_notebook.py --assignment selftest >/dev/null
# nbgrader calls `alembic` and `jupyter` from PATH: the venv's bin must come first.
export PATH="$root/.venv/bin:$PATH"
# Two shared cores: one intra-op thread per process beats oversubscription by a wide margin here.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
# hypothesis caches what it learns; keep that out of the kit (the calibration tests hash every kit file).
export HYPOTHESIS_STORAGE_DIRECTORY="${HYPOTHESIS_STORAGE_DIRECTORY:-${TMPDIR:-/tmp}/weight-tying-kit-hypothesis}"
# One pytest worker per core (pytest-xdist). A file's tests stay on one worker (--dist loadfile): several
# files share an expensive module fixture (an nbgrader release, the sandboxed calibration run).
# A later -m (as in `-m e2e`) replaces this one.
exec python -m pytest -n "${PYTEST_WORKERS:-auto}" --dist loadfile -m "not sweep and not e2e" "$@"
