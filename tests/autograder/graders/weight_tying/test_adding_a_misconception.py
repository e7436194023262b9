"""Adding a misconception touches four files: its scheme entry (marking.toml), its catalog entry (its title and
the message that names it, in one catalog part), its model (here a decoder of `generate`, judge/decoders.py) and
one calibration file. The test does it on a copy of the kit and grades the new file there: the new misconception
is charged at its cost under its title, listed in the derived MISCONCEPTIONS table, and released to the
self-check's catalog, with no fifth file edited (the NAMES table, the titles and the generation test are derived).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from autograder.graders.kit import KIT_ROOT

GRADER = Path("autograder/graders/weight_tying")
NEW = "position_third_last"
SCHEME_ENTRY = f"""
[misconceptions.{NEW}]
costs = {{ "argmax generation" = 10 }}
note = "the third-to-last position's logits choose each token (a test of the recipe for adding a misconception)"
"""
CATALOG_ENTRIES = f"""MESSAGES = {{
    "misconception.{NEW}": ("third-to-last position read", "读取了倒数第三个位置"),
    "judge.gen.model.third_last": (
        "wrong position (logits of the third-to-last position)",
        "取错了位置（用了倒数第三个位置的 logits）",
        "{NEW}",
    ),
"""
MODEL = '    Decoder("third-to-last position", "judge.gen.model.third_last", position=-3),\n'
CHECK = textwrap.dedent(
    f"""
    import sys
    from pathlib import Path
    import torch
    torch.set_num_threads(1)
    from autograder.graders import get_assignment
    from autograder.grading.marking import scheme_markdown
    from autograder.graders.weight_tying.release import released_catalog
    from autograder.qa.inprocess import InProcessGrader

    spec = get_assignment("weight_tying")
    score, tests = InProcessGrader(spec).grade(Path(sys.argv[1]), spec.make_plan(7))
    charged = {{c for o in tests.values() if not o.passed for c in ([o.finding.names] if o.finding else [])}}
    print("score", score)
    print("charged", sorted(n for n in charged if n))
    print("title", spec.catalog.misconception_title("{NEW}", "zh"))
    table = scheme_markdown(spec.scheme, spec.catalog.misconception_title)
    print("table", any("`{NEW}`" in line for line in table.splitlines()))
    print("released", "misconception.{NEW}" in released_catalog())
    """
)


def _copy_of_the_kit(tmp: Path) -> Path:
    root = tmp / "kit"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "calibration")
    for package in ("autograder", "dnnlpy", "solutions", "coursecheck"):
        if (KIT_ROOT / package).is_dir():
            shutil.copytree(KIT_ROOT / package, root / package, ignore=ignore)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: the anchor {old!r} moved; update this test's recipe"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_new_misconception_needs_its_scheme_entry_catalog_entry_model_and_calibration_file(tmp_path):
    root = _copy_of_the_kit(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    # 1. the scheme
    scheme = root / GRADER / "marking.toml"
    scheme.write_text(scheme.read_text(encoding="utf-8") + SCHEME_ENTRY, encoding="utf-8")
    # 2. the catalog: its title and the message that names it, in one part
    _edit(root / GRADER / "messages_judge.py", "MESSAGES = {\n", CATALOG_ENTRIES)
    # 3. the model: a decoder reading the third-to-last position
    _edit(root / GRADER / "judge" / "decoders.py", "    GREEDY,\n", "    GREEDY,\n" + MODEL)
    # 4. one calibration file, with the mistake
    wrong = KIT_ROOT / GRADER / "judge" / "calibration" / "wrong"
    source = (wrong / "w23_generate_first_position.py").read_text(encoding="utf-8")
    assert source.count("logits[:, 0, :]") == 1
    calibration = root / GRADER / "judge" / "calibration" / "wrong" / "w99_generate_third_last_position.py"
    calibration.parent.mkdir(parents=True)
    calibration.write_text(
        source.replace("# expect: wrong position_or_append", f"# expect: wrong {NEW}").replace(
            "logits[:, 0, :]", "logits[:, -3 if logits.size(1) >= 3 else -1, :]"
        ),
        encoding="utf-8",
    )
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    touched = sorted(str(p.relative_to(root)) for p in after if before.get(p) != after[p])
    assert len(touched) == 4, touched

    run = subprocess.run(
        [sys.executable, "-c", CHECK, str(calibration)],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    said = dict(line.split(" ", 1) for line in run.stdout.splitlines() if " " in line)
    assert said["charged"] == f"['{NEW}']", run.stdout
    assert float(said["score"]) == 90.0, run.stdout  # its cost, 10, in argmax generation
    assert said["title"] == "读取了倒数第三个位置"
    assert said["table"] == "True" and said["released"] == "True", run.stdout
