"""Trusted: ``python -m autograder misconceptions --assignment NAME``: a grader's misconceptions as the Markdown
table of its MISCONCEPTIONS.md (``marking.scheme_markdown``: the marking scheme's ids, costs and covers, each
titled in English and Chinese by the grader's catalog), on stdout."""

from __future__ import annotations

import argparse
import sys

from autograder.cli.common import assignment_error, fail

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    table = sub.add_parser(
        "misconceptions",
        help="a grader's misconceptions as the Markdown table of its MISCONCEPTIONS.md",
        description="Print the table MISCONCEPTIONS.md holds below its generated marker, from the grader's "
        "marking scheme (marking.toml) and catalog.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder misconceptions --assignment weight_tying",
    )
    table.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")


def run(args) -> int:
    if error := assignment_error(args.assignment):
        return fail(error)
    from autograder.graders import get_assignment
    from autograder.grading.marking import scheme_markdown

    spec = get_assignment(args.assignment)
    if spec.catalog is None:
        return fail(f"{args.assignment!r} has no message catalog to title its misconceptions: give it one")
    sys.stdout.write(scheme_markdown(spec.scheme, spec.catalog.misconception_title))
    return 0
