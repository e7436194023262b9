"""Trusted: ``python -m autograder mutate``: mutation testing of the grader (``qa.mutants`` makes mutants of the
correct sources; ``qa.mutation_score`` grades each on many seeds and classifies it)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.cli.common import assignment_error, fail, positive

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    mut = sub.add_parser("mutate", help="mutation testing: grade mutants of the correct sources on many seeds")
    mut.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    mut.add_argument("--seeds", type=positive(int), default=25, metavar="N", help="grade on seeds 1..N (25)")
    mut.add_argument("--workers", type=positive(int), default=None, help="parallel processes (default: cores)")
    mut.add_argument("--out", type=Path, default=None, help="also write the Markdown report to this file")
    mut.add_argument("--limit", type=positive(int), default=0, help=argparse.SUPPRESS)  # the first N mutants
    mut.add_argument("--json", action="store_true", help="print JSON (the last thing on stdout)")


def run(args) -> int:
    """0 if no mutant is seed-dependent or survived (``main`` runs it guarded, as every command that grades)."""
    from autograder.qa.mutation_score import has_mutation

    if error := assignment_error(args.assignment):
        return fail(error)
    if not has_mutation(args.assignment):
        return fail(f"{args.assignment} has no judge/mutation.py: it declares no mutation sources")
    return _mutate(args)


def _mutate(args) -> int:
    from autograder.qa.mutation_score import report_markdown, results_json, run_mutants
    from autograder.qa.sweep import seeds_from

    seeds = seeds_from(args.seeds)
    results, seconds = run_mutants(
        assignment=args.assignment, seeds=seeds, workers=args.workers, progress=not args.json, limit=args.limit
    )
    report = report_markdown(results, seeds, seconds)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    summary = results_json(results, seconds)
    sys.stdout.write(json.dumps(summary) + "\n" if args.json else report)
    return 0 if summary["ok"] else 1
