"""Trusted: ``python -m autograder similarity``: the similarity pass alone, on a class folder in either layout
(``outputs.similarity``), and the options ``grade`` shares with it (``add_options``, ``options_of``).

Over text only: nothing is graded and no student code runs. When the output folder holds a graded class, its
``grades.csv`` (``similar_to``) and ``report.html`` are written again from its results, which it never changes.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from autograder.cli.common import assignment_error, fail
from autograder.protocol.said import LANGUAGES

__all__ = ["add_parser", "add_options", "options_of", "run", "share", "summary"]


def share(text: str) -> float:
    """An argparse type: a share between 0 and 1 (0.6), or a percentage (60%)."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share: give e.g. 0.6 or 60%") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1 (or 0% and 100%): give e.g. 0.6")
    return value


def add_options(parser: argparse.ArgumentParser, *, threshold: str) -> None:
    """--archive DIR (repeatable) and the threshold option (`threshold`: its name on this command)."""
    from autograder.outputs.similarity.engine import DEFAULT_THRESHOLD

    parser.add_argument(
        "--archive",
        action="append",
        type=Path,
        default=None,
        metavar="DIR",
        help="earlier years' hand-ins (either layout) to compare the class with: never shown to a student nor "
        "listed as one; repeatable (default: the folder's last)",
    )
    parser.add_argument(
        threshold,
        type=share,
        default=None,
        metavar="SHARE",
        help=f"list a pair when this share of either one's own code is in the other's (default: the folder's last, "
        f"else {DEFAULT_THRESHOLD:g}, calibrated: README)",
    )


def options_of(args, *, threshold: float | None):
    from autograder.outputs.similarity.detect import SimilarityOptions

    archives = tuple(args.archive) if args.archive is not None else None
    course = getattr(args, "nbgrader_course", None)
    language = getattr(args, "language", "en")  # the instructor's: similarity.html and the pairs' pages
    return SimilarityOptions(
        threshold=threshold, archives=archives, courses=(course,) if course else (), language=language
    )


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "similarity",
        help="which hand-ins of a class share code (beyond the starter code and what many share)",
        description="Compare every hand-in of a class with the others (and with --archive folders): a side-by-side "
        "page per pair at the threshold, similarity.html, and similar_to in grades.csv when OUT is graded.",
    )
    parser.add_argument("--assignment", required=True, help="assignment name, e.g. weight_tying")
    parser.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="class folder (nbgrader submitted/ or flat) or files"
    )
    parser.add_argument("--out", type=Path, required=True, help="where to write similarity.html and similar/")
    parser.add_argument(
        "--nbgrader-course", type=Path, default=None, metavar="COURSE", help="the course whose release is the starter"
    )
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        default="en",
        help="the instructor's words: similarity.html, the side-by-side pages, the report written again and this "
        "command's summary line (default en; zh: Chinese)",
    )
    add_options(parser, threshold="--threshold")


def summary(outcome, out: Path, language: str = "en") -> str:
    """The line a pass prints: how many were compared, how many pairs are listed, where to read them."""
    from autograder.outputs.messages_report import report_words

    w = report_words(language)
    archived = w["similar.summary_archived"].format(n=outcome.archived) if outcome.archived else ""
    why = Counter(str(e.get("problem", "")) for e in outcome.not_compared)  # in the order first met
    clauses = [w.get(f"similar.left.{k}", w["similar.left.other"]).format(n=n, kind=k) for k, n in why.items()]
    left = w["similar.summary_left"].format(kinds=w["list"].join(clauses)) if why else ""  # each reason, its count
    return w["similar.summary" if outcome.pairs else "similar.summary_none"].format(
        n=outcome.hand_ins,
        archived=archived,
        left=left,
        pairs=len(outcome.pairs),
        threshold=f"{outcome.threshold:.0%}",
        page=out / "similarity.html",
    )


def run(args) -> int:
    from autograder.graders import editions_of, get_assignment
    from autograder.grading.submissions import find_submissions
    from autograder.outputs.folder import FolderBusy, OutputFolder
    from autograder.outputs.roster import build_roster
    from autograder.outputs.similarity.detect import class_hand_ins, run_similarity

    if error := assignment_error(args.assignment):
        return fail(error)
    for path in args.paths:
        if not path.exists():
            return fail(f"{str(path)!r} does not exist: give a class folder (or hand-in files)")
    editions = editions_of(args.assignment)
    notebook = get_assignment(args.assignment).name
    submissions = find_submissions(list(args.paths), assignment=editions[0], also=editions[1:], notebook=notebook)
    if not submissions:
        return fail(f"no .py/.ipynb hand-ins found under {', '.join(map(str, args.paths))}")
    folder = OutputFolder(args.out)
    try:
        with folder.lock():
            manifest = folder.read_manifest()
            graded = manifest is not None and manifest.assignment in editions
            known = manifest.known_uids() if graded else {}
            roster = build_roster(
                submissions, roots=list(args.paths), assignment=editions[0], known=known, editions=editions[1:]
            )
            options = options_of(args, threshold=args.threshold)
            outcome = run_similarity(args.assignment, args.out, class_hand_ins(roster, tuple(args.paths)), options)
            if graded:
                _rewrite_outputs(args.out, args.language)
    except FolderBusy as exc:
        return fail(str(exc))
    for problem in outcome.problems:
        print(f"warning: {problem}", file=sys.stderr)
    print(summary(outcome, args.out, args.language))
    return 0


def _rewrite_outputs(out: Path, language: str = "en") -> None:
    """A graded folder's grades.csv and report again, from its results (which the pass never touches)."""
    from autograder.outputs.classview import load_class
    from autograder.outputs.grades import write_grades
    from autograder.outputs.report import write_report

    write_grades(out, load_class(out).rows)
    write_report(out, language)
