"""Benchmark (prints figures, asserts nothing): our sandboxed grader vs nbgrader's autograde, and BPE training.

    .venv/bin/python scripts/bench_grading.py                 # everything, median of 3
    .venv/bin/python scripts/bench_grading.py --repeats 1 --batch 0 --skip-nbgrader

Measures, each as wall seconds (median of --repeats runs, whole command including interpreter start-up):
  a) ``python -m autograder grade --assignment weight_tying <submission> --json`` on solutions/weight_tying.py
     and on the source notebook (it holds the solutions, so it stands in for a filled-in notebook);
  b) ``nbgrader autograde weight_tying`` of that notebook in a temporary copy of assignments/;
  c) tokenizer training on the shipped corpus at several vocabulary sizes, against a 10 s target;
  d) a batch of --batch copies of the solution graded with --workers (per-submission throughput).
The machine is shared, so figures move from run to run: compare ratios taken in one run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = ROOT / ".venv" / "bin"
SOLUTION = ROOT / "solutions" / "weight_tying.py"
NOTEBOOK = ROOT / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb"
TOKENIZER_TARGET_S = 10.0


def _env() -> dict[str, str]:
    # nbgrader runs `alembic` and the `python3` kernel from PATH: the venv's bin must come first.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WEIGHT_TYING_SUBMISSION")}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _timed(cmd: list[str], *, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed, proc


def _median(samples: list[float], digits: int = 2) -> str:
    runs = f" (of {', '.join(f'{s:.{digits - 1}f}' for s in samples)})" if len(samples) > 1 else ""
    return f"{statistics.median(samples):.{digits}f} s{runs}"


def bench_our_grader(path: Path, repeats: int) -> tuple[list[float], str]:
    """Wall seconds of each `autograder grade --json` run, and the score of the last one."""
    cmd = [sys.executable, "-m", "autograder", "grade", "--assignment", "weight_tying", str(path), "--json"]
    times, score = [], "?"
    for _ in range(repeats):
        elapsed, proc = _timed(cmd, cwd=ROOT)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        times.append(elapsed)
        run = result["extra_data"]["run"]
        score = (
            f"{result['score']:g}/{result['max_score']:g} ({run['status']}; last run: sandboxed student "
            f"process {run['wall_seconds']:.1f} s of it)"
        )
    return times, score


def bench_nbgrader(repeats: int, work: Path) -> tuple[float, list[float], str]:
    """(generate_assignment seconds, autograde seconds per run, score) in a temporary course copy."""
    course = work / "assignments"
    shutil.copytree(
        ROOT / "assignments",
        course,
        ignore=shutil.ignore_patterns(
            "release",
            "submitted",
            "autograded",
            "feedback",
            "gradebook.db",
            ".nbgrader.log",
            "__pycache__",
            ".pytest_cache",
        ),
    )
    generate, _ = _timed(["nbgrader", "generate_assignment", "weight_tying", "--force"], cwd=course)
    folder = course / "submitted" / "bench" / "weight_tying"
    folder.mkdir(parents=True)
    shutil.copy(NOTEBOOK, folder / "weight_tying.ipynb")
    times = [_timed(["nbgrader", "autograde", "weight_tying", "--force"], cwd=course)[0] for _ in range(repeats)]
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook("weight_tying", "weight_tying", "bench")
        score = f"{nb.score:g}/{nb.max_score:g}"
    return generate, times, score


def bench_tokenizer(sizes: list[int], repeats: int) -> dict[int, tuple[list[float], int]]:
    from dnnlpy.tokenizers import Tokenizer, load_corpus

    lines = load_corpus().splitlines()
    out: dict[int, tuple[list[float], int]] = {}
    for size in sizes:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            tok = Tokenizer.train_from_iterator(lines, vocab_size=size)
            times.append(time.perf_counter() - start)
        out[size] = (times, tok.vocab_size)  # a small corpus may run out of merges before `size`
    return out


def bench_batch(n: int, workers: int, work: Path) -> tuple[float, str]:
    """Wall seconds to grade n copies of the solution with `workers` parallel sandboxes; a score summary."""
    folder = work / "batch"
    folder.mkdir()
    for i in range(n):
        shutil.copy(SOLUTION, folder / f"student{i:02d}.py")
    out = work / "graded"
    cmd = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        "--assignment",
        "weight_tying",
        str(folder),
        "--out",
        str(out),
        "--workers",
        str(workers),
        "--json",
    ]
    elapsed, proc = _timed(cmd, cwd=work)
    students = json.loads(proc.stdout.strip().splitlines()[-1])["students"]
    full = sum(s["score"] == s["max_score"] > 0 for s in students.values())
    from autograder.outputs.report import write_report

    start = time.perf_counter()
    write_report(out)
    return elapsed, f"{full}/{len(students)} full marks; report.html written in {time.perf_counter() - start:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument("--batch", type=int, default=8, help="submissions in the batch run (0: skip)")
    parser.add_argument("--workers", type=int, default=2, help="parallel sandboxes in the batch run")
    parser.add_argument("--vocab", type=int, nargs="+", default=[300, 1000, 4000], help="tokenizer sizes")
    parser.add_argument("--skip-nbgrader", action="store_true", help="skip the nbgrader comparison")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (graded/report.html)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.batch < 0 or args.workers < 1:
        parser.error("--repeats and --workers must be >= 1, --batch >= 0")
    rows: list[tuple[str, str, str]] = []  # (what, seconds, note)

    def show(what: str, seconds: str, note: str = "") -> None:
        rows.append((what, seconds, note))
        print(f"  {what}: {seconds} {note}", file=sys.stderr, flush=True)

    work = Path(tempfile.mkdtemp(prefix="bench_grading_"))
    try:
        ours_py, score_py = bench_our_grader(SOLUTION, args.repeats)
        show("ours: grade solutions/weight_tying.py", _median(ours_py), score_py)
        ours_nb, score_nb = bench_our_grader(NOTEBOOK, args.repeats)
        show("ours: grade solution notebook", _median(ours_nb), score_nb)
        if not args.skip_nbgrader:
            generate, theirs, score = bench_nbgrader(args.repeats, work)
            show("nbgrader generate_assignment (once)", f"{generate:.2f} s")
            show("nbgrader autograde solution notebook", _median(theirs), score)
            ratio = statistics.median(ours_nb) / statistics.median(theirs)
            show("ratio ours(notebook) / nbgrader", f"{ratio:.2f}x", "(> 1: ours is slower)")
        for size, (times, reached) in bench_tokenizer(args.vocab, args.repeats).items():
            verdict = "within" if statistics.median(times) <= TOKENIZER_TARGET_S else "OVER"
            show(
                f"tokenizer training, vocab {size}",
                _median(times, 3),
                f"{verdict} the {TOKENIZER_TARGET_S:g} s target; {reached} tokens learnt",
            )
        if args.batch:
            elapsed, note = bench_batch(args.batch, args.workers, work)
            show(f"batch of {args.batch}, --workers {args.workers} (total)", f"{elapsed:.2f} s", note)
            show(
                "batch: per submission",
                f"{elapsed / args.batch:.2f} s",
                f"vs {statistics.median(ours_py):.2f} s for one alone",
            )
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    width, vwidth = max(len(r[0]) for r in rows), max(14, *(len(r[1]) for r in rows))
    print(f"\n{'measurement':<{width}}  {'value (median)':<{vwidth}}  note")
    for what, seconds, note in rows:
        print(f"{what:<{width}}  {seconds:<{vwidth}}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
