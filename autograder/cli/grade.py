"""Trusted: ``python -m autograder grade``: one file, several, or folders of submissions (a class into an output
folder: ``outputs.classrun``; one file alone: ``grading.executors.grade_file``); optionally nbgrader's gradebook."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.cli import dask, keep_evidence, similarity
from autograder.cli.common import fail, grading_limits, positive
from autograder.cli.grade_options import add_options, complete, late_options
from autograder.protocol.said import LANGUAGES

__all__ = ["add_parser", "run"]


def add_parser(sub, common: argparse.ArgumentParser, epilog: str) -> None:
    grade = sub.add_parser(
        "grade",
        parents=[common],
        help="grade one file, several, or folders of submissions",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog,
    )
    grade.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help=".py/.ipynb file, or a folder (nbgrader submitted/<student>/<assignment>/ or flat); "
        "default with --nbgrader-course: COURSE/submitted",
    )
    grade.add_argument(
        "--timeout", type=positive(float), default=None, help="wall seconds per submission (60; default: the folder's)"
    )
    grade.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write results/<student>.json, grades.csv, report.html and feedback/<student>.html "
        "here (default for folders: ./graded)",
    )
    grade.add_argument(
        "--gradebook",
        type=Path,
        default=None,
        metavar="DB",
        help="also write the scores into this nbgrader gradebook.db (created if absent); see below",
    )
    grade.add_argument(
        "--nbgrader-course",
        type=Path,
        default=None,
        metavar="COURSE",
        help="nbgrader course directory: grade COURSE/submitted (unless PATHs are given) and write COURSE/gradebook.db",
    )
    grade.add_argument(
        "--force", action="store_true", help="regrade every submission, even those already graded in --out"
    )
    grade.add_argument(
        "--student",
        action="append",
        default=[],
        metavar="S",
        help="regrade student S (name, id or nbgrader id, as grades.csv lists them) even if already graded; repeatable",
    )
    grade.add_argument(
        "--dry-run",
        action="store_true",
        help="grade in memory what would be regraded (a changed marking scheme or grader, --force, --student) and "
        "list whose marks would move and by how much; nothing is written",
    )
    grade.add_argument(
        "--due",
        default=None,
        metavar="WHEN",
        help="the due date, e.g. '2026-05-04 23:59 Europe/Berlin' or '2026-05-04 23:59 +02:00' (an IANA zone or an "
        "offset; no zone: UTC); default: the folder's, else each edition's duedate in nbgrader's gradebook (with each "
        "student's extension). Lateness is shown per student",
    )
    grade.add_argument(
        "--late-penalty",
        default=None,
        metavar="POLICY",
        help="none, zero or P/hour (P points per hour late or part of one), apart from the grader's score; default: "
        "the folder's, else the course's nbgrader_config.py (nbgrader's LateSubmissionPlugin), else none",
    )
    grade.add_argument(
        "--language",
        choices=LANGUAGES,
        default="en",
        help="the instructor's words: the class report, the class table and the run summary (default en; zh: "
        "Chinese); each student's page (and one file's table) is in the language of the edition they handed in, or "
        "in this one when the file does not say which (an unreadable file, a .py file without '# language: zh')",
    )
    grade.add_argument(
        "--gradebook-assignment",
        default=None,
        metavar="NAME",
        help="nbgrader assignment to write every student into (default: each student's own edition, "
        "as handed in: the --assignment name or another edition of it, e.g. weight_tying_zh)",
    )
    add_options(grade)  # --extension, --extensions, --accept-new-options
    grade.add_argument(
        "--no-similarity",
        action="store_true",
        help="skip the similarity pass that ends a class run (which hand-ins share code: similarity.html)",
    )
    similarity.add_options(grade, threshold="--similarity-threshold")  # --archive DIR, --similarity-threshold
    keep_evidence.add_option(grade)  # --keep-evidence DIR


def run(args) -> int:
    """``grade``: its options checked (what shapes a mark, then where it runs, then its limits), then the grading
    (``main`` runs it guarded: Ctrl-C exits 130, the grader's own failure exits 1)."""
    single = len(args.paths) == 1 and args.paths[0].is_file()
    options = complete(args, args.out or (None if single else Path("graded")))  # what is left out: the folder's
    if isinstance(options, str):
        return fail(options)
    args.scheduler = dask.scheduler(args)  # --executor dask: the cluster, checked; else None (this machine)
    if isinstance(args.scheduler, str):
        return fail(args.scheduler)
    limits = grading_limits(args)
    if isinstance(limits, str):
        return fail(limits)
    return _grade(args, limits, options.extensions)


def _targets(args) -> tuple[list[Path], Path | None, tuple[Path, ...]] | str:
    """(submission paths, gradebook or None, extra paths to hide) from the arguments, or an error message."""
    paths, gradebook, hide = list(args.paths), args.gradebook, []
    if args.nbgrader_course is not None:
        course = args.nbgrader_course
        if not course.is_dir():
            return f"--nbgrader-course {str(course)!r} is not a folder: give the nbgrader course directory"
        if gradebook is not None:
            return "give either --gradebook or --nbgrader-course (which means COURSE/gradebook.db), not both"
        gradebook = course / "gradebook.db"
        if not paths:
            paths = [course / "submitted"]
            if not paths[0].is_dir():
                return f"{str(paths[0])!r} does not exist: collect the submissions first (nbgrader collect)"
        # nbgrader keeps hidden tests in source/ and in the gradebook; graded copies are not for students either
        hide += [course / sub for sub in ("source", "autograded", "feedback")]
        from autograder.graders import editions_of
        from autograder.outputs.gradebook_editions import unreleased

        into = (args.gradebook_assignment,) if args.gradebook_assignment else None  # None: each one's edition
        if why := unreleased(course, gradebook, into or editions_of(args.assignment), None if into else paths):
            return why  # before grading: fail fast, create nothing
    if not paths:
        return "give the submissions to grade (files or folders), or --nbgrader-course COURSE"
    if gradebook is not None:
        if gradebook.suffix != ".db" or not gradebook.parent.is_dir():
            return (
                f"--gradebook {str(gradebook)!r} should be an nbgrader gradebook.db in an existing folder "
                "(e.g. course/gradebook.db; it is created if absent)"
            )
        hide.append(gradebook)
    for path in paths:
        if not path.exists():
            return f"{str(path)!r} does not exist: give a .py/.ipynb submission or a folder of them"
        if path.is_file() and path.suffix not in (".py", ".ipynb"):
            return f"{str(path)!r} is neither .py nor .ipynb: give the student's notebook or script"
    return paths, gradebook, tuple(hide)


def _grade(args, limits, extensions) -> int:
    from autograder.graders import editions_of, get_assignment
    from autograder.grading.submissions import find_submissions

    targets = _targets(args)
    if isinstance(targets, str):
        return fail(targets)
    paths, gradebook, hide = targets
    single = len(paths) == 1 and paths[0].is_file()
    due, why = late_options(args, gradebook)
    if why:
        return fail(why)
    if single and args.out is None and args.dry_run:
        return fail("--dry-run compares with a class folder's marks: give --out FOLDER")
    if single and args.out is None and (args.due or args.late_penalty or extensions is not None):
        return fail(
            "--due, --late-penalty and --extension apply to a class run: give --out FOLDER (a class of one works too)"
        )
    if args.no_similarity and (args.archive or args.similarity_threshold is not None):
        return fail("--archive and --similarity-threshold set the similarity pass: drop them or --no-similarity")
    if args.keep_evidence is not None and (error := keep_evidence.problem(args, single)):
        return fail(error)
    if single:
        # nbgrader layout .../<student>/<assignment>/<file>: the student is the folder, not the file
        file = paths[0]
        where = file.resolve().parent  # absolute: a relative "weight_tying/x.ipynb" still has a student folder
        nbgrader = where.name in editions_of(args.assignment) and where.parent.name != ""
        submissions = {where.parent.name if nbgrader else file.stem: where / file.name}
        roots = (where.parent.parent,) if nbgrader else (where,)
        if args.out is None:
            return _grade_one(args, limits, file, submissions, roots, gradebook, hide)
    else:
        also, notebook = editions_of(args.assignment)[1:], get_assignment(args.assignment).name  # its own notebook
        submissions = find_submissions(paths, assignment=args.assignment, also=also, notebook=notebook)
        roots = tuple(paths)
        if not submissions:
            return fail(f"no .py/.ipynb submissions found under {', '.join(map(str, paths))}")
    # a class's outputs (one file without --out needs none of them: its command starts ~20 ms sooner)
    from autograder.outputs.classrun import ClassJob, ClassRunError, grade_class
    from autograder.outputs.folder import FolderBusy
    from autograder.outputs.messages_report import report_words
    from autograder.outputs.options import OptionsChanged
    from autograder.outputs.roster import display_name
    from autograder.outputs.summary import batch_json, print_batch
    from autograder.outputs.table import render

    job = ClassJob(
        assignment=args.assignment,
        paths=roots,
        out=args.out or Path("graded"),
        seed=args.seed,
        limits=limits,
        workers=args.workers,
        progress=not single and (sys.stderr.isatty() or not args.json),
        hide=hide,
        force=args.force,
        only=tuple(args.student),
        executor=args.executor,
        scheduler=args.scheduler,
        due=due,
        late_penalty=args.late_penalty,
        gradebook=gradebook,
        extensions=extensions,
        course=args.nbgrader_course,
        gradebook_assignment=args.gradebook_assignment,
        accept_new_options=args.accept_new_options,
        similarity=None if args.no_similarity else similarity.options_of(args, threshold=args.similarity_threshold),
        language=args.language,
    )
    if args.dry_run:
        return _dry_run(args, job, submissions)
    try:
        outcome = grade_class(job, submissions=submissions)
    except (ClassRunError, FolderBusy, OptionsChanged) as exc:
        return fail(str(exc))
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if outcome.similarity is not None:
        print(similarity.summary(outcome.similarity, job.out, args.language), file=sys.stderr)
    if outcome.placement is not None:
        _place_feedback(outcome.placement, Path(outcome.options.course), job.out)
    if outcome.regrade and outcome.regrade["moved"]:
        moved = len(outcome.regrade["moved"])
        print(f"regrades: {moved} marks moved, each with why: {job.out / 'regrades.jsonl'}", file=sys.stderr)
    if outcome.stale_pages:
        print(
            f"warning: {len(outcome.stale_pages)} feedback pages placed before now show another mark (e.g. "
            f"{outcome.stale_pages[0]}): run nbgrader release_feedback again for each edition (report: Needs a look)",
            file=sys.stderr,
        )
    status = _to_gradebook(args, gradebook, outcome.roster, outcome.results, outcome.late, outcome)
    if outcome.batch_error:
        print(
            f"grader error: the batch stopped ({outcome.batch_error}); {len(outcome.results)} of "
            f"{len(outcome.roster)} results are saved: run the same command again to grade the rest",
            file=sys.stderr,
        )
        status = 1
    one = outcome.results.get(outcome.roster[0].uid) if single else None
    if args.json and one is not None:  # one file: Gradescope's results JSON, as without --out
        sys.stdout.write(json.dumps(_gradescope(one)) + "\n")
    elif args.json and not single:
        sys.stdout.write(json.dumps(batch_json(outcome, gradebook if gradebook and not status else None)) + "\n")
    elif one is not None:
        render(one, title=display_name(str(file)), language=args.language)  # the terminal's table, as graded
        w = report_words(args.language)  # the instructor's words, as the class table's
        done = w["batch.report"].format(report=outcome.report, feedback=job.out / "feedback") if outcome.report else ""
        print(done or w["batch.grades"].format(csv=outcome.csv_path, results=job.out / "results"))
    else:
        print_batch(outcome, language=args.language)
    return status


def _dry_run(args, job, submissions: dict) -> int:
    """Whose marks a regrade would move (``outputs.preview``); nothing is written."""
    from autograder.outputs.classrun import ClassRunError
    from autograder.outputs.preview import preview_class

    try:
        preview = preview_class(job, submissions=submissions)
    except ClassRunError as exc:
        return fail(str(exc))
    if args.json:
        sys.stdout.write(json.dumps(preview.to_json()) + "\n")
    else:
        for line in preview.lines():
            print(line)
    return 0


def _grade_one(args, limits, file: Path, submissions: dict, roots: tuple, gradebook, hide) -> int:
    """One file, no output folder: grade it, show it, and write it to the gradebook if asked."""
    from autograder.graders import editions_of
    from autograder.grading.executors import grade_file
    from autograder.grading.result import Result
    from autograder.grading.terminal import printable
    from autograder.outputs.roster import build_roster, display_name

    kept: list = []
    try:
        result = grade_file(
            assignment=args.assignment,
            path=file,
            seed=args.seed,
            limits=limits,
            hide=hide,
            roots=roots,
            executor=args.executor,
            scheduler=args.scheduler,
            keep=None if args.keep_evidence is None else kept.append,
        )
    except Exception as exc:  # a grader bug: say so, exit 1, and still give the student a result saying so
        print(f"grader error: {type(exc).__name__}: {printable(exc, limit=2000)}", file=sys.stderr)
        result = Result.grader_failure(f"{type(exc).__name__}: {exc}")
    if args.json:
        sys.stdout.write(json.dumps(_gradescope(result)) + "\n")
    else:
        from autograder.outputs.table import render  # (with the pages' templates: not for --json)

        render(result, title=display_name(str(file)), language=args.language)  # the terminal's table, as graded
    status = 0 if args.keep_evidence is None else keep_evidence.write(args, kept)
    if result.grader_error is not None:
        return 1
    if gradebook is None:
        return status
    editions = editions_of(args.assignment)
    roster = build_roster(submissions, roots=list(roots), assignment=editions[0], editions=editions[1:])
    return _to_gradebook(args, gradebook, roster, {roster[0].uid: result}) or status


def _gradescope(result) -> dict:
    """Gradescope's results JSON for one result (``--json``), as it was rendered when graded."""
    from autograder.grading.gradescope.results import gradescope_results

    return gradescope_results(result)


def _place_feedback(done, course: Path, out: Path) -> None:
    """What the class run placed in COURSE/feedback/<student>/<assignment>/, for nbgrader's release_feedback (or to
    hand out, in a course without the exchange); one line for each kind of outcome, not one per student."""
    where = course / "feedback"
    if done.released:
        print(
            f"feedback: {len(done.released)} pages in {where} (send them: nbgrader release_feedback)", file=sys.stderr
        )
    if done.by_hand:
        print(
            f"feedback: {len(done.by_hand)} pages in {where}/<student>/<assignment>/ (no submission came through "
            "nbgrader's exchange, so release_feedback cannot send them: hand them out yourself, e.g. in your LMS)",
            file=sys.stderr,
        )
    if done.outside:
        names = ", ".join(done.outside[:5]) + (f" and {len(done.outside) - 5} more" if len(done.outside) > 5 else "")
        print(
            f"warning: {len(done.outside)} students handed in outside nbgrader's exchange (no submission_secret.txt: "
            f"{names}): their pages stay in {out / 'feedback'} for you to hand out",
            file=sys.stderr,
        )
    for why in done.refused:
        print(f"warning: feedback page not placed: {why}", file=sys.stderr)


def _to_gradebook(
    args, gradebook: Path | None, roster: list, results: dict, late: dict | None = None, outcome=None
) -> int:
    """Write the scores into nbgrader's gradebook when asked (with a class run's due date and extensions,
    `outcome`'s); 0 if done (or not asked), 1 if it failed."""
    if gradebook is None:
        return 0
    from datetime import datetime

    from autograder.graders import editions_of
    from autograder.outputs.gradebook_editions import record_by_edition

    course = args.nbgrader_course
    name = args.gradebook_assignment or args.assignment
    editions = () if args.gradebook_assignment else editions_of(args.assignment)[1:]  # each into its own
    due = datetime.fromisoformat(outcome.options.due) if outcome is not None and outcome.options.due else None
    granted = outcome.granted if outcome is not None else None
    return record_by_edition(
        roster,
        results,
        gradebook,
        assignment=name,
        course=course,
        editions=editions,
        late=late,
        due=due,
        extensions=granted,
    )
