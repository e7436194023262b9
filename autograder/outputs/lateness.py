"""Trusted: when each student handed in against the assignment's due date, and what the late policy takes off.

    due date     ``--due`` (kept in the output folder's manifest, as the seed is), else nbgrader's gradebook:
                 the ``duedate`` of the edition the student took, plus the student's extension: the kit's
                 (``--extension``, kept likewise), else the gradebook's
    handed in    nbgrader's ``timestamp.txt`` (``grading.handins``); one that says no readable time is a
                 ``problem`` (*Needs a look*), never "on time"; so is a hand-in without one under a due date
    policy       nbgrader's convention (``LateSubmissionPlugin``): ``late_submission_penalty(student_id, score,
                 seconds_late)`` is the points taken off (None: none), kept between 0 and the score as nbgrader's
                 ``AssignLatePenalties`` keeps it. ``--late-penalty none|zero|P/hour`` (kept in the manifest)
                 chooses the kit's; without it, the course's ``nbgrader_config.py`` does, as for nbgrader's own
                 ``autograde``: ``c.LateSubmissionPlugin.penalty_method = "zero"``, or a plugin class of its own
                 (``c.AssignLatePenalties.plugin_class``; the kit's ``late_plugin.PerHourPenalty`` takes P points
                 per hour or part of one)

The penalty is recorded apart from the grader's mark: ``score`` stays what the grader gave, ``late_penalty`` and
``final_score`` sit beside it (``grades.csv``, the report, the student's page, nbgrader's gradebook as the
notebook's ``late_submission_penalty``), so the breakdown by area still adds up to ``score``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.grading.handins import read_stamp, when
from autograder.outputs.times import parse_due

__all__ = [
    "Late",
    "LatePolicy",
    "DueDates",
    "policy_from_option",
    "policy_from_course",
    "due_dates",
    "assess",
    "per_hour",
    "NO_PENALTY",
    "READ",
    "MISSING",
    "UNREADABLE",
]


READ, MISSING, UNREADABLE = "read", "missing", "unreadable"  # what a hand-in's timestamp.txt gave (Late.stamp)


@dataclass(frozen=True)
class Late:
    """One student's lateness (the manifest keeps it as a dict)."""

    submitted: str = ""  # nbgrader's timestamp, "2026-05-04 09:30 UTC" ("" when none)
    problem: str = ""  # why timestamp.txt gave no time ("" when it gave one, or there is none)
    due: str = ""  # the due date that applied, with any extension ("" when none)
    seconds: float = 0.0  # how late (0: on time, or not known)
    penalty: float = 0.0  # points the policy took off the grader's score
    stamp: str = ""  # timestamp.txt: READ, MISSING or UNREADABLE (a missing one under a due date: Needs a look)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Late | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                submitted=str(data.get("submitted") or ""),
                problem=str(data.get("problem") or ""),
                due=str(data.get("due") or ""),
                seconds=max(0.0, float(data.get("seconds") or 0.0)),
                penalty=max(0.0, float(data.get("penalty") or 0.0)),
                stamp=str(data.get("stamp") or _stamp_of(data)),
            )
        except (TypeError, ValueError):
            return None


def _stamp_of(data: dict) -> str:
    """What a Late an older kit recorded says of its timestamp.txt (it kept no ``stamp``)."""
    return UNREADABLE if data.get("problem") else (READ if data.get("submitted") else MISSING)


@dataclass(frozen=True)
class LatePolicy:
    """A late policy: its name (in English, for a log), ``penalty(student_id, score, seconds_late)`` and its rule
    as values (the manifest keeps them; the report words them in its language, ``messages_report``)."""

    name: str
    penalty: Callable[[str, float, float], float | None]
    # {"rule": "none" | "zero" | "per_hour" | "course", "points": P per hour (per_hour), "plugin": its class and
    # "settings": what nbgrader_config.py sets for it (course)}
    rule: dict = field(default_factory=dict)

    def points(self, student: str, score: float, seconds: float) -> float:
        """The points taken off, between 0 and the score (nbgrader's AssignLatePenalties keeps them there)."""
        if seconds <= 0:
            return 0.0
        taken = self.penalty(student, score, seconds)
        return 0.0 if taken is None else min(max(0.0, float(taken)), max(0.0, score))


def per_hour(points: float, seconds: float) -> float:
    """`points` for each hour late or part of one."""
    return points * math.ceil(seconds / 3600) if seconds > 0 else 0.0


NO_PENALTY = LatePolicy(
    "none (lateness is shown, nothing is taken off)", lambda student, score, seconds: None, {"rule": "none"}
)


def policy_from_option(text: str) -> LatePolicy:
    """``--late-penalty``: ``none``, ``zero`` (a late submission scores 0, as nbgrader's ``zero``) or ``P/hour``
    (P points per hour late or part of one); ValueError naming the value otherwise."""
    value = text.strip().lower()
    if value == "none":
        return NO_PENALTY
    if value == "zero":
        return LatePolicy("zero (a late submission scores 0)", lambda student, score, seconds: score, {"rule": "zero"})
    number, slash, unit = value.partition("/")
    try:
        points = float(number)
    except ValueError:
        points = -1.0
    if slash and unit in ("hour", "h") and 0 < points < math.inf:
        return LatePolicy(
            f"{points:g} points per hour late",
            lambda student, score, seconds: per_hour(points, seconds),
            {"rule": "per_hour", "points": points},
        )
    raise ValueError(
        f"--late-penalty {text!r} is not a late policy: give none, zero, or points per hour late such as 5/hour"
    )


def policy_from_course(course: Path) -> LatePolicy | None:
    """The late policy the course's nbgrader_config.py sets for nbgrader's autograde (its
    ``AssignLatePenalties.plugin_class``, default nbgrader's ``LateSubmissionPlugin``, with the config's settings
    for it), or None when the file sets none. A config that names a plugin that cannot be made is an error."""
    if not (Path(course) / "nbgrader_config.py").is_file():
        return None
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    plugin_class = config.get("AssignLatePenalties", {}).get("plugin_class")
    method = config.get("LateSubmissionPlugin", {}).get("penalty_method")
    if plugin_class is None and method in (None, "none"):
        return None
    from nbgrader.plugins import LateSubmissionPlugin
    from traitlets.utils.importstring import import_item

    try:
        cls = import_item(plugin_class) if isinstance(plugin_class, str) else (plugin_class or LateSubmissionPlugin)
        plugin = cls(config=config)
    except Exception as exc:  # the instructor's own plugin: say which, and why
        raise ValueError(
            f"the late policy of {str(Path(course) / 'nbgrader_config.py')!r} ({plugin_class or method!r}) cannot be "
            f"used: {type(exc).__name__}: {exc}"
        ) from exc
    said = ", ".join(f"{k}={v!r}" for k, v in config.get(cls.__name__, {}).items())
    return LatePolicy(
        f"{cls.__name__}({said}) from nbgrader_config.py",
        plugin.late_submission_penalty,
        {"rule": "course", "plugin": cls.__name__, "settings": said},
    )


@dataclass(frozen=True)
class DueDates:
    """The due date each student had: the default (``--due``) or their edition's, plus an extension: the kit's
    (``--extension``) for that student, else the gradebook's for their edition."""

    default: datetime | None = None
    editions: dict[str, datetime] | None = None  # nbgrader assignment -> its duedate (from the gradebook)
    extensions: dict[tuple[str, str], timedelta] | None = None  # (assignment, student id) -> extension
    granted: dict[str, timedelta] | None = None  # student id -> the kit's extension (any edition)

    def of(self, edition: str | None, student: str | None) -> datetime | None:
        due = self.default or (self.editions or {}).get(edition or "")
        if due is None:
            return None
        extra = (self.granted or {}).get(student or "")
        if extra is None:
            extra = (self.extensions or {}).get((edition or "", student or ""), timedelta(0))
        return due + extra


def due_dates(
    due: str | None, gradebook: Path | None, editions: tuple[str, ...], *, granted: dict[str, timedelta] | None = None
) -> DueDates:
    """`due` (``--due``'s text) for everyone, and each student's extension (`granted`: student id -> the kit's,
    else nbgrader's gradebook's); without `due`, each edition's due date from the gradebook. A gradebook that does
    not exist says nothing."""
    default = parse_due(due) if due else None
    if gradebook is None or not Path(gradebook).is_file():
        return DueDates(default, granted=granted)
    import warnings

    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    from autograder.outputs.gradebook import alembic_on_path

    found: dict[str, datetime] = {}
    extensions: dict[tuple[str, str], timedelta] = {}
    with warnings.catch_warnings(), alembic_on_path(), Gradebook(f"sqlite:///{Path(gradebook).resolve()}") as gb:
        warnings.simplefilter("ignore", SAWarning)
        for name in editions:
            try:
                assignment = gb.find_assignment(name)
            except MissingEntry:
                continue
            if assignment.duedate is not None:
                found[name] = assignment.duedate.replace(tzinfo=UTC)  # nbgrader keeps UTC, without a zone
            for submission in assignment.submissions:
                if submission.extension:
                    extensions[(name, submission.student.id)] = submission.extension
    return DueDates(default, found, extensions, granted)


def assess(students: list, scores: dict[str, float], dues: DueDates, policy: LatePolicy) -> dict[str, Late]:
    """uid -> Late for each roster student in nbgrader's layout (``outputs.roster.Student``); `scores`: uid ->
    the grader's score (a student without one is late or not, and loses nothing)."""
    out: dict[str, Late] = {}
    for student in students:
        if student.timestamp_file is None:
            continue
        stamp = read_stamp(Path(student.timestamp_file).parent)
        due = dues.of(student.edition, student.nbgrader_id)
        if stamp is None or stamp.when is None:
            kind = UNREADABLE if stamp is not None else MISSING  # never "on time": listed when a due date applies
            out[student.uid] = Late(problem=stamp.problem if stamp else "", due=when(due) if due else "", stamp=kind)
            continue
        seconds = max(0.0, (stamp.when - due).total_seconds()) if due is not None else 0.0
        score = scores.get(student.uid)
        penalty = policy.points(student.nbgrader_id or student.name, score, seconds) if score is not None else 0.0
        out[student.uid] = Late(when(stamp.when), "", when(due) if due else "", seconds, penalty, READ)
    return out
