"""Trusted: ``grade FILE --keep-evidence DIR``: one hand-in's judgement inputs kept for pytest (``judge.kept``).

The folder is checked before anything is graded, and written once the judge has answered; pytest then runs the
hidden suite on it (``pytest autograder/graders/<assignment>/judge/suite --evidence DIR``,
``grading.judge.pytest_suite``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

__all__ = ["add_option", "problem", "problem_each", "write", "write_each"]


def add_option(parser: argparse.ArgumentParser, *, each: bool = False) -> None:
    """``--keep-evidence DIR``: `each` file's evidence in a folder of its own in DIR (``calibrate``), or one's."""
    what = "each file's in DIR/<folder>/<file>/" if each else "one file's in DIR"
    parser.add_argument(
        "--keep-evidence",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"keep what the judge read (the run's evidence, the plan's seed, the limits) and decided, {what} (a "
        "new or empty folder), to run the hidden suite on it with pytest: "
        "pytest autograder/graders/<assignment>/judge/suite --evidence DIR",
    )


def problem(args, single: bool) -> str | None:
    """Why --keep-evidence cannot be kept as asked (checked before grading: nothing is graded in vain), or None
    with its folder ready (made if new, and empty)."""
    from autograder.grading.judge.kept import folder_problem

    if not single or args.out is not None:
        return "--keep-evidence keeps one hand-in's evidence: grade one FILE, without --out"
    if args.executor == "dask":
        return "--keep-evidence needs the judge on this machine: drop --executor dask (the pool or fresh keep it)"
    return folder_problem(args.keep_evidence)


def problem_each(args) -> str | None:
    """``calibrate``'s --keep-evidence: why it cannot be kept as asked, or None with its folder ready."""
    from autograder.grading.judge.kept import folder_problem

    if args.executor != "pool":
        return f"--keep-evidence keeps what the pool's judges read: drop --executor {args.executor}"
    return folder_problem(args.keep_evidence)


def write_each(folder: Path, kept: dict) -> int:
    """Each file's kept evidence into `folder`/<where>/; 1 when one could not be written (the others are)."""
    status = 0
    for where, one in sorted(kept.items()):
        try:
            (folder / where).mkdir(parents=True, exist_ok=False)
            one.write(folder / where)
        except OSError as exc:
            print(f"error: the evidence of {where} could not be written into {str(folder)!r}: {exc}", file=sys.stderr)
            status = 1
    print(f"evidence of {len(kept)} files kept in {folder}/<folder>/<file>/", file=sys.stderr)
    return status


def write(args, kept: list) -> int:
    """The kept evidence into its folder, and how to run the hidden suite on it; 1 when nothing could be kept."""
    from autograder.graders import get_assignment

    folder = args.keep_evidence
    if not kept:
        print(f"no evidence kept in {str(folder)!r}: the grade stopped before the judge answered", file=sys.stderr)
        return 1
    try:
        kept[0].write(folder)
    except OSError as exc:
        print(f"error: the evidence could not be written into {str(folder)!r}: {exc}", file=sys.stderr)
        return 1
    suite = get_assignment(args.assignment).suite_dir
    with contextlib.suppress(ValueError):
        suite = suite.relative_to(Path.cwd())
    print(
        f"evidence kept in {folder}: run the hidden suite on it with pytest {suite} --evidence {folder} "
        "(-k TEST, -x, --pdb, -v as for any test)",
        file=sys.stderr,
    )
    return 0
