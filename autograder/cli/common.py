"""Trusted: what every subcommand of the command line shares: the options of the commands that grade (the dask
cluster's own are ``cli.dask``'s, checked for that executor alone), its errors, the assignment check.

Exit status: 0 whenever grading ran, whatever the students scored; 1 when calibration finds a wrong verdict
or the grader itself failed; 2 for bad arguments (``fail``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.sandbox.limits import Limits

__all__ = [
    "fail",
    "positive",
    "size",
    "common_options",
    "assignment_error",
    "grading_limits",
    "guarded",
]


def fail(message: str) -> int:
    """Bad arguments: the message on stderr, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def positive(kind: type) -> Callable[[str], float | int]:
    """An argparse type: a positive `kind` (int or float), or an error naming the value."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be positive")
        return value

    return parse


def size(text: str) -> int:
    """An argparse type: a size such as 2GiB, in bytes."""
    from autograder.sandbox.limits import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def assignment_error(name: str) -> str | None:
    """Why `name` is not an assignment this kit grades (the registry's words), or None."""
    from autograder.graders import unknown_assignment

    return unknown_assignment(name)


def common_options() -> argparse.ArgumentParser:
    """The options of every command that grades (``grade``, ``calibrate``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    common.add_argument("--json", action="store_true", help="print JSON (the last thing on stdout)")
    common.add_argument("--seed", type=int, default=None, help="fix the judge's random plan (default: random)")
    common.add_argument(
        "--memory", type=size, default=None, help="memory cap per submission (default 2GiB; grade: the --out folder's)"
    )
    common.add_argument("--workers", type=positive(int), default=None, help="parallel submissions (default: cores)")
    common.add_argument(
        "--executor",
        choices=("pool", "fresh", "dask"),
        default="pool",
        help="pool: warm workers on this machine (default); fresh: a new interpreter per submission; "
        "dask: warm workers on the dask.distributed cluster at --scheduler (its options: 'dask cluster' below)",
    )
    return common


def guarded(command: Callable[[], int]) -> int:
    """Run a command that grades: Ctrl-C exits 130; the grader's own failure is said, and exits 1."""
    try:
        return command()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the grader itself failed: say so, exit non-zero
        from autograder.grading.terminal import printable

        print(f"grader error: {type(exc).__name__}: {printable(exc, limit=2000)}", file=sys.stderr)
        return 1


def grading_limits(args) -> Limits | str:
    """For a command that grades: the assignment known, and the run's limits (what neither the command nor, for
    ``grade``, the --out folder says: ``Limits``' own defaults, 60 s and 2 GiB); or the error message (exit 2)."""
    from autograder.sandbox.limits import Limits

    if error := assignment_error(args.assignment):
        return error
    given = {"wall_seconds": args.timeout, "memory_bytes": args.memory}
    try:
        return Limits(**{name: value for name, value in given.items() if value is not None})
    except ValueError as exc:
        return str(exc)
