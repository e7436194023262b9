"""Command line: ``python -m autograder grade|calibrate ...`` (a thin layer over keyword-only functions).

Exit status: 0 whenever grading ran, whatever the students scored; 1 when calibration finds a wrong
verdict or the grader itself failed; 2 for bad arguments.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["main", "build_parser"]

_EPILOG = """\
examples:
  python -m autograder grade --assignment weight_tying submitted/alice/weight_tying/weight_tying.ipynb
  python -m autograder grade --assignment weight_tying alice.ipynb --json      # Gradescope results JSON
  python -m autograder grade --assignment weight_tying assignments/submitted --out graded --workers 4
  python -m autograder calibrate --assignment weight_tying

isolation: each submission runs in its own process tree with a wall-time limit, CPU-time, memory
(RLIMIT_AS), file-size and process limits, capped stdout/stderr, and is killed afterwards. As root with
util-linux `unshare` it also gets no network, a PID namespace (children that call setsid die too), an
unprivileged uid, a read-only view of the kit, and no view of hidden suites, solutions, other
submissions or the gradebook. Without root those last protections are NOT enforced (the run info in
each result says which mode was used): grade untrusted work as root or in a container.
"""


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be positive")
        return value
    return parse


def _size(text: str) -> int:
    from autograder.sandbox import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", epilog=_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Grade notebook/script submissions against hidden suites, safely.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{grade,calibrate}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    common.add_argument("--json", action="store_true", help="print JSON (the last thing on stdout)")
    common.add_argument("--seed", type=int, default=None, help="fix the judge's random plan (default: random)")
    common.add_argument("--memory", type=_size, default="2GiB", help="memory cap per submission (default 2GiB)")
    common.add_argument("--workers", type=_positive(int), default=None, help="parallel submissions (default: cores)")
    grade = sub.add_parser("grade", parents=[common], help="grade one file, several, or folders of submissions",
                           formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    grade.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                       help=".py/.ipynb file, or a folder (nbgrader submitted/<student>/<assignment>/ or flat)")
    grade.add_argument("--timeout", type=_positive(float), default=60.0, help="wall seconds per submission (60)")
    grade.add_argument("--out", type=Path, default=None,
                       help="write results/<student>.json and grades.csv here (default for folders: ./graded)")
    cal = sub.add_parser("calibrate", parents=[common], help="grade the calibration submissions and check verdicts")
    cal.add_argument("--timeout", type=_positive(float), default=20.0, help="wall seconds per submission (20)")
    return parser


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from autograder.assignments import ASSIGNMENTS

    if args.assignment not in ASSIGNMENTS:
        return _fail(f"unknown assignment {args.assignment!r}: use --assignment with one of {', '.join(sorted(ASSIGNMENTS))}")
    from autograder.sandbox import Limits

    try:
        limits = Limits(wall_seconds=args.timeout, memory_bytes=args.memory)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        return _calibrate(args, limits) if args.command == "calibrate" else _grade(args, limits)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the grader itself failed: say so, exit non-zero
        print(f"grader error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def _grade(args, limits) -> int:
    from autograder.batch import find_submissions, grade_batch, write_outputs
    from autograder.engine import grade_submission
    from autograder.assignments import get_assignment
    from autograder.results import render

    for path in args.paths:
        if not path.exists():
            return _fail(f"{str(path)!r} does not exist: give a .py/.ipynb submission or a folder of them")
        if path.is_file() and path.suffix not in (".py", ".ipynb"):
            return _fail(f"{str(path)!r} is neither .py nor .ipynb: give the student's notebook or script")
    if len(args.paths) == 1 and args.paths[0].is_file():
        result = grade_submission(spec=get_assignment(args.assignment), path=args.paths[0], seed=args.seed,
                                  limits=limits)
        if args.out:
            write_outputs({args.paths[0].stem: result}, args.out)
        if args.json:
            sys.stdout.write(json.dumps(result) + "\n")
        else:
            render(result, title=str(args.paths[0]))
        return 0
    submissions = find_submissions(args.paths, assignment=args.assignment)
    if not submissions:
        return _fail(f"no .py/.ipynb submissions found under {', '.join(map(str, args.paths))}")
    out = args.out or Path("graded")
    results = grade_batch(assignment=args.assignment, submissions=submissions, seed=args.seed, limits=limits,
                          workers=args.workers, progress=sys.stderr.isatty() or not args.json,
                          hide=(*[p for p in args.paths if p.is_dir()], out))
    csv_path = write_outputs(results, out)
    if args.json:
        summary = {s: {"score": r["score"], "max_score": r["max_score"]} for s, r in results.items()}
        sys.stdout.write(json.dumps({"grades_csv": str(csv_path), "students": summary}) + "\n")
    else:
        _print_batch(results, csv_path)
    return 0


def _print_batch(results: dict, csv_path: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(results)} submissions")
    for col in ("student", "score", "status"):
        table.add_column(col)
    for student, result in results.items():
        status = result.get("extra_data", {}).get("run", {}).get("status", "grader error")
        table.add_row(student, f"{result['score']:g}/{result['max_score']:g}", status)
    console = Console()
    console.print(table)
    console.print(f"grades: {csv_path}   per-student results: {csv_path.parent / 'results'}")


def _calibrate(args, limits) -> int:
    from autograder.calibrate import calibrate, verdicts_json

    try:
        verdicts, seconds = calibrate(assignment=args.assignment, limits=limits, workers=args.workers,
                                      seed=args.seed, progress=not args.json)
    except FileNotFoundError as exc:
        return _fail(str(exc))
    summary = verdicts_json(verdicts, seconds)
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"calibration of {args.assignment}")
        for col in ("file", "expected", "score", "status", "verdict", "note"):
            table.add_column(col, overflow="fold")
        for v in verdicts:
            table.add_row(v.file, v.expected, f"{v.score:g}/{v.max_score:g}", v.status,
                          "[green]ok[/green]" if v.ok else "[red]FAIL[/red]", v.note)
        console = Console()
        console.print(table)
        target = "ok" if seconds < 5 else "SLOW (target < 5 s)"
        console.print(f"reference solution graded in {seconds:.2f} s ({target}); "
                      f"{sum(v.ok for v in verdicts)}/{len(verdicts)} verdicts ok")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
