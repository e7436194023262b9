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
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading.catalog import LANGUAGES, render
from autograder.grading.editions import DEFAULT_LANGUAGE, submission_language
from autograder.grading.gradescope.results import VISIBILITIES

__all__ = ["Upload", "find_submission", "main"]


@dataclass(frozen=True)
class Upload:
    """What to grade in an upload: the file (None: nothing to grade) and, when the upload held more than
    that file or nothing usable, the engine's catalog message saying so ({"id", "params"}; empty otherwise)."""

    path: Path | None
    said: dict = field(default_factory=dict)

    def words(self, language: str) -> str:
        return render(self.said["id"], language, **self.said.get("params", {})) if self.said else ""


def find_submission(folder: Path, assignment: str) -> Upload:
    """The notebook (or script) to grade: <assignment>.ipynb, else <assignment>.py, else the only .ipynb, else the
    only .py. Several left (an upload of both editions' notebooks): by the kit's rule for editions handed in
    together, the assignment's own edition (English), said in the output; several of one edition: none."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".ipynb", ".py"))
    files = [p for p in files if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")]
    groups = (
        [p for p in files if p.name == f"{assignment}.ipynb"],
        [p for p in files if p.name == f"{assignment}.py"],
        [p for p in files if p.suffix == ".ipynb"],
        [p for p in files if p.suffix == ".py"],
    )
    found = next((group for group in groups if group), [])
    if len(found) == 1:
        return Upload(found[0])
    names = ", ".join(str(p.relative_to(folder)) for p in found)
    if not found:
        return Upload(None, {"id": "upload.none", "params": {"assignment": assignment}})
    languages = [submission_language(p) for p in found]
    if len(set(languages)) == len(found) and DEFAULT_LANGUAGE in languages:
        graded = found[languages.index(DEFAULT_LANGUAGE)]
        params = {"count": len(found), "files": names, "graded": str(graded.relative_to(folder))}
        return Upload(graded, {"id": "upload.editions", "params": params})
    return Upload(None, {"id": "upload.several", "params": {"count": len(found), "files": names}})


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
    upload = find_submission(args.root / "submission", args.assignment)
    path = upload.path
    if path is None:  # no file to read the student's language from: both
        data = _failure("\n".join(upload.words(language) for language in LANGUAGES))
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
            if upload.said:  # which file of the upload was graded, and why, before the run's summary
                data["output"] = upload.words(result.language) + "\n\n" + data["output"]
        except Exception as exc:  # the grader's own failure: the student sees that, not a crash
            data = _failure(f"The grader could not grade this submission ({type(exc).__name__}: {exc}).")
    (results / "results.json").write_text(json.dumps(data), encoding="utf-8")
    print(f"{path}: {data['score']:g} -> {results / 'results.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
