"""Benchmark (prints figures, asserts nothing): a class's outputs at course scale, without grading anyone.

    .venv/bin/python scripts/bench_outputs.py                  # 300 students
    .venv/bin/python scripts/bench_outputs.py --students 1000 --keep

A synthetic class (copies of solutions/weight_tying.py, each with a different comment, and plausible results
with the grader's five areas: full marks, one misconception, a timeout, a stub) goes through the real batch
flow with the grader replaced by a stand-in, so the figures are the outputs' own cost:
  a) first run: grading keys, one result file per student, grades.csv, every feedback page and the report;
  b) an unchanged rerun: keys recomputed, every result reused, outputs rebuilt (what a TA's rerun costs);
  c) the report alone (``python -m autograder.outputs.report`` on the folder).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "weight_tying.py"
AREAS = {"parameter identity": 24, "shape flow": 20, "parameter counts": 18, "gradient accumulation": 20}
AREAS["argmax generation"] = 18
MESSAGES = [
    "",
    "TiedEmbeddingLM: lm_head.weight did not change after an in-place change: copied table (copy.deepcopy)",
    "generate kept 12 tokens of context but block_size is 8: no crop",
    "X failed: your code raised NotImplementedError:   (at <notebook> [cell 14]:7 in __init__)",
]


def _fake_batch(*, assignment, submissions, seed, limits, workers, progress, hide, on_result, **_):
    from autograder.graders import get_assignment
    from autograder.grading.findings import Finding
    from autograder.grading.rendering import rendered
    from autograder.grading.result import Result, RunFacts, TestOutcome
    from autograder.protocol.said import Said

    spec = get_assignment(assignment)
    for n, uid in enumerate(sorted(submissions)):
        message = MESSAGES[n % len(MESSAGES)]
        tests = []
        for i, (area, points) in enumerate(AREAS.items()):
            failed = bool(message) and (i == n % 5 or "NotImplementedError" in message)
            finding = Finding(Said("judge.failed_your_code_raised", what="X", text=message)) if failed else None
            tests.append(TestOutcome(f"test_{i}.py::test_{area.replace(' ', '_')}", points, area, not failed, finding))
        status = "timeout" if n % 37 == 0 else "ok"
        result = Result(tests=tests, run=RunFacts(status=status), seed=seed, execution_time=2 + n % 7)
        on_result(uid, rendered(result, spec))  # as the pipeline's step 8 hands it over: rendered once
    return {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300, help="class size (300)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (graded/report.html)")
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students must be >= 1")
    import autograder.grading.executors
    from autograder.outputs.classrun import ClassJob, grade_class
    from autograder.outputs.report import write_report

    autograder.grading.executors.grade_batch = _fake_batch  # the outputs' cost only: nobody is really graded
    work = Path(tempfile.mkdtemp(prefix="bench_outputs_"))
    try:
        klass = work / "class"
        klass.mkdir()
        text = SOLUTION.read_text(encoding="utf-8")
        for i in range(args.students):
            (klass / f"student{i:04d}.py").write_text(f"# copy {i}\n{text}", encoding="utf-8")
        job = ClassJob(assignment="weight_tying", paths=(klass,), out=work / "graded", progress=False)
        from autograder.grading.submissions import find_submissions

        submissions = find_submissions([klass], assignment="weight_tying")
        for label in ("first run (keys, results, csv, pages, report)", "unchanged rerun (nothing graded)"):
            start = time.perf_counter()
            outcome = grade_class(job, submissions=submissions)
            seconds = time.perf_counter() - start
            print(
                f"  {label}: {seconds:.2f} s for {args.students} students ({1000 * seconds / args.students:.1f} ms "
                f"each); graded {len(outcome.graded)}, reused {len(outcome.reused)}",
                file=sys.stderr,
            )
        start = time.perf_counter()
        report = write_report(job.out)
        size = report.stat().st_size / 1024
        print(
            f"  report + feedback pages alone: {time.perf_counter() - start:.2f} s (report {size:.0f} KiB)",
            file=sys.stderr,
        )
        if args.keep:
            print(f"  kept: {report}", file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
