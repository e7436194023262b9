"""nbgrader's side of the benchmarks (prints nothing itself): a course copy with a class submitted, and nbgrader's
own grading of a sample of a class, for `bench_grading.py`'s `compare`, `scale` and `selfcheck`.

nbgrader grades one notebook after another, each in a kernel of its own, so its CPU and wall per notebook on a
sample of a class are what it would take per notebook on the whole class: `scale` sets a sample of its 1,000 against
the kit's whole run (``nbgrader_sample``). Only notebooks nbgrader survives go into a sample: the class's hostile
files other than ``bench_class.HOSTILE_FOR_NBGRADER`` stop or damage an unsandboxed grader.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from bench_class import HOSTILE_FOR_NBGRADER, composition
from bench_clock import CpuClock, timed
from bench_clock import command_env as _env

ROOT = Path(__file__).resolve().parents[1]
# nbgrader's own path, asked for by name (the course's config refuses it by default: it is unsandboxed)
AUTOGRADE = ["nbgrader", "autograde", "weight_tying", "--force", "--Autograde.pre_convert_hook=None"]


def course_copy(work: Path, notebooks: list[Path]) -> Path:
    """A copy of the nbgrader course, its release generated, with `notebooks` as submitted/<student>/."""
    course = work / "assignments"
    ignore = shutil.ignore_patterns("release", "submitted", "autograded", "feedback", "gradebook.db", ".nbgrader.log")
    shutil.copytree(ROOT / "assignments", course, ignore=ignore)
    subprocess.run(
        ["nbgrader", "generate_assignment", "weight_tying", "--force"],
        cwd=course,
        env=_env(),
        check=True,
        capture_output=True,
    )
    for i, notebook in enumerate(notebooks):
        folder = course / "submitted" / f"student{i:04d}" / "weight_tying"
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / "weight_tying.ipynb")
    return course


def survivable(students: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """The notebooks of a class nbgrader can grade without being stopped or damaged, in the class's order."""
    return [(p, kind) for p, kind in students if kind != "attacks" or any(h in p.stem for h in HOSTILE_FOR_NBGRADER)]


def nbgrader_sample(work: Path, students: list[tuple[Path, str]], k: int, clock: CpuClock) -> dict:
    """nbgrader autograde on the first `k` notebooks of `students` it survives, after a warm-up on one of them
    (its first run in a fresh course reads more from disk): {"n", "composition", "wall", "cpu"}, per notebook."""
    sample = survivable(students)[:k]
    if not sample:
        raise ValueError("no notebook of the class is one nbgrader survives: nothing to sample")
    course = course_copy(work / "nbgrader_sample", [p for p, _ in sample])
    timed([*AUTOGRADE, "--student", "student0000"], course, clock)  # warm-up, discarded
    wall, cpu, _ = timed(AUTOGRADE, course, clock)
    return {"n": len(sample), "composition": composition(sample), "wall": wall / len(sample), "cpu": cpu / len(sample)}


def against_nbgrader(work: Path, students: list, args, cpu: float, wall: float, clock: CpuClock) -> list:
    """`scale`'s rows: nbgrader on a sample of the class's own notebooks (``args.nbgrader_sample`` of them, one at a
    time, as it grades), set against our whole run of ``args.n`` (`cpu` and `wall` in all)."""
    theirs = nbgrader_sample(work, students, args.nbgrader_sample, clock)
    ours_cpu, ours_wall = cpu / args.n, wall / args.n
    return [
        (
            f"nbgrader on a sample of the same notebooks ({theirs['n']}: {theirs['composition']})",
            f"{theirs['cpu']:.3f} CPU-s, {theirs['wall']:.3f} s wall a notebook",
        ),
        (
            f"nbgrader's pace for {args.n} (one at a time, from its sample)",
            f"{theirs['cpu'] * args.n:.0f} CPU-s, {theirs['wall'] * args.n:.0f} s wall",
        ),
        (f"HEADLINE nbgrader / ours, CPU per notebook (class of {args.n})", f"{theirs['cpu'] / ours_cpu:.1f}x"),
        (
            f"nbgrader / ours, wall (ours at {args.workers} workers: includes parallelism)",
            f"{theirs['wall'] / ours_wall:.1f}x",
        ),
    ]
