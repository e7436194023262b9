"""A mixed class for the grading benchmark (``bench_grading.py``): notebooks as a real class hands them in.

Each is the assignment's source notebook with its two exercise cells replaced by one calibration file's code
(a correct variant, a wrong one or a hostile one), or the solution notebook itself. Imports nothing of the kit.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb"
CALIBRATION = ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"

# Hostile files nbgrader can run outside a sandbox without harm or a time-out (they lie, patch and crash).
HOSTILE_FOR_NBGRADER = ("a04_monkeypatch_comparisons", "a07_lying_tensor_subclass", "a19_echo_plan_into_evidence")
# Hostile files for our grader only: everything but those that run to the time limit (a real class has few).
_SLOW_ATTACKS = ("a09_", "a10_", "a11_", "a12_", "a24_", "a26_", "a27_")


def _in_notebook(source: Path, target: Path) -> None:
    """The source notebook with both exercise cells replaced by `source`'s code (one cell; the other emptied)."""
    if not NOTEBOOK.is_file():  # built, never committed
        raise SystemExit(f"{NOTEBOOK} is not built: run python scripts/build_notebook.py first")
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    ids = ["solution_TiedEmbeddingLM", "solution_MiniGPTWithWeightTying"]
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in ids:
            cell["source"] = source.read_text(encoding="utf-8") if grade_id == ids[0] else "# (defined above)\n"
    target.write_text(json.dumps(nb), encoding="utf-8")


def mixed_class(work: Path, n: int, *, nbgrader_safe: bool) -> list[tuple[Path, str]]:
    """n notebooks (path, kind): per 8 students 2 solution notebooks, 2 correct variants, 3 wrong, 1 hostile."""
    # A script in "# %%" cells (c12) relies on its cells running one by one: it does not fit in one cell.
    files = {
        kind: sorted(f for f in (CALIBRATION / kind).glob("*.py") if "\n# %%" not in f.read_text(encoding="utf-8"))
        for kind in ("correct", "wrong", "attacks")
    }
    files["attacks"] = [
        f
        for f in files["attacks"]
        if (f.stem in HOSTILE_FOR_NBGRADER if nbgrader_safe else not f.name.startswith(_SLOW_ATTACKS))
    ]
    pattern = ["solution", "wrong", "correct", "wrong", "solution", "wrong", "correct", "attacks"]
    used = {kind: 0 for kind in files}
    out = []
    for i in range(n):
        kind = pattern[i % len(pattern)]
        if kind == "solution":
            out.append((NOTEBOOK, "correct"))
            continue
        source = files[kind][used[kind] % len(files[kind])]
        used[kind] += 1
        target = work / f"{i:04d}_{source.stem}.ipynb"
        _in_notebook(source, target)
        out.append((target, "correct" if kind == "correct" else kind))
    return out


def composition(students: list[tuple[Path, str]]) -> str:
    kinds = [k for _, k in students]
    return ", ".join(f"{kinds.count(k)} {k}" for k in ("correct", "wrong", "attacks") if k in kinds)
