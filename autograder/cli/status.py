"""Trusted: ``python -m autograder status OUT``: one line on the class run in an output folder, running or not
(``outputs.progress``: done of total, failures, elapsed, time left), read from another terminal; it takes no
lock and changes nothing."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli.common import fail

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    status = sub.add_parser(
        "status",
        help="one line on a running or finished class run: graded of total, failures, elapsed, time left",
        description="One line on the class run in OUT (the grade command's --out folder), running or finished.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m autograder status graded      # while grade ... --out graded runs elsewhere",
    )
    status.add_argument("out", type=Path, metavar="OUT", help="the --out folder of a class run (e.g. graded)")


def run(args) -> int:
    from autograder.outputs.progress import status_line

    try:
        print(status_line(args.out))
    except FileNotFoundError as exc:
        return fail(str(exc))
    return 0
