"""Trusted: ``grade``'s options that shape a mark: the extensions' options and ``--accept-new-options``, each value
read and checked before anything is graded (a due date's zone, a late policy, each extension), and what a run
leaves out taken from the output folder's record (``outputs.options``), so that the same command again, after a
kill or with ``--force``, grades with the same due date, penalty, extensions, limits and gradebook.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from pathlib import Path

from autograder.outputs.options import MarkOptions

__all__ = ["add_options", "asked", "complete", "late_options", "read_extensions"]

_CSV_BYTES = 1 << 20  # a roster's extensions: far below a mebibyte


def add_options(grade: argparse.ArgumentParser) -> None:
    """--extension, --extensions and --accept-new-options (``--due`` and ``--late-penalty`` sit beside them)."""
    grade.add_argument(
        "--extension",
        action="append",
        default=[],
        metavar="STUDENT=DURATION",
        help="extra time for one student (nbgrader id or name, as grades.csv lists them), e.g. ann=2d, bo=36h, "
        "cy=1d12h; repeatable. Used for lateness and written to nbgrader's gradebook; kept by the folder",
    )
    grade.add_argument(
        "--extensions",
        type=Path,
        default=None,
        metavar="FILE.csv",
        help="the same from a CSV file with the columns student,extension (one row per student)",
    )
    grade.add_argument(
        "--accept-new-options",
        action="store_true",
        help="options that differ from those the --out folder recorded (due date, late policy, extensions, seed, "
        "limits, course, marking scheme) replace them; without it such a run stops, naming both",
    )


def read_extensions(args) -> tuple[tuple[str, float], ...] | None | str:
    """(student, seconds) from --extension and --extensions, sorted; None when neither is given; or an error."""
    from autograder.outputs.times import parse_duration

    pairs: list[tuple[str, str, str]] = []  # (student, duration text, where it was given)
    for text in args.extension:
        student, equals, duration = text.rpartition("=")
        if not equals or not student.strip():
            return f"--extension {text!r} is not STUDENT=DURATION: give e.g. --extension ann=2d"
        pairs.append((student.strip(), duration, f"--extension {text!r}"))
    if args.extensions is not None:
        rows = _csv_rows(args.extensions)
        if isinstance(rows, str):
            return rows
        pairs += rows
    if not pairs and args.extensions is None:
        return None
    found: dict[str, float] = {}
    for student, duration, where in pairs:
        try:
            seconds = parse_duration(duration).total_seconds()
        except ValueError as exc:
            return f"{where}: {exc}"
        if found.get(student, seconds) != seconds:
            return f"{where}: {student!r} is given two extensions; give one"
        found[student] = seconds
    return tuple(sorted(found.items()))


def _csv_rows(path: Path) -> list[tuple[str, str, str]] | str:
    """(student, duration text, where) for each row of an extensions file, or why it cannot be read."""
    try:
        if path.stat().st_size > _CSV_BYTES:
            return f"--extensions {str(path)!r} is over 1 MiB: one row per student, columns student,extension"
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return f"--extensions {str(path)!r} cannot be read ({type(exc).__name__}): give a UTF-8 CSV file"
    reader = csv.reader(text.splitlines())
    header = [h.strip().lower() for h in next(reader, [])]
    if "student" not in header or "extension" not in header:
        return (
            f"--extensions {str(path)!r} has the columns {header}: give a header row student,extension "
            "(e.g. ann,2d below it)"
        )
    who, how = header.index("student"), header.index("extension")
    rows = []
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(who, how) or not row[who].strip():
            return f"--extensions {str(path)!r} line {line}: {','.join(row)!r} has no student or no extension"
        rows.append((row[who].strip(), row[how].strip(), f"--extensions {str(path)!r} line {line}"))
    return rows


def asked(args) -> MarkOptions | str:
    """The options this command gives (None where it gives none), checked; or why one is not usable."""
    from autograder.outputs.lateness import policy_from_option
    from autograder.outputs.times import parse_due

    try:
        due = parse_due(args.due).isoformat() if args.due else None
        if args.late_penalty:
            policy_from_option(args.late_penalty)
    except ValueError as exc:
        return str(exc)
    extensions = read_extensions(args)
    if isinstance(extensions, str):
        return extensions
    course, gradebook = args.nbgrader_course, args.gradebook
    if course is not None and gradebook is None:
        gradebook = course / "gradebook.db"
    pair = course is not None or gradebook is not None  # one given: the other is given as none
    return MarkOptions(
        seed=args.seed,
        timeout=args.timeout,
        memory=args.memory,
        due=due,
        late_penalty=args.late_penalty,
        extensions=extensions,
        course=str(course.resolve()) if course is not None else ("" if pair else None),
        gradebook=str(gradebook.resolve()) if gradebook is not None else None,
        gradebook_assignment=args.gradebook_assignment,
    )


def complete(args, out: Path | None) -> MarkOptions | str:
    """The options this command gives (``asked``), checked, and what it leaves out filled in from the folder `out`
    records (its course, gradebook and limits; what neither says is left None: ``Limits``' own default), saying so
    on stderr; or why the run must stop (an option not usable, or one that differs from the folder's, unless
    --accept-new-options; a dry run only compares, so it accepts). Grading settles them again, under the folder's
    lock: what is returned is what the command gave."""
    from autograder.graders import get_assignment
    from autograder.outputs.options import OptionsChanged, recorded_options, scheme_digest, settle

    options = asked(args)
    if isinstance(options, str):
        return options
    previous = None
    if out is not None:  # (one file without --out has no folder: its command imports none of the pages' code)
        from autograder.outputs.folder import OutputFolder

        previous = OutputFolder(out).read_manifest()
    settled = options
    if previous is not None and previous.assignment == args.assignment:
        recorded, known = recorded_options(previous)
        scheme = scheme_digest(get_assignment(args.assignment).scheme)
        try:
            settled, _ = settle(
                dataclasses.replace(options, scheme=scheme),
                recorded,
                known=known,
                out=out,
                accept=args.accept_new_options or args.dry_run,
            )
        except OptionsChanged as exc:
            return str(exc)
        if args.nbgrader_course is None and args.gradebook is None and (settled.course or settled.gradebook):
            if settled.course:
                args.nbgrader_course = Path(settled.course)
            else:
                args.gradebook = Path(settled.gradebook)
            where = f"--nbgrader-course {settled.course}" if settled.course else f"--gradebook {settled.gradebook}"
            print(f"note: {where}, as {str(out)!r} recorded", file=sys.stderr)
        if args.gradebook_assignment is None:
            args.gradebook_assignment = settled.gradebook_assignment
    args.timeout, args.memory = settled.timeout, settled.memory  # None: neither says (``grading_limits``)
    return options


def late_options(args, gradebook: Path | None) -> tuple[str | None, str]:
    """(--due as an ISO time or None, ""), after checking it, --late-penalty and the course's late policy; or
    (None, why one of them is not usable), before anything is graded."""
    from autograder.outputs.lateness import policy_from_course, policy_from_option
    from autograder.outputs.times import parse_due

    try:
        due = parse_due(args.due).isoformat() if args.due else None
    except ValueError as exc:
        return None, str(exc)
    try:
        if args.late_penalty:
            policy_from_option(args.late_penalty)
        elif gradebook is not None:
            policy_from_course(gradebook.parent)
    except ValueError as exc:
        return None, str(exc)
    return due, ""
