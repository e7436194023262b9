"""Trusted: ``python -m autograder gradescope-package``: the autograder zip Gradescope expects
(``grading.gradescope.package``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli.common import fail, positive

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    pack = sub.add_parser("gradescope-package", help="build the autograder zip Gradescope expects")
    pack.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    pack.add_argument(
        "--out", type=Path, default=None, help="the zip to write (default dist/<assignment>-gradescope.zip, under ./)"
    )
    pack.add_argument(
        "--torch-index-url",
        default=None,
        metavar="URL",
        help="wheel index the zip's setup.sh installs torch from (default PyTorch's CPU index: a CPU build)",
    )
    pack.add_argument("--timeout", type=positive(float), default=60.0, help="wall seconds per submission (60)")
    pack.add_argument(
        "--visibility",
        choices=("visible", "hidden", "after_due_date", "after_published"),
        default="visible",
        help="when students see their result: score, passing tests and charges (which quote expected values) "
        "alike (Gradescope's visibility: after_published holds it all back until you publish grades; default "
        "visible)",
    )


def run(args: argparse.Namespace) -> int:
    from autograder.grading.gradescope.package import build_package

    index = {} if args.torch_index_url is None else {"torch_index_url": args.torch_index_url}
    try:
        path = build_package(
            assignment=args.assignment, out=args.out, timeout=args.timeout, visibility=args.visibility, **index
        )
    except ValueError as exc:
        return fail(str(exc))
    print(f"Gradescope autograder: {path} (upload it as the assignment's autograder zip)")
    return 0
