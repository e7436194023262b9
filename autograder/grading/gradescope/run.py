"""Trusted: grade the submission Gradescope put in ``/autograder/submission/`` into ``results/results.json``.

Called by the package's ``run_autograder`` (``python -m autograder.grading.gradescope.run --assignment NAME``).
It uses the warm pool's sandbox like the command line (namespaces and cgroups when Gradescope runs it as
root, which it does), and always writes a results file: a missing or unreadable submission, or a grader
failure, is a score of 0 with the reason, never a crashed autograder.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.grading.gradescope.results import VISIBILITIES

__all__ = ["find_submission", "main"]


def find_submission(folder: Path, assignment: str) -> Path | None:
    """The notebook (or script) to grade: <assignment>.ipynb, else the only .ipynb, else the only .py."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".ipynb", ".py"))
    files = [p for p in files if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")]
    for name in (f"{assignment}.ipynb", f"{assignment}.py"):
        named = [p for p in files if p.name == name]
        if named:
            return named[0]
    for suffix in (".ipynb", ".py"):
        found = [p for p in files if p.suffix == suffix]
        if len(found) == 1:
            return found[0]
    return None


def _failure(message: str) -> dict:
    return {"score": 0.0, "execution_time": 0.0, "output": message, "tests": [], "extra_data": {}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.grading.gradescope.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--root", type=Path, default=Path("/autograder"), help="Gradescope's folder (/autograder)")
    parser.add_argument("--timeout", type=float, default=60.0, help="wall seconds for the submission (60)")
    parser.add_argument("--executor", choices=("pool", "fresh"), default="pool")
    parser.add_argument(
        "--visibility",
        choices=VISIBILITIES,
        default="visible",
        help="when students see the charges, which quote expected values (Gradescope's visibility; after_published "
        "holds them back until grades are published)",
    )
    args = parser.parse_args(argv)
    results = args.root / "results"
    results.mkdir(parents=True, exist_ok=True)
    path = find_submission(args.root / "submission", args.assignment)
    if path is None:
        data = _failure(
            f"No notebook found: upload {args.assignment}.ipynb (or a single .ipynb or .py file) and submit again."
        )
    else:
        try:
            from autograder.graders import get_assignment
            from autograder.grading.executors import grade_file
            from autograder.grading.gradescope.results import gradescope_results
            from autograder.sandbox.limits import Limits

            result = grade_file(
                assignment=args.assignment,
                path=path,
                limits=Limits(wall_seconds=args.timeout),
                hide=(args.root / "source" / "tests",),
                executor=args.executor,
            )
            data = gradescope_results(result, get_assignment(args.assignment), visibility=args.visibility)
        except Exception as exc:  # the grader's own failure: the student sees that, not a crash
            data = _failure(f"The grader could not grade this submission ({type(exc).__name__}: {exc}).")
    (results / "results.json").write_text(json.dumps(data), encoding="utf-8")
    print(f"{path}: {data['score']:g} -> {results / 'results.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
