"""Trusted: the grader's own tests on the command line: ``calibrate`` (one plan, or ``--seeds N``) and ``mutate``.

Kept out of ``cli.py`` (which holds grading) so that each file stays one concept; ``cli.main`` dispatches here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["add_calibrate_parsers", "calibrate_command", "mutate_command"]


def add_calibrate_parsers(sub, common: argparse.ArgumentParser, positive) -> None:
    """The `calibrate` and `mutate` subcommands; `positive(kind)` is cli's parser of positive numbers."""
    cal = sub.add_parser("calibrate", parents=[common], help="grade the calibration submissions and check verdicts")
    cal.add_argument("--timeout", type=positive(float), default=20.0, help="wall seconds per submission (20)")
    cal.add_argument(
        "--calibration-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="grade DIR/{correct,wrong,attacks}/ instead of the assignment's own calibration files",
    )
    cal.add_argument(
        "--seeds",
        type=positive(int),
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
    mut.add_argument("--seeds", type=positive(int), default=25, metavar="N", help="grade on seeds 1..N (25)")
    mut.add_argument("--workers", type=positive(int), default=None, help="parallel processes (default: cores)")
    mut.add_argument("--out", type=Path, default=None, help="also write the Markdown report to this file")
    mut.add_argument("--limit", type=positive(int), default=0, help=argparse.SUPPRESS)  # the first N mutants
    mut.add_argument("--json", action="store_true", help="print JSON (the last thing on stdout)")


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def calibrate_command(args, limits) -> int:
    """`calibrate`: one plan (every verdict, attacks included) or, with --seeds, the sweep."""
    if args.seeds:
        from autograder.qa.sweep import command

        return command(args, limits)
    from autograder.qa.calibrate import calibrate, verdicts_json

    if args.in_process:
        return _fail("--in-process goes with --seeds N (the sweep): attacks are only ever graded in the sandbox")
    try:
        verdicts, seconds = calibrate(
            assignment=args.assignment,
            limits=limits,
            workers=args.workers,
            seed=args.seed,
            progress=not args.json,
            calibration_dir=args.calibration_dir,
            executor=args.executor,
            scheduler=args.scheduler,
        )
    except FileNotFoundError as exc:
        return _fail(str(exc))
    summary = verdicts_json(verdicts, seconds)
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        from autograder.outputs.summary import print_calibration

        print_calibration(verdicts, seconds, assignment=args.assignment)
    return 0 if summary["ok"] else 1


def mutate_command(args) -> int:
    """`mutate`: the mutation run (autograder.qa.mutation_score)."""
    from autograder.graders import ASSIGNMENTS
    from autograder.qa.mutation_score import command

    if args.assignment not in ASSIGNMENTS:
        return _fail(
            f"unknown assignment {args.assignment!r}: use --assignment with one of {', '.join(sorted(ASSIGNMENTS))}"
        )
    return command(args)
