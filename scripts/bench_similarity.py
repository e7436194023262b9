"""Benchmark (prints figures, asserts nothing): the similarity pass on a class of N notebooks, as
``python -m autograder similarity`` runs it: wall time, CPU, peak RSS, and what comparing every pair would cost.

    .venv/bin/python scripts/bench_grading.py similarity --n 1000

The class: each student hands in one file of the calibration corpus (the reference, the correct and the wrong
files in turn), disguised as a copier would (``similarity_corpus.disguise``: renamed, reordered, annotated or all
three, drawn from the student's own seed), in the released notebook of either edition (every other student the
Chinese one). So no two hand-ins are the same text, and every file of the corpus is handed in by ~n/80 students
who share its code: the pass's hard case, many true pairs, each with its side-by-side page.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_clock import command_env
from similarity_corpus import CALIBRATION, DISGUISES, disguise, in_notebook

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS, GOAL_N, GOAL_RSS = 60.0, 1000, 1 << 30


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False
    return True


def make_class(folder: Path, n: int) -> int:
    """n notebooks in `folder`; returns how many files of the corpus they were made from."""
    sources = [ROOT / "solutions" / "weight_tying.py"]
    sources += sorted((CALIBRATION / "correct").glob("*.py")) + sorted((CALIBRATION / "wrong").glob("*.py"))
    sources = [s for s in sources if _parses(s)]  # the disguises read the code: a file with magics is left out
    folder.mkdir(parents=True)
    for i in range(n):
        source = sources[i % len(sources)]
        code = disguise(source.read_text(encoding="utf-8"), DISGUISES[i % len(DISGUISES)], f"{source.name}/{i}")
        (folder / f"s{i:05d}.ipynb").write_text(in_notebook(code, "zh" if i % 2 else "en"), encoding="utf-8")
    return len(sources)


def similarity(args, clock) -> list[tuple[str, str]]:
    """The rows of ``bench_grading.py similarity``."""
    work = Path(tempfile.mkdtemp(prefix="bench_similarity_"))
    try:
        folder, out = work / "class", work / "out"
        sources = make_class(folder, args.n)
        command = [sys.executable, "-m", "autograder", "similarity", "--assignment", "weight_tying", str(folder)]
        command += ["--out", str(out)]
        stdout, stderr = work / "stdout", work / "stderr"
        start, cpu_start = time.perf_counter(), clock.read()
        with open(stdout, "w") as fo, open(stderr, "w") as fe:
            proc = subprocess.Popen(command, cwd=ROOT, env=command_env(), stdout=fo, stderr=fe)
            _, status, usage = os.wait4(proc.pid, 0)  # this command's own rusage: its peak RSS
            proc.returncode = os.waitstatus_to_exitcode(status)
        wall, cpu = time.perf_counter() - start, clock.read() - cpu_start
        peak = usage.ru_maxrss * 1024
        printed = stdout.read_text(encoding="utf-8").strip()
        if proc.returncode != 0:
            raise SystemExit(f"similarity failed ({proc.returncode}): {stderr.read_text(encoding='utf-8')[-2000:]}")
        pages = len(list((out / "similar").glob("*.html")))
        found = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
        per_pair = found["compare_seconds"] / max(found["candidates"], 1)  # copydetect's comparison of one pair
        pairs = args.n * (args.n - 1) // 2
        goal = wall < GOAL_SECONDS * args.n / GOAL_N and peak < GOAL_RSS
        rows = [
            ("hand-ins", f"{args.n} notebooks, both editions, from {sources} files of the corpus, each disguised"),
            ("what it printed", printed.splitlines()[-1] if printed else "(nothing)"),
            ("side-by-side pages written", str(pages)),
            (
                f"HEADLINE wall for {args.n} (one process)",
                f"{wall:.1f} s; {wall / args.n * 1000:.1f} ms a hand-in; goal 1,000 in < 60 s and < 1 GiB: "
                + ("met" if goal else "missed")
                + (f" (at this n: {GOAL_SECONDS * args.n / GOAL_N:.0f} s)" if args.n != GOAL_N else ""),
            ),
            ("CPU (every process)", f"{cpu:.1f} s ({clock.how}); {cpu / max(wall, 1e-9):.2f} cores busy on average"),
            ("peak RSS of the command", f"{peak / 2**20:.0f} MiB"),
            (
                "pairs compared (an index of the fingerprints chose them)",
                f"{found['candidates']:,} of {pairs:,}, in {found['compare_seconds']:.1f} s: "
                f"{per_pair * 1000:.2f} ms a pair; the pass whole {found['seconds']:.1f} s",
            ),
            (
                "every pair compared instead (copydetect's CopyDetector)",
                f"{per_pair * pairs:.0f} s at {args.n:,} on one core; it grows with n²: "
                f"{per_pair * 2000 * 1999 / 2:.0f} s at 2,000, {per_pair * 5000 * 4999 / 2:.0f} s at 5,000",
            ),
        ]
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    import argparse

    from bench_clock import CpuClock

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=GOAL_N)
    clock = CpuClock()
    try:
        for what, value in similarity(parser.parse_args(), clock):
            print(f"  {what:<60}  {value}")
    finally:
        clock.close()
