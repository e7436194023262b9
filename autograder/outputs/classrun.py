"""Trusted: grade a class into an output folder: total, resumable and idempotent.

    roster (a safe, unique id per student) -> seed (the folder's own, or a new one) -> grading keys
    -> reuse every result whose key is unchanged -> grade the rest, each result written as it arrives
    -> lateness (``lateness``: against the due date, the late policy's penalty, apart from the mark)
    -> manifest marked finished -> grades.csv -> feedback pages and report -> (nbgrader gradebook)

Ordering rules: the manifest, with the seed, is on disk before the first submission is graded, so a run
killed at any point resumes on the same plan and grades only what is missing; ``grades.csv`` is written
before the pages, so a page that fails never costs a grade. ``force`` regrades everyone, ``only`` the
students named (by name, id or nbgrader id); a changed seed, grader, kit version or limit changes the keys,
so it regrades everyone too (one class, one plan).
"""

from __future__ import annotations

import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.cachekey import grading_key
from autograder.outputs.folder import OTHER_FORMAT, RESULT_FORMAT, Manifest, OutputFolder, now
from autograder.outputs.roster import Student, build_roster, display_name
from autograder.sandbox import Limits

__all__ = ["ClassJob", "ClassOutcome", "ClassRunError", "grade_class", "run_batch", "unreadable_reason", "selected"]


class ClassRunError(ValueError):
    """The run cannot start as asked (unknown --student, a folder of another assignment); nothing was graded."""


@dataclass(frozen=True)
class ClassJob:
    assignment: str  # the grader's name, e.g. "weight_tying"
    paths: tuple[Path, ...]  # what was given on the command line (roots of the nbgrader layout)
    out: Path  # the output folder
    seed: int | None = None  # None: the folder's recorded seed, else a new random one
    limits: Limits = Limits()
    workers: int | None = None
    progress: bool = True
    hide: tuple[Path, ...] = ()  # paths no submission may read (besides the batch's own folders)
    force: bool = False  # regrade everyone
    only: tuple[str, ...] = ()  # regrade these students (names, ids or nbgrader ids)
    executor: str = "pool"  # how submissions run: "pool", "fresh" or "dask" (see autograder.grading.executors)
    scheduler: str | None = None  # the dask scheduler's address, for executor="dask"
    due: str | None = None  # --due for everyone (None: the folder's, else each edition's in the gradebook)
    late_penalty: str | None = None  # --late-penalty (None: the folder's, else the course's nbgrader_config.py)
    gradebook: Path | None = None  # nbgrader's gradebook: due dates, extensions, and its folder's config
    language: str = "en"  # the instructor's report in this language ("zh": grade --language zh); pages: each student's


@dataclass
class ClassOutcome:
    roster: list[Student]
    results: dict[str, Result]  # uid -> Result (missing uids: not graded, e.g. the batch broke)
    graded: list[str]  # uids graded by this run
    reused: list[str]  # uids whose stored result was still valid
    seed: int
    out: Path
    csv_path: Path | None = None
    report: Path | None = None
    warnings: list[str] = field(default_factory=list)
    batch_error: str = ""  # the batch itself failed (some students have no result)
    late: dict = field(default_factory=dict)  # uid -> lateness.Late (students in nbgrader's layout)


def unreadable_reason(path: Path) -> str:
    """Why a file cannot be a submission ("" when it can): not a regular file, too big, not a notebook. The
    reading is the grader's own (submissions.read_submission), so a file is unreadable here exactly when the
    grader refuses it."""
    from autograder.grading.submissions import SubmissionRefused, read_submission

    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return "not a regular file (a link, a folder or a device)"
        read_submission(path)
    except SubmissionRefused as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot be read ({type(exc).__name__})"
    return ""


def _seed(job: ClassJob, previous: Manifest | None, warnings: list[str]) -> int:
    if previous is not None and previous.assignment != job.assignment:
        raise ClassRunError(
            f"{str(job.out)!r} holds grades of assignment {previous.assignment!r}, not {job.assignment!r}: "
            "give another --out folder"
        )
    if job.seed is not None:
        if previous is not None and previous.seed != job.seed:
            warnings.append(
                f"--seed {job.seed} differs from this folder's seed {previous.seed}: every submission is "
                "regraded, so that the whole class is graded on one plan"
            )
        return int(job.seed)
    return previous.seed if previous is not None else secrets.randbelow(2**31)


def selected(roster: list[Student], only: tuple[str, ...]) -> set[str]:
    chosen: set[str] = set()
    for text in only:
        found = [s.uid for s in roster if s.matches(text)]
        if not found:
            sample = ", ".join(s.name for s in roster[:5]) + (" ..." if len(roster) > 5 else "")
            raise ClassRunError(
                f"--student {display_name(text)!r} matches no submission of this batch ({len(roster)} students, "
                f"e.g. {sample}): give a name, id or nbgrader id as grades.csv lists them"
            )
        chosen.update(found)
    return chosen


def grade_class(job: ClassJob, *, submissions: dict[str, Path]) -> ClassOutcome:
    """Grade `submissions` (student key -> file) into `job.out`; see the module's docstring for the order."""
    from autograder.graders import editions_of, get_assignment

    spec = get_assignment(job.assignment)
    folder = OutputFolder(job.out)
    warnings: list[str] = []
    with folder.lock():
        previous = folder.read_manifest()
        seed = _seed(job, previous, warnings)
        known = previous.known_uids() if previous is not None else {}
        roster = build_roster(
            submissions,
            roots=list(job.paths),
            assignment=job.assignment,
            known=known,
            editions=editions_of(job.assignment)[1:],
            notebook=spec.name,
        )
        forced = {s.uid for s in roster} if job.force else selected(roster, job.only)
        keys = {s.uid: grading_key(submission=s.path, spec=spec, seed=seed, limits=job.limits) for s in roster}
        unreadable = {s.uid: unreadable_reason(s.path) for s in roster}
        results: dict[str, Result] = {}
        older: list[str] = []  # result files this kit does not read (an older kit's format): graded again
        for student in roster:
            if student.uid in forced:
                continue
            stored, why = folder.reusable(student.uid, keys[student.uid])
            if stored is not None:
                results[student.uid] = stored
            elif why.startswith(OTHER_FORMAT):
                older.append(student.uid)
        if older:
            warnings.append(
                f"{len(older)} result file(s) in {str(folder.out / 'results')!r} are not in this kit's format "
                f"{RESULT_FORMAT} (an older kit wrote them, e.g. {older[0]}.json): those students are graded again"
            )
        reused = [s.uid for s in roster if s.uid in results]
        manifest = Manifest(assignment=job.assignment, seed=seed, kit_version=_kit_version())
        manifest.students = [
            folder.entry(s, keys[s.uid], "up to date" if s.uid in results else "pending", unreadable[s.uid])
            for s in roster
        ]
        folder.write_manifest(manifest)  # the seed is on disk before anything is graded
        todo = {s.uid: s for s in roster if s.uid not in results}
        outcome = ClassOutcome(
            roster=roster, results=results, graded=[], reused=reused, seed=seed, out=job.out, warnings=warnings
        )
        if todo:
            _grade(job, folder, todo, keys, unreadable, outcome)
        states = {uid: ("grader error" if r.status == GRADER_ERROR else "graded") for uid, r in results.items()}
        for entry in manifest.students:
            entry["state"] = "up to date" if entry["uid"] in reused else states.get(entry["uid"], "pending")
        _lateness(job, previous, manifest, outcome)
        manifest.finished = now()
        folder.write_manifest(manifest)
        _write_outputs(job, outcome)
    return outcome


def run_batch(job: ClassJob, todo: dict[str, Student], seed: int, on_result) -> None:
    """Grade `todo` (uid -> Student) as the job says, each result handed to `on_result(uid, result)`."""
    from autograder.grading.executors import grade_batch

    grade_batch(
        assignment=job.assignment,
        submissions={uid: s.path for uid, s in todo.items()},  # uids: safe in progress bars and file names
        seed=seed,
        limits=job.limits,
        workers=job.workers,
        progress=job.progress,
        hide=(*[p for p in job.paths if p.is_dir()], job.out, *job.hide),
        on_result=on_result,
        roots=tuple(p for p in job.paths if p.is_dir()),
        executor=job.executor,
        scheduler=job.scheduler,
    )


def _grade(job: ClassJob, folder: OutputFolder, todo: dict, keys: dict, unreadable: dict, outcome) -> None:
    def on_result(uid: str, result: Result) -> None:  # written the moment it arrives: kill -9 loses nothing
        outcome.results[uid] = result
        outcome.graded.append(uid)
        folder.save_result(
            todo[uid], result, grading_key=keys[uid], assignment=job.assignment, unreadable=unreadable[uid]
        )

    try:
        run_batch(job, todo, outcome.seed, on_result)
    except Exception as exc:  # the batch broke: what arrived is on disk; the rest is "missing"
        outcome.batch_error = f"{type(exc).__name__}: {exc}"


def _write_outputs(job: ClassJob, outcome: ClassOutcome) -> None:
    from autograder.outputs.classview import load_class
    from autograder.outputs.grades import write_grades
    from autograder.outputs.report import write_report

    view = load_class(job.out)
    outcome.csv_path = write_grades(job.out, view.rows)  # first: nothing after this may lose the grades
    try:
        outcome.report = write_report(job.out, language=job.language)
    except Exception as exc:  # the grades are on disk; the report is for reading them
        outcome.warnings.append(
            f"the HTML report was not written ({type(exc).__name__}: {exc}); grades are in {outcome.csv_path}"
        )


def _lateness(job: ClassJob, previous: Manifest | None, manifest: Manifest, outcome: ClassOutcome) -> None:
    """Each student's lateness into the manifest (and ``outcome.late``), with the due date and policy asked for
    now, else those this folder recorded (see ``lateness``)."""
    from autograder.graders import editions_of
    from autograder.outputs import lateness

    manifest.due = job.due or (previous.due if previous else None)
    manifest.late_penalty = job.late_penalty or (previous.late_penalty if previous else None)
    if manifest.late_penalty:
        policy = lateness.policy_from_option(manifest.late_penalty)
    else:
        course = job.gradebook.parent if job.gradebook is not None else None
        policy = (lateness.policy_from_course(course) if course else None) or lateness.NO_PENALTY
    dues = lateness.due_dates(manifest.due, job.gradebook, editions_of(job.assignment))
    scores = {uid: r.score for uid, r in outcome.results.items() if r.status != GRADER_ERROR}
    outcome.late = lateness.assess(outcome.roster, scores, dues, policy)
    for entry in manifest.students:
        if entry["uid"] in outcome.late:
            entry["late"] = outcome.late[entry["uid"]].to_dict()
    known = any(late.due for late in outcome.late.values())
    manifest.late_policy = policy.name if known else ""
    if manifest.due and not any(late.submitted or late.problem for late in outcome.late.values()):
        outcome.warnings.append(
            f"--due {manifest.due} was given but no submission has nbgrader's timestamp.txt (<student>/<assignment>/"
            "timestamp.txt): when each was handed in is not known, so nothing is counted late"
        )


def _kit_version() -> str:
    from autograder.graders.kit import kit_version

    return kit_version()
