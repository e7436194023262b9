"""Trusted: the steps of grading one submission, in order, each a function with typed input and output.

``grade`` is the one place they are strung together, in two halves (``sandboxed``: steps 2 to 4; ``judge_run``: 5 to
8) that the pool's workers run in two threads, a run beside the previous run's judgement; an executor only says
where step 4 runs (a ``Sandbox``) and which judge process runs the judge's steps (``fresh``: this process's judge
and a fresh sandboxed interpreter; ``pool/``: a warm worker's judge and a fork of its zygote; ``pool/on_dask``: the
same on a dask cluster; ``gradescope/run``: the pool for one file). Step 1 runs where the executor has the file,
once per submission; ``qa/inprocess`` (sweeps, no sandbox) shares the suite runner and ``mark``::

    submission = read(path, roots)                    this process: the file beneath its folder, or why refused
    result     = grade(submission, ...)               steps 2 to 8:
      plan       = spec.make_plan(seed)                 the judge process: the judge's random choices
      blob       = job(spec, plan, submission)          this process: the runner's stdin, from what the judge
                                                        made of the plan once (``job_part``)
      box        = sandbox.run(blob)                    the sandbox: ``sandbox.launch`` (fresh) or ``sandbox.warm``
      evidence   = decode(box)                          the judge process: plain data only (``protocol.decode``)
      run        = facts(box, evidence, spec, limits)   the judge process: how the run ended (``RunFacts``)
      tests      = <suite>(plan, evidence, run)         the judge process: ``judge.suite``: each test's finding
      tests, run = judged(judgement, ...)               this process: the judge's answer, or its limit's
      result     = finish(tests, run, ...)              this process: marks (``marking``), then its words in each
                                                        language (``rendering``): what every output shows
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import render
from autograder.grading.findings import Finding
from autograder.grading.judge.client import JudgeLimitError, Judgement, JudgeProcess
from autograder.grading.judge.kept import Kept
from autograder.grading.language import declared_language
from autograder.grading.marking import apply_marking
from autograder.grading.refusals import refused
from autograder.grading.rendering import rendered
from autograder.grading.result import JUDGE_LIMIT, Result, RunFacts, TestOutcome
from autograder.grading.run_status import run_status
from autograder.grading.submissions import SubmissionRefused, holds_code, py_parts, read_submission, submission_root
from autograder.protocol import frames
from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import INTERNAL, JOB, Done, Load, Refused, Running, join_frame, split_frame
from autograder.protocol.run_records import error_text, read_load, read_running
from autograder.protocol.said import Said, Text, verbatim
from autograder.protocol.said import from_wire as said_from_wire
from autograder.protocol.said import render as render_said
from autograder.protocol.typed import fields_from_wire, wire_fields
from autograder.sandbox.limits import Limits
from autograder.sandbox.runs import SandboxResult
from coursecheck.notebook import cell_places

__all__ = [
    "Submission",
    "Sandbox",
    "grade",
    "Ran",
    "sandboxed",
    "judge_run",
    "read",
    "job",
    "job_part",
    "job_for",
    "decode",
    "facts",
    "facts_and_evidence",
    "judge_stop",
    "judged",
    "finish",
    "named_cells",
    "mark",
]


@dataclass(frozen=True)
class Submission:
    """A hand-in as text: what travels to a worker (never a path: a dask worker has no class folder)."""

    kind: str  # "py" or "ipynb"
    source: str
    filename: str
    refusal: Said | None = None  # why the file was not read (then it is graded as empty): the engine's message

    def to_wire(self) -> dict:
        refusal = None if self.refusal is None else self.refusal.to_wire()
        return {**wire_fields(self, skip=("refusal",)), "refusal": refusal}

    @classmethod
    def from_wire(cls, data: Any) -> Submission:
        """ValueError naming the field that is not what it should be."""
        fields = fields_from_wire(cls, data, "a submission", skip=("refusal",))
        if fields["kind"] not in ("py", "ipynb"):
            raise ValueError(f"a submission's field 'kind' is kind={fields['kind']!r}, expected 'py' or 'ipynb'")
        refusal = data.get("refusal")
        try:
            return cls(**fields, refusal=None if refusal is None else said_from_wire(refusal))
        except ValueError as exc:
            why = f"a submission's field 'refusal' is {refusal!r:.80}, expected a message or None: {exc}"
            raise ValueError(why) from None


def read(path: str | Path, roots: tuple[str | Path, ...] = ()) -> Submission:
    """Step 1: the file beneath its folder in `roots` (default: its own folder), never through a link; a
    refused file is the student's problem, not the grader's: graded empty, with the reason and the fix."""
    path = Path(path)
    try:
        kind, source = read_submission(path, root=submission_root(path, roots))
    except SubmissionRefused as exc:
        return Submission("py", "", path.name, Said(exc.key, **exc.params))
    return Submission(kind, source, path.name)


class Sandbox(Protocol):
    """Where an executor runs step 4: a new sandboxed interpreter (``fresh``) or a fork of a warm zygote (``pool``)."""

    def warm(self) -> float:
        """Wait for its warm-up (never a submission's time); the seconds waited."""

    def run(self, job: Callable[[], bytes]) -> SandboxResult:
        """The runner's run on the blob `job()` makes (called once, while the sandbox starts)."""


def grade(
    submission: Submission,
    *,
    spec: AssignmentSpec,
    seed: int,
    limits: Limits,
    judge: JudgeProcess,
    sandbox: Sandbox,
    timings: dict[str, float] | None = None,
    keep: Callable[[Kept], None] | None = None,
) -> Result:
    """Steps 2 to 8 of one submission read already (step 1): its ``Result``; a judge process that cannot be
    (re)started is the grader's failure. `timings` is filled with seconds per stage (``judge_ready``, ``job``,
    ``run``, ``judge``, ``before_run``, ``total``); the warm-ups (the sandbox's, the judge's start-up and plan)
    are nobody's time: they are waited for before the clock starts, and left out of the result's time.
    `keep` is handed what the judge read and decided (``judge.kept.Kept``: ``grade --keep-evidence``), once
    judged. The two halves, ``sandboxed`` and ``judge_run``, may run in two threads, a submission's run beside
    the previous one's judgement (the pool's workers)."""
    ran = sandboxed(submission, seed=seed, part=judge.job_part, sandbox=sandbox, timings=timings)
    return judge_run(ran, spec=spec, limits=limits, judge=judge, keep=keep)


@dataclass
class Ran:
    """Steps 2 to 4 of one submission done (``sandboxed``): what ``judge_run`` needs for the rest."""

    submission: Submission
    seed: int
    box: SandboxResult | None  # None when the grader failed before the run: `failure` says why
    job: bytes
    timings: dict[str, float]
    seconds: float  # the submission's time so far (its warm-ups left out)
    failure: str = ""


def sandboxed(
    submission: Submission,
    *,
    seed: int,
    part: Callable[[int], tuple[bytes, bytes]],
    sandbox: Sandbox,
    timings: dict[str, float] | None = None,
) -> Ran:
    """Steps 2 to 4: the plan's ``job_part`` (`part(seed)`: the judge's, waited for as a warm-up), the job, the
    sandbox's run."""
    timings = {} if timings is None else timings
    start = time.monotonic()
    jobs: list[bytes] = []
    try:
        warm_up = sandbox.warm()
        asked = time.monotonic()
        common = part(seed)
        timings["judge_ready"] = time.monotonic() - asked
        warm_up += timings["judge_ready"]

        def blob() -> bytes:  # runs while the sandbox starts
            asked = time.monotonic()
            jobs.append(job_for(common, submission))
            timings["job"] = time.monotonic() - asked
            return jobs[0]

        box = sandbox.run(blob)
    except JudgeLimitError as exc:
        return Ran(submission, seed, None, b"", timings, 0.0, str(exc))
    timings["run"] = box.wall_seconds
    timings["before_run"] = time.monotonic() - start - box.wall_seconds
    timings["total"] = time.monotonic() - start
    return Ran(submission, seed, box, jobs[0] if jobs else b"", timings, time.monotonic() - start - warm_up)


def judge_run(
    ran: Ran, *, spec: AssignmentSpec, limits: Limits, judge: JudgeProcess, keep: Callable[[Kept], None] | None = None
) -> Result:
    """Steps 5 to 8 of a run (``sandboxed``): the judge's (a restarted judge's start-up waited for first, on
    nobody's time), then ``judged`` and ``finish`` here."""
    if ran.box is None:
        return Result.grader_failure(ran.failure)
    box, seed, timings = ran.box, ran.seed, ran.timings
    start = time.monotonic()
    try:
        judge.ready(seed)
        warm_up = time.monotonic() - start
        judgement = judge.judge(seed=seed, box=box, evidence=box.evidence)
        tests, run = judged(judgement, box, spec, limits, lambda: judge.collect(seed=seed))
    except JudgeLimitError as exc:
        return Result.grader_failure(str(exc))
    if keep is not None:
        keep(Kept(spec.name, seed, limits, ran.job, box, tuple(judgement.outcomes), judgement.run, judgement.limit))
    timings.update(judge=judgement.seconds, total=timings.get("total", 0.0) + time.monotonic() - start)
    seconds = ran.seconds + time.monotonic() - start - warm_up
    return finish(tests, run, seed=seed, seconds=seconds, submission=ran.submission, spec=spec)


def job(spec: AssignmentSpec, plan: dict, submission: Submission) -> bytes:
    """Step 3: the runner's job (one frame on its stdin, ``frames.encode_frame``): the submission and the plan.
    A frame rather than a ``torch.save`` blob: the runner reads it in ~1 ms, where ``torch.load`` took ~7 ms
    of every run."""
    return job_for(job_part(spec, plan), submission)


def job_part(spec: AssignmentSpec, plan: dict) -> tuple[bytes, bytes]:
    """What every job of a plan holds, encoded once (``frames.split_frame``): the judge makes it when it draws
    the plan and hands it to the grader, which makes each submission's job itself (``job_for``), in ~0.1 ms
    and without a word to the judge."""
    return split_frame(
        {
            "plan": plan,
            "experiments": spec.experiments,
            "required_names": list(spec.required_names),
            "released_demos": sorted(spec.released_demos),
            "released_facts": spec.released_facts,
        }
    )


def job_for(part: tuple[bytes, bytes], submission: Submission) -> bytes:
    """``job``, byte for byte, from the plan's ``job_part``."""
    return join_frame(JOB, _own(submission), part)


def job_naming(digest: str, submission: Submission) -> bytes:
    """The job of a runner whose fork server holds the plan's ``job_part`` decoded (``Worker.plan_memo``): the
    submission's fields and the part's `digest`, which the runner replaces by the part it was handed; the job
    ``job_for`` makes once it is (~130 kB fewer to send, ~2 ms of a run's decoding spent once a plan)."""
    return join_frame(JOB, {**_own(submission), frames.PLAN_PART: digest}, frames.NO_PART)


def _own(submission: Submission) -> dict:
    return {"kind": submission.kind, "source": submission.source, "filename": submission.filename}


def decode(box: SandboxResult) -> tuple[dict, list[str]]:
    """Step 5: the run's evidence bytes as records (plain data only), and notes on what was refused."""
    return decode_frames(box.evidence)


def facts(box: SandboxResult, evidence: dict, notes: list[str], spec: AssignmentSpec, limits: Limits) -> RunFacts:
    """Step 6: what the run looked like: how it ended, what loading the submission left, what was noticed."""
    load = read_load(evidence.get(Load.NAME), spec.required_names)  # the runner's word: any shape, never raises
    texts = [box.stderr] + [m for _, m in load.errors]
    texts += [error_text(r.get("error", "")) for r in evidence.values() if isinstance(r, dict)]
    status = run_status(
        timed_out=box.timed_out,
        signal=box.signal,
        exit_code=box.exit_code,
        done=Done.NAME in evidence,
        texts=texts,
        memory_exceeded=box.memory_exceeded,
    )
    overflow = ["evidence over the size cap was dropped"] if box.evidence_overflow else []
    return RunFacts(
        status=status,
        exit_code=box.exit_code,
        signal=box.signal,
        wall_seconds=box.wall_seconds,
        limit=limits.wall_seconds,
        memory=f"{limits.memory_bytes / (1 << 30):g} GiB",
        stdout_tail=box.stdout[-4000:],
        stderr_tail=box.stderr[-4000:],
        load_errors=load.errors,
        defined=load.defined,
        required_names=list(spec.required_names),
        notes=box.notes + notes + load.notes + overflow,
        isolation=box.isolation.as_dict(),
        running=read_running(evidence) if status == "timeout" else {},
        refused=refused(box.flooded, evidence.get(Refused.NAME)),
    )


def facts_and_evidence(box: SandboxResult, spec: AssignmentSpec, limits: Limits) -> tuple[RunFacts, dict]:
    """Steps 5 and 6 as the judge process runs them: (the run facts, the records a suite judges)."""
    evidence, notes = decode(box)
    run = facts(box, evidence, notes, spec, limits)
    for name in INTERNAL:
        if name != Load.NAME:
            evidence.pop(name, None)
    for name in [n for n in evidence if n.startswith(Running.NAME)]:
        evidence.pop(name)
    return run, evidence


def judge_stop(limit: str, limits: Limits) -> Text:
    """Where the judge stopped (``RunFacts.judge_stop``, a message as ``refusal`` is): the engine's catalog
    message for the limit it reached, rendered in English for the run's notes and in the student's language on
    their page; a limit the catalog does not name (the judge's own word) is quoted as it came."""
    if limit == "time":
        return Said("judge.stopped.time", seconds=f"{limits.judge_seconds:g}")
    if limit == "memory":
        return Said("judge.stopped.memory", memory=f"{limits.judge_memory_bytes / (1 << 30):g} GiB")
    if limit == "died":
        return Said("judge.stopped.died")
    return verbatim(str(limit))


def judged(
    judgement: Judgement,
    box: SandboxResult,
    spec: AssignmentSpec,
    limits: Limits,
    listing: Callable[[], list | None],
) -> tuple[list[TestOutcome], RunFacts]:
    """Step 7's answer: a judgement's tests and run facts; past the judge's limits, the tests it decided and
    every other test of the suite (`listing()`, asked only when the judge stopped before it listed them) at 0."""
    if judgement.limit is None:
        return [TestOutcome.from_wire(o) for o in judgement.outcomes], RunFacts.from_dict(judgement.run)
    tests = judgement.tests
    if tests is None:
        with contextlib.suppress(JudgeLimitError):
            tests = listing()
    decided = {o.get("name"): TestOutcome.from_wire(o) for o in judgement.outcomes}
    stop = judge_stop(judgement.limit, limits)
    not_judged = Finding(Said("judge.not_judged", where=stop))
    outcomes = [
        decided.get(name)
        or TestOutcome(name=name, points=float(points), area=str(area), passed=False, finding=not_judged)
        for name, points, area in (tests or [])
    ]
    run = RunFacts.from_dict(judgement.run) or facts(box, {}, [], spec, limits)
    run.status = JUDGE_LIMIT
    run.judge_stop = stop
    words = render_said(stop, "en")
    run.notes = [*run.notes, render("judge.note", "en", where=words, judged=len(decided), total=len(outcomes))]
    return outcomes, run


def finish(
    tests: list[TestOutcome], run: RunFacts, *, seed: int, seconds: float, submission: Submission, spec: AssignmentSpec
) -> Result:
    """Step 8: the ``Result``: the marking scheme's charges, then its words in every language (``rendering``), the
    submission's own first: what every output shows of it, made once here."""
    run.refusal = submission.refusal
    run.cells = named_cells(submission, run, tests)
    run.empty = submission.refusal is None and not holds_code(submission.kind, submission.source)
    run.parts = py_parts(submission.source) if submission.kind == "py" else 0
    run.kind = submission.kind
    result = mark(Result(tests=tests, run=run, seed=seed, execution_time=seconds), spec)
    declared = declared_language(submission.kind, submission.source)  # read from the file; None if it says none
    result.language_declared = declared is not None and submission.refusal is None
    language = declared if declared in spec.languages else spec.languages[0]
    return rendered(result, spec, kind=submission.kind, language=language)


def named_cells(submission: Submission, run: RunFacts, tests: list[TestOutcome] = ()) -> dict:
    """``RunFacts.cells``: the section heading and first line of each notebook cell the run names (that raised
    while loading, or was running when the time ran out) or a test's finding names (where the student's code
    raised: ``cell.place.bare``), read from the submission itself."""
    running = run.running.get("cell") if isinstance(run.running, dict) else None
    wanted = {cell for cell, _ in run.load_errors if type(cell) is int} | ({running} if type(running) is int else set())
    for test in tests:
        for said in test.finding.said.walk() if test.finding is not None else ():
            number = said.params.get("number") if said.key == "cell.place.bare" else None
            if isinstance(number, str) and number.isdigit() and int(number) > 0:
                wanted.add(int(number) - 1)
    if submission.kind != "ipynb" or not wanted:
        return {}
    try:
        places = cell_places(json.loads(submission.source))
    except (ValueError, RecursionError):  # not a notebook: its cells are numbered only
        return {}
    return {str(i): [places[i].heading, places[i].first_line] for i in sorted(wanted) if i in places}


def mark(result: Result, spec: AssignmentSpec) -> Result:
    """Step 8's first half, alone for the in-process grader of sweeps (``autograder/qa/inprocess.py``): every
    test's charge by the marking scheme, read from the findings."""
    return apply_marking(result, spec.scheme)
