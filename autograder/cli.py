"""Trusted: the command line, ``python -m autograder grade|calibrate ...``, a thin layer over keyword-only functions.

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
  python -m autograder grade --assignment weight_tying --nbgrader-course assignments   # -> gradebook.db
  python -m autograder calibrate --assignment weight_tying
  python -m autograder calibrate --assignment weight_tying --seeds 25 --in-process   # the seed sweep
  python -m autograder mutate --assignment weight_tying --seeds 25                    # mutation testing

nbgrader gradebook (--gradebook DB or --nbgrader-course COURSE): each graded student gets, in assignment
NAME (--gradebook-assignment, default the --assignment name; created if missing), a notebook called
"autograder" with one grade cell per area of the hidden suite (e.g. "parameter_identity", max = that
area's points) holding the student's auto score. Students and cells are created when absent; grading
again overwrites the scores; grader errors are not written. `nbgrader export` and the formgrader then
show them. If NAME also holds nbgrader's own test cells (made by generate_assignment), nbgrader adds both
notebooks up, `nbgrader autograde` sets the "autograder" cells to 0 (it finds no autograder.ipynb), and
`generate_assignment --force` refuses to run once submissions exist: a warning says so, and
--gradebook-assignment weight_tying_hidden keeps the hidden suite's scores in an assignment of their own.

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
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be positive")
        return value

    return parse


def _size(text: str) -> int:
    from autograder.sandbox.limits import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade notebook/script submissions against hidden suites, safely.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{grade,calibrate,mutate}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    common.add_argument("--json", action="store_true", help="print JSON (the last thing on stdout)")
    common.add_argument("--seed", type=int, default=None, help="fix the judge's random plan (default: random)")
    common.add_argument("--memory", type=_size, default="2GiB", help="memory cap per submission (default 2GiB)")
    common.add_argument("--workers", type=_positive(int), default=None, help="parallel submissions (default: cores)")
    grade = sub.add_parser(
        "grade",
        parents=[common],
        help="grade one file, several, or folders of submissions",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    grade.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help=".py/.ipynb file, or a folder (nbgrader submitted/<student>/<assignment>/ or flat); "
        "default with --nbgrader-course: COURSE/submitted",
    )
    grade.add_argument("--timeout", type=_positive(float), default=60.0, help="wall seconds per submission (60)")
    grade.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write results/<student>.json, grades.csv, report.html and feedback/<student>.html "
        "here (default for folders: ./graded)",
    )
    grade.add_argument(
        "--gradebook",
        type=Path,
        default=None,
        metavar="DB",
        help="also write the scores into this nbgrader gradebook.db (created if absent); see below",
    )
    grade.add_argument(
        "--nbgrader-course",
        type=Path,
        default=None,
        metavar="COURSE",
        help="nbgrader course directory: grade COURSE/submitted (unless PATHs are given) and write COURSE/gradebook.db",
    )
    grade.add_argument(
        "--gradebook-assignment",
        default=None,
        metavar="NAME",
        help="nbgrader assignment to write into (default: the --assignment name)",
    )
    cal = sub.add_parser("calibrate", parents=[common], help="grade the calibration submissions and check verdicts")
    cal.add_argument("--timeout", type=_positive(float), default=20.0, help="wall seconds per submission (20)")
    cal.add_argument(
        "--calibration-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="grade DIR/{correct,wrong,attacks}/ instead of the assignment's own calibration files",
    )
    cal.add_argument(
        "--seeds",
        type=_positive(int),
        default=None,
        metavar="N",
        help="the seed sweep: grade every correct and wrong file (and the solution) on seeds 1..N and demand "
        "the same verdict and the same mark on each (attacks are not swept)",
    )
    cal.add_argument(
        "--in-process",
        action="store_true",
        help="with --seeds: run the experiments in this process instead of the sandbox (the kit's own files only)",
    )
    mut = sub.add_parser("mutate", help="mutation testing: grade mutants of the correct sources on many seeds")
    mut.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    mut.add_argument("--seeds", type=_positive(int), default=25, metavar="N", help="grade on seeds 1..N (25)")
    mut.add_argument("--workers", type=_positive(int), default=None, help="parallel processes (default: cores)")
    mut.add_argument("--out", type=Path, default=None, help="also write the Markdown report to this file")
    mut.add_argument("--limit", type=_positive(int), default=0, help=argparse.SUPPRESS)  # the first N mutants
    mut.add_argument("--json", action="store_true", help="print JSON (the last thing on stdout)")
    return parser


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from autograder.graders import ASSIGNMENTS

    if args.assignment not in ASSIGNMENTS:
        return _fail(
            f"unknown assignment {args.assignment!r}: use --assignment with one of {', '.join(sorted(ASSIGNMENTS))}"
        )
    if args.command == "mutate":
        from autograder.mutation import command

        return command(args)
    from autograder.sandbox.limits import Limits

    try:
        limits = Limits(wall_seconds=args.timeout, memory_bytes=args.memory)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        if args.command == "calibrate" and args.seeds:
            from autograder.sweep import command

            return command(args, limits)
        return _calibrate(args, limits) if args.command == "calibrate" else _grade(args, limits)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the grader itself failed: say so, exit non-zero
        print(f"grader error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def _targets(args) -> tuple[list[Path], Path | None, tuple[Path, ...]] | str:
    """(submission paths, gradebook or None, extra paths to hide) from the arguments, or an error message."""
    paths, gradebook, hide = list(args.paths), args.gradebook, []
    if args.nbgrader_course is not None:
        course = args.nbgrader_course
        if not course.is_dir():
            return f"--nbgrader-course {str(course)!r} is not a folder: give the nbgrader course directory"
        if gradebook is not None:
            return "give either --gradebook or --nbgrader-course (which means COURSE/gradebook.db), not both"
        gradebook = course / "gradebook.db"
        if not paths:
            paths = [course / "submitted"]
            if not paths[0].is_dir():
                return f"{str(paths[0])!r} does not exist: collect the submissions first (nbgrader collect)"
        # nbgrader keeps hidden tests in source/ and in the gradebook; graded copies are not for students either
        hide += [course / sub for sub in ("source", "autograded", "feedback")]
    if not paths:
        return "give the submissions to grade (files or folders), or --nbgrader-course COURSE"
    if gradebook is not None:
        if gradebook.suffix != ".db" or not gradebook.parent.is_dir():
            return (
                f"--gradebook {str(gradebook)!r} should be an nbgrader gradebook.db in an existing folder "
                "(e.g. course/gradebook.db; it is created if absent)"
            )
        hide.append(gradebook)
    for path in paths:
        if not path.exists():
            return f"{str(path)!r} does not exist: give a .py/.ipynb submission or a folder of them"
        if path.is_file() and path.suffix not in (".py", ".ipynb"):
            return f"{str(path)!r} is neither .py nor .ipynb: give the student's notebook or script"
    return paths, gradebook, tuple(hide)


def _grade(args, limits) -> int:
    from autograder.batch import grade_batch
    from autograder.engine import grade_submission
    from autograder.graders import get_assignment
    from autograder.outputs.grades import write_outputs
    from autograder.outputs.table import render
    from autograder.submissions import find_submissions

    targets = _targets(args)
    if isinstance(targets, str):
        return _fail(targets)
    paths, gradebook, hide = targets
    if len(paths) == 1 and paths[0].is_file():
        result = grade_submission(
            spec=get_assignment(args.assignment), path=paths[0], seed=args.seed, limits=limits, hide=hide
        )
        # nbgrader layout .../<student>/<assignment>/<file>: the student is the folder, not the file
        student = paths[0].parent.parent.name if paths[0].parent.name == args.assignment else paths[0].stem
        results, submissions = {student: result}, {student: paths[0]}
        report = _write_all(results, args.out) if args.out else None
        if args.json:
            sys.stdout.write(json.dumps(result.to_gradescope()) + "\n")
        else:
            render(result, title=str(paths[0]))
            if report:
                print(f"report: {report}")
        return _to_gradebook(args, gradebook, results, submissions)
    submissions = find_submissions(paths, assignment=args.assignment)
    if not submissions:
        return _fail(f"no .py/.ipynb submissions found under {', '.join(map(str, paths))}")
    out = args.out or Path("graded")
    results = grade_batch(
        assignment=args.assignment,
        submissions=submissions,
        seed=args.seed,
        limits=limits,
        workers=args.workers,
        progress=sys.stderr.isatty() or not args.json,
        hide=(*[p for p in paths if p.is_dir()], out, *hide),
    )
    csv_path = write_outputs(results, out)  # first: nothing after this may lose the grades
    report = _write_all(results, out, csv_written=True)
    status = _to_gradebook(args, gradebook, results, submissions)
    if args.json:
        summary = {s: {"score": r.score, "max_score": r.max_score} for s, r in results.items()}
        sys.stdout.write(
            json.dumps(
                {
                    "grades_csv": str(csv_path),
                    "report": str(report) if report else None,
                    "gradebook": str(gradebook) if gradebook and not status else None,
                    "students": summary,
                }
            )
            + "\n"
        )
    else:
        _print_batch(results, csv_path, report)
    return status


def _write_all(results: dict, out: Path, *, csv_written: bool = False) -> Path | None:
    """grades.csv and results/ (unless already written), then the HTML report and feedback pages; a report
    failure is a warning, never a lost grade."""
    from autograder.outputs.grades import write_outputs
    from autograder.outputs.report import write_report

    if not csv_written:
        write_outputs(results, out)
    try:
        return write_report(out)
    except Exception as exc:  # the grades are already on disk; the report is a bonus
        print(
            f"warning: the HTML report was not written ({type(exc).__name__}: {exc}); "
            f"grades are in {out / 'grades.csv'}",
            file=sys.stderr,
        )
        return None


def _to_gradebook(args, gradebook: Path | None, results: dict, submissions: dict) -> int:
    """Write the scores into nbgrader's gradebook when asked; 0 if done (or not asked), 1 if it failed."""
    if gradebook is None:
        return 0
    from autograder.outputs.gradebook import NOTEBOOK, write_gradebook

    name = args.gradebook_assignment or args.assignment
    try:
        summary = write_gradebook(results, gradebook, assignment=name, submissions=submissions)
    except Exception as exc:  # the grades are on disk already: say what did not happen
        print(f"error: the gradebook {str(gradebook)!r} was not updated ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    for warning in summary.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for student, why in summary.skipped.items():
        print(f"warning: {student} not written to the gradebook: {why}", file=sys.stderr)
    count = len(summary.written)
    print(
        f"gradebook: {count} student{'' if count == 1 else 's'} written to {gradebook} "
        f"(assignment {name!r}, notebook {NOTEBOOK!r}, one grade cell per area)",
        file=sys.stderr,
    )
    return 0


def _print_batch(results: dict, csv_path: Path, report: Path | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(results)} submissions")
    for col in ("student", "score", "status"):
        table.add_column(col)
    from rich.text import Text

    for student, result in results.items():
        table.add_row(Text(student), f"{result.score:g}/{result.max_score:g}", result.status)
    console = Console()
    console.print(table)
    console.print(f"grades: {csv_path}   per-student results: {csv_path.parent / 'results'}", markup=False)
    if report:
        console.print(f"report: {report}   feedback pages: {report.parent / 'feedback'}", markup=False)


def _calibrate(args, limits) -> int:
    from autograder.calibrate import calibrate, verdicts_json

    try:
        verdicts, seconds = calibrate(
            assignment=args.assignment,
            limits=limits,
            workers=args.workers,
            seed=args.seed,
            progress=not args.json,
            calibration_dir=args.calibration_dir,
        )
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
            table.add_row(
                v.file,
                v.expected,
                f"{v.score:g}/{v.max_score:g}",
                v.status,
                "[green]ok[/green]" if v.ok else "[red]FAIL[/red]",
                v.note,
            )
        console = Console()
        console.print(table)
        target = "ok" if seconds < 5 else "SLOW (target < 5 s)"
        console.print(
            f"reference solution graded in {seconds:.2f} s ({target}); "
            f"{sum(v.ok for v in verdicts)}/{len(verdicts)} verdicts ok"
        )
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
