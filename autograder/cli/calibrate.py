"""Trusted: ``python -m autograder calibrate``: the grader's calibration corpus on one plan (every verdict,
attacks included: ``qa.calibrate``), or with ``--seeds N`` the seed sweep (``qa.sweep``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.cli import dask, keep_evidence
from autograder.cli.common import fail, grading_limits, positive

__all__ = ["add_parser", "run"]


def add_parser(sub, common: argparse.ArgumentParser) -> None:
    cal = sub.add_parser("calibrate", parents=[common], help="grade the calibration submissions and check verdicts")
    cal.add_argument("--timeout", type=positive(float), default=20.0, help="wall seconds per submission (20)")
    cal.add_argument(
        "--calibration-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="grade DIR/{correct,wrong,attacks,tricks}/ instead of the assignment's own calibration files",
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
    cal.add_argument(
        "--list",
        action="store_true",
        help="print the corpus as Markdown tables (each file's band and what it does, from its own header) and "
        "grade nothing",
    )
    keep_evidence.add_option(cal, each=True)


def run(args) -> int:
    """``calibrate`` (``main`` runs it guarded, as every command that grades): where it runs, then its limits;
    ``--list`` grades nothing."""
    if args.list:
        return _list(args)
    args.scheduler = dask.scheduler(args)  # --executor dask: the cluster, checked; else None (this machine)
    if isinstance(args.scheduler, str):
        return fail(args.scheduler)
    limits = grading_limits(args)
    if isinstance(limits, str):
        return fail(limits)
    if args.seeds:
        if args.keep_evidence is not None:
            return fail("--keep-evidence keeps one plan's evidence: drop it or --seeds")
        if args.seed is not None:
            return fail("give either --seed (one plan) or --seeds N (the sweep over seeds 1..N), not both")
        return _sweep(args, limits)
    if args.in_process:
        return fail("--in-process goes with --seeds N (the sweep): attacks are only ever graded in the sandbox")
    if args.keep_evidence is not None and (error := keep_evidence.problem_each(args)):
        return fail(error)
    return _calibrate(args, limits)


def _list(args) -> int:
    from autograder.graders import get_assignment
    from autograder.qa.calibrate import catalogue

    folder = args.calibration_dir or get_assignment(args.assignment).calibration_dir
    if not Path(folder).is_dir():
        return fail(f"--calibration-dir {folder}: no such folder; give the folder that holds correct/, wrong/, ...")
    sys.stdout.write(catalogue(Path(folder)))
    return 0


def _calibrate(args, limits) -> int:
    from autograder.qa.calibrate import calibrate, verdicts_json

    kept: dict = {}
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
            keep=None if args.keep_evidence is None else kept.__setitem__,
        )
    except FileNotFoundError as exc:
        return fail(str(exc))
    status = 0 if args.keep_evidence is None else keep_evidence.write_each(args.keep_evidence, kept)
    summary = verdicts_json(verdicts, seconds)
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        from autograder.outputs.summary import print_calibration

        print_calibration(verdicts, seconds, assignment=args.assignment)
    return (0 if summary["ok"] else 1) or status


def _sweep(args, limits) -> int:
    """0 if every verdict holds on every seed."""
    from autograder.qa.sweep import render, run_sweep, seeds_from

    seeds = seeds_from(args.seeds)
    kwargs = dict(in_process=args.in_process, workers=args.workers, limits=limits, progress=not args.json)
    if not args.in_process:
        kwargs.update(executor=args.executor, scheduler=args.scheduler)
    summary, rows = run_sweep(assignment=args.assignment, seeds=seeds, calibration_dir=args.calibration_dir, **kwargs)
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        print(render(rows, seeds, summary["seconds"], in_process=args.in_process))
    return 0 if summary["ok"] else 1
