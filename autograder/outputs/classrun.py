"""Trusted: grade a class into an output folder: total, resumable and idempotent.

    options (``options.settle``: the folder's, unless this run gives others and accepts the change)
    -> roster (a safe, unique id per student) -> extensions matched to students -> grading keys
    -> reuse every result whose key is unchanged -> grade the rest, each result written as it arrives
    -> lateness (``lateness``: against the due date, the late policy's penalty, apart from the mark)
    -> marks, with what made them (``regrades``: who moved and why, pages placed for release now stale)
    -> manifest marked finished -> grades.csv -> (the similarity pass: ``similarity``, then grades.csv with
    similar_to) -> feedback pages and report
    -> (a course) the pages into its feedback folder for ``release_feedback`` -> (nbgrader gradebook)

Ordering rules: the manifest, with every option that shapes a mark (seed, limits, due date, late policy,
extensions, course, marking scheme), is on disk before the first submission is graded, so a run killed at any
point resumes on the same plan and penalties and grades only what is missing; ``grades.csv`` is written
before the pages, so a page that fails never costs a grade, and before the similarity pass, which reads text
only and whose failure is a warning. ``force`` regrades everyone, ``only`` the
students named (by name, id or nbgrader id); a changed seed, grader, kit version or limit changes the keys,
so it regrades everyone too (one class, one plan).
"""

from __future__ import annotations

import secrets
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.cachekey import grading_key, submission_digest
from autograder.outputs.folder import OTHER_FORMAT, RESULT_FORMAT, Manifest, OutputFolder, now
from autograder.outputs.nbrelease import place_for_release
from autograder.outputs.options import MarkOptions, match_extensions, recorded_options, scheme_digest, settle
from autograder.outputs.progress import Progress
from autograder.outputs.regrades import record_marks
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
    extensions: tuple[tuple[str, float], ...] | None = None  # (student, seconds) (None: the folder's)
    course: Path | None = None  # the nbgrader course (recorded: a resume without it still knows it)
    gradebook_assignment: str | None = None  # --gradebook-assignment
    accept_new_options: bool = False  # options that differ from the folder's replace them (else: OptionsChanged)
    similarity: Any = None  # similarity.detect.SimilarityOptions: the pass after the grades (None: skipped)
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
    options: MarkOptions = MarkOptions()  # what this run used (the folder's, or this run's when accepted)
    granted: dict = field(default_factory=dict)  # uid -> timedelta: the kit's extension for that student
    regrade: dict | None = None  # the line this run appended to regrades.jsonl (None: no mark moved)
    placement: object = None  # nbrelease.Placement: the pages placed for release_feedback (with a course)
    stale_pages: list[str] = field(default_factory=list)  # students whose placed page now shows another mark
    similarity: Any = None  # similarity.store.Outcome of this run's pass (None: not run)


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


def asked_options(job: ClassJob, spec) -> MarkOptions:
    """The options `job` gives (None where it leaves them to the folder), and the grader's scheme."""
    from autograder.outputs.lateness import policy_from_option
    from autograder.outputs.times import parse_due

    gradebook = job.gradebook or (job.course / "gradebook.db" if job.course is not None else None)
    pair = job.course is not None or gradebook is not None  # one given: the other is given as none
    try:  # bad options stop the run before anything is written
        due = parse_due(job.due).isoformat() if job.due else None
        if job.late_penalty:
            policy_from_option(job.late_penalty)
    except ValueError as exc:
        raise ClassRunError(str(exc)) from None
    return MarkOptions(
        seed=None if job.seed is None else int(job.seed),
        timeout=job.limits.wall_seconds,
        memory=job.limits.memory_bytes,
        due=due,
        late_penalty=job.late_penalty,
        extensions=job.extensions,
        course=str(Path(job.course).resolve()) if job.course is not None else ("" if pair else None),
        gradebook=str(Path(gradebook).resolve()) if gradebook is not None else None,
        gradebook_assignment=job.gradebook_assignment,
        scheme=scheme_digest(spec.scheme),
    )


def _settled(job: ClassJob, spec, previous: Manifest | None) -> tuple[MarkOptions, list]:
    """This run's options (``options.settle``), with a new seed when neither the run nor the folder has one."""
    if previous is not None and previous.assignment != job.assignment:
        raise ClassRunError(
            f"{str(job.out)!r} holds grades of assignment {previous.assignment!r}, not {job.assignment!r}: "
            "give another --out folder"
        )
    recorded, known = recorded_options(previous)
    options, changes = settle(
        asked_options(job, spec), recorded, known=known, out=job.out, accept=job.accept_new_options
    )
    if options.seed is None:
        options = replace(options, seed=secrets.randbelow(2**31))
    return options, changes


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
        options, changes = _settled(job, spec, previous)
        seed = int(options.seed)
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
        try:  # a name given now that matches no hand-in stops the run (a misspelt one would keep a penalty)
            granted = match_extensions(roster, options, given=job.extensions is not None)
        except ValueError as exc:
            raise ClassRunError(str(exc)) from None
        digests = {s.uid: submission_digest(s.path) for s in roster}
        keys = {
            s.uid: grading_key(submission=s.path, spec=spec, seed=seed, limits=job.limits, digest=digests[s.uid])
            for s in roster
        }
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
        manifest = Manifest(
            assignment=job.assignment,
            seed=seed,
            kit_version=_kit_version(),
            due=options.due,
            late_penalty=options.late_penalty,
            options=options.to_dict(),
        )
        before = {e["uid"]: e for e in previous.students} if previous is not None else {}
        manifest.students = [
            {
                **folder.entry(s, keys[s.uid], "up to date" if s.uid in results else "pending", unreadable[s.uid]),
                "hand_in": digests[s.uid],
                **{k: v for k, v in before.get(s.uid, {}).items() if k in ("mark", "placed")},  # until replaced
            }
            for s in roster
        ]
        folder.write_manifest(manifest)  # every option that shapes a mark is on disk before anything is graded
        todo = {s.uid: s for s in roster if s.uid not in results}
        outcome = ClassOutcome(
            roster=roster,
            results=results,
            graded=[],
            reused=reused,
            seed=seed,
            out=job.out,
            warnings=warnings,
            options=options,
            granted=granted,
        )
        progress = Progress(job.out, total=len(roster), reused=len(reused), todo=len(todo))  # for `status`
        if todo:
            _grade(job, folder, todo, keys, unreadable, outcome, progress)
        states = {uid: ("grader error" if r.status == GRADER_ERROR else "graded") for uid, r in results.items()}
        for entry in manifest.students:
            entry["state"] = "up to date" if entry["uid"] in reused else states.get(entry["uid"], "pending")
        _lateness(job, manifest, outcome)
        was = {uid: e.get("mark") for uid, e in before.items()}
        outcome.regrade = record_marks(
            manifest, outcome, was, changes, inputs=_inputs(spec, manifest, outcome, digests)
        )
        manifest.finished = now()
        folder.write_manifest(manifest)
        _write_outputs(job, outcome)
        if options.course and outcome.report is not None:  # pages where release_feedback finds them
            outcome.placement = place_for_release(job.out, Path(options.course), manifest.students)
            folder.write_manifest(manifest)
        progress.finish()
    return outcome


def _inputs(spec, manifest: Manifest, outcome: ClassOutcome, digests: dict) -> dict[str, dict]:
    """uid -> what makes that student's mark (``regrades.mark_of``): their hand-in, the grader, this run's options."""
    from autograder.outputs.cachekey import grader_digest

    options, grader = outcome.options, grader_digest(spec) + "|" + manifest.kit_version
    inputs = {}
    for student in outcome.roster:
        extension = outcome.granted.get(student.uid)
        inputs[student.uid] = {
            "hand_in": digests[student.uid],
            "grader": grader,
            "scheme": options.scheme,
            "seed": options.seed,
            "timeout": options.timeout,
            "memory": options.memory,
            "due": options.due,
            "late_penalty": options.late_penalty,
            "extension": extension.total_seconds() if extension is not None else None,
            "gradebook": options.gradebook,
        }
    return inputs


def run_batch(job: ClassJob, todo: dict[str, Student], seed: int, on_result) -> None:
    """Grade `todo` (uid -> Student) as the job says, each result handed to `on_result(uid, result)`."""
    from autograder.grading.executors import grade_batch
    from autograder.outputs.messages_report import report_words

    grade_batch(
        assignment=job.assignment,
        submissions={uid: s.path for uid, s in todo.items()},  # uids: safe in progress bars and file names
        seed=seed,
        limits=job.limits,
        workers=job.workers,
        progress=job.progress,
        progress_label=report_words(job.language)["batch.grading"],
        progress_item=report_words(job.language)["batch.progress_item"],
        hide=(*[p for p in job.paths if p.is_dir()], job.out, *job.hide),
        on_result=on_result,
        roots=tuple(p for p in job.paths if p.is_dir()),
        executor=job.executor,
        scheduler=job.scheduler,
    )


def _grade(
    job: ClassJob, folder: OutputFolder, todo: dict, keys: dict, unreadable: dict, outcome, progress: Progress
) -> None:
    def on_result(uid: str, result: Result) -> None:  # written the moment it arrives: kill -9 loses nothing
        outcome.results[uid] = result
        outcome.graded.append(uid)
        folder.save_result(
            todo[uid], result, grading_key=keys[uid], assignment=job.assignment, unreadable=unreadable[uid]
        )
        progress.add(result)

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
    if job.similarity is not None and _similarity(job, outcome):
        outcome.csv_path = write_grades(job.out, load_class(job.out).rows)  # with similar_to
    try:
        outcome.report = write_report(job.out, language=job.language)
    except Exception as exc:  # the grades are on disk; the report is for reading them
        outcome.warnings.append(
            f"the HTML report was not written ({type(exc).__name__}: {exc}); grades are in {outcome.csv_path}"
        )


def _similarity(job: ClassJob, outcome: ClassOutcome) -> bool:
    """The similarity pass over the class's text (after the grades: it cannot move one); False when it did not run
    (a class of one with no archive has nothing to compare; a failure is a warning, never the end of the run)."""
    from autograder.outputs.similarity.detect import class_hand_ins, run_similarity

    if len(outcome.roster) < 2 and not job.similarity.archives:
        return False
    try:
        # a hand-in that did not compile is said to be one where nothing of its own is left (a value of its run)
        broken = frozenset(uid for uid, r in outcome.results.items() if r.run is not None and r.run.compile_failed)
        hand_ins = class_hand_ins(outcome.roster, job.paths, broken)
        outcome.similarity = run_similarity(job.assignment, job.out, hand_ins, job.similarity)
    except Exception as exc:  # the grades are on disk; the pass only reads
        outcome.warnings.append(f"the similarity pass did not run ({type(exc).__name__}: {exc}); the grades stand")
        return False
    outcome.warnings += outcome.similarity.problems
    return True


def _lateness(job: ClassJob, manifest: Manifest, outcome: ClassOutcome) -> None:
    """Each student's lateness into the manifest (and ``outcome.late``), with this run's options: the due date,
    the late policy and the extensions given, else those the folder recorded (``options``)."""
    from autograder.graders import editions_of
    from autograder.outputs import lateness

    options = outcome.options
    gradebook = Path(options.gradebook) if options.gradebook else None
    if options.late_penalty:
        policy = lateness.policy_from_option(options.late_penalty)
    else:
        policy = (lateness.policy_from_course(gradebook.parent) if gradebook else None) or lateness.NO_PENALTY
    by_id = {s.nbgrader_id: outcome.granted[s.uid] for s in outcome.roster if s.uid in outcome.granted}
    dues = lateness.due_dates(options.due, gradebook, editions_of(job.assignment), granted=by_id)
    scores = {uid: r.score for uid, r in outcome.results.items() if r.status != GRADER_ERROR}
    outcome.late = lateness.assess(outcome.roster, scores, dues, policy)
    for entry in manifest.students:
        if entry["uid"] in outcome.late:
            entry["late"] = outcome.late[entry["uid"]].to_dict()
    known = any(late.due for late in outcome.late.values())
    manifest.late_policy, manifest.late_rule = (policy.name, policy.rule) if known else ("", None)
    if manifest.due and not any(late.submitted or late.problem for late in outcome.late.values()):
        outcome.warnings.append(
            f"--due {manifest.due} was given but no submission has nbgrader's timestamp.txt (<student>/<assignment>/"
            "timestamp.txt): when each was handed in is not known, so nothing is counted late"
        )


def _kit_version() -> str:
    from autograder.graders.kit import kit_version

    return kit_version()
