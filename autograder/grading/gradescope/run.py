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
from datetime import UTC, datetime
from pathlib import Path

from autograder.grading.catalog import LANGUAGES, render
from autograder.grading.gradescope.results import VISIBILITIES
from autograder.grading.handins import when
from autograder.grading.language import DEFAULT_LANGUAGE, submission_language

__all__ = ["Upload", "find_submission", "main", "APART"]

# Seconds two files' times must be apart to say which was saved later: a zip keeps a file's time to 2 s.
APART = 2.0


@dataclass(frozen=True)
class Upload:
    """What to grade in an upload: the file (None: nothing to grade) and, when the upload held more than
    that file or nothing usable, the engine's catalog message saying so ({"id", "params"}; empty otherwise)."""

    path: Path | None
    said: dict = field(default_factory=dict)

    def words(self, language: str) -> str:
        return render(self.said["id"], language, **self.said.get("params", {})) if self.said else ""


def find_submission(folder: Path, assignment: str) -> Upload:
    """The notebook (or, with none, the script) to grade, read by what each file is rather than by its name.

    Its notebooks (else its scripts) by edition, read from each file (``editions.submission_language``): one
    file of an edition is that edition's, several are told apart only by the assignment's own name
    (``weight_tying.ipynb``), else the upload is ambiguous and nothing is graded. Of several editions, the one
    saved later by the files' times, as README promises for nbgrader's hand-ins; times less than ``APART``
    seconds apart (files dropped in the browser together carry none of their own) cannot tell, and the
    assignment's own edition, English, is graded. Whatever else was a candidate is named in the output."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".ipynb", ".py"))
    files = [p for p in files if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")]
    pool = [p for p in files if p.suffix == ".ipynb"] or files
    if not pool:
        return Upload(None, {"id": "upload.none", "params": {"assignment": assignment}})
    if len(pool) == 1:
        return Upload(pool[0])
    names = ", ".join(_shown(p, folder) for p in pool)
    several = Upload(None, {"id": "upload.several", "params": {"count": len(pool), "files": names}})
    editions: dict[str, list[Path]] = {}
    for path in pool:
        editions.setdefault(submission_language(path), []).append(path)
    chosen: dict[str, Path] = {}
    for language, group in editions.items():
        named = [p for p in group if p.stem == assignment]
        if len(group) > 1 and len(named) != 1:
            return several
        chosen[language] = group[0] if len(group) == 1 else named[0]
    if len(chosen) == 1:
        graded = next(iter(chosen.values()))
        others = ", ".join(_shown(p, folder) for p in pool if p != graded)
        return Upload(graded, {"id": "upload.others", "params": {"graded": _shown(graded, folder), "others": others}})
    times = {language: path.stat().st_mtime for language, path in chosen.items()}
    ordered = sorted(chosen, key=times.__getitem__)
    if times[ordered[-1]] - times[ordered[-2]] >= APART:
        key, graded = "upload.editions.later", chosen[ordered[-1]]
    elif DEFAULT_LANGUAGE in chosen:
        key, graded = "upload.editions.together", chosen[DEFAULT_LANGUAGE]
    else:  # no later one and no English: which one is the student's call
        return several
    stamped = ", ".join(f"{_shown(p, folder)} {_saved(p)}" for p in sorted(chosen.values(), key=_mtime))
    params = {
        "files": stamped,
        "graded": _shown(graded, folder),
        "others": ", ".join(_shown(p, folder) for p in pool if p != graded),
        "seconds": f"{APART:g}",
    }
    return Upload(graded, {"id": key, "params": params})


def _shown(path: Path, folder: Path) -> str:
    return str(path.relative_to(folder))


def _mtime(path: Path) -> float:
    return path.stat().st_mtime


def _saved(path: Path) -> str:
    return when(datetime.fromtimestamp(path.stat().st_mtime, UTC))


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
        help="when students see their result: score, passing tests and charges alike (Gradescope's visibility; "
        "after_published holds it all back until grades are published)",
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
            data = gradescope_results(result, visibility=args.visibility)
            if upload.said:  # which file of the upload was graded, and why, before the run's summary
                data["output"] = upload.words(result.language) + "\n\n" + data["output"]
        except Exception as exc:  # the grader's own failure: the student sees that, not a crash
            data = _failure(f"The grader could not grade this submission ({type(exc).__name__}: {exc}).")
    (results / "results.json").write_text(json.dumps(data), encoding="utf-8")
    print(f"{path}: {data['score']:g} -> {results / 'results.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
