"""Trusted: the steps of grading one submission, in order, each a function with typed input and output.

Every executor runs these steps and only decides which process runs which one (``fresh``: this process and a
fresh sandboxed interpreter; ``pool/``: a warm worker's fork server and judge process; ``pool/on_dask``: the
same on a dask cluster; ``gradescope/run``: the pool for one file; ``qa/inprocess``: no sandbox, for sweeps)::

    submission = read(path, roots)                    this process: the file beneath its folder, or why refused
    plan       = spec.make_plan(seed)                  the judge process: the judge's random choices
    blob       = job(spec, plan, submission)           the judge process: the runner's stdin
    box        = <run>(blob)                           the sandbox: ``sandbox.launch`` (fresh) or ``sandbox.warm``
    evidence   = decode(box)                           the judge process: plain data only (``protocol.decode``)
    run        = facts(box, evidence, spec, limits)    the judge process: how the run ended (``RunFacts``)
    tests      = <suite>(plan, evidence, run)          the judge process: ``judge.suite``: each test's finding
    tests, run = judged(judgement, ...)                this process: the judge's answer, or its limit's
    result     = finish(tests, run, ...)               this process: marks (``marking``), the edition's language
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import render
from autograder.grading.editions import localize, stopped_said, text_language
from autograder.grading.findings import Finding
from autograder.grading.judge.client import JudgeLimitError, Judgement
from autograder.grading.marking import apply_marking
from autograder.grading.result import JUDGE_LIMIT, Result, RunFacts, TestOutcome, run_status
from autograder.grading.submissions import SubmissionRefused, read_submission, submission_root
from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import INTERNAL, Done, Load, Running
from autograder.protocol.run_records import error_text, read_load, read_running
from autograder.protocol.said import Said
from autograder.protocol.said import render as render_said
from autograder.protocol.typed import fields_from_wire, wire_fields
from autograder.sandbox.limits import Limits
from autograder.sandbox.runs import SandboxResult
from dnnlpy.notebook import cell_places

__all__ = [
    "Submission",
    "read",
    "job",
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
    rejected: str | None = None  # why the file was not read (then it is graded as empty), or None
    refusal: dict = field(default_factory=dict)  # the same as the engine's catalog message: {"id", "params"}

    def to_wire(self) -> dict:
        return wire_fields(self)

    @classmethod
    def from_wire(cls, data: Any) -> Submission:
        """ValueError naming the field that is not what it should be."""
        fields = fields_from_wire(cls, data, "a submission")
        if fields["kind"] not in ("py", "ipynb"):
            raise ValueError(f"a submission's field 'kind' is kind={fields['kind']!r}, expected 'py' or 'ipynb'")
        return cls(**fields)


def read(path: str | Path, roots: tuple[str | Path, ...] = ()) -> Submission:
    """Step 1: the file beneath its folder in `roots` (default: its own folder), never through a link; a
    refused file is the student's problem, not the grader's: graded empty, with the reason and the fix."""
    path = Path(path)
    try:
        kind, source = read_submission(path, root=submission_root(path, roots))
    except SubmissionRefused as exc:
        return Submission("py", "", path.name, str(exc), {"id": exc.key, "params": exc.params})
    return Submission(kind, source, path.name)


def job(spec: AssignmentSpec, plan: dict, submission: Submission) -> bytes:
    """Step 2: the runner's job (one ``torch.save`` blob on its stdin): the submission and the plan."""
    import torch

    blob = io.BytesIO()
    torch.save(
        {
            "kind": submission.kind,
            "source": submission.source,
            "filename": submission.filename,
            "plan": plan,
            "experiments": spec.experiments,
            "required_names": list(spec.required_names),
        },
        blob,
    )
    return blob.getvalue()


def decode(box: SandboxResult) -> tuple[dict, list[str]]:
    """Step 4: the run's evidence bytes as records (plain data only), and notes on what was refused."""
    return decode_frames(box.evidence)


def facts(box: SandboxResult, evidence: dict, notes: list[str], spec: AssignmentSpec, limits: Limits) -> RunFacts:
    """Step 5: what the run looked like: how it ended, what loading the submission left, what was noticed."""
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
    )


def facts_and_evidence(box: SandboxResult, spec: AssignmentSpec, limits: Limits) -> tuple[RunFacts, dict]:
    """Steps 4 and 5 as the judge process runs them: (the run facts, the records a suite judges)."""
    evidence, notes = decode(box)
    run = facts(box, evidence, notes, spec, limits)
    for name in INTERNAL:
        if name != Load.NAME:
            evidence.pop(name, None)
    for name in [n for n in evidence if n.startswith(Running.NAME)]:
        evidence.pop(name)
    return run, evidence


def judge_stop(limit: str, limits: Limits) -> dict:
    """Where the judge stopped, as the engine's catalog message ({"id", "params"}; {"words"} for a limit the
    catalog does not name): rendered in English for the marking, and in the student's language after it."""
    if limit == "time":
        return {"id": "judge.stopped.time", "params": {"seconds": f"{limits.judge_seconds:g}"}}
    if limit == "memory":
        return {"id": "judge.stopped.memory", "params": {"memory": f"{limits.judge_memory_bytes / (1 << 30):g} GiB"}}
    if limit == "died":
        return {"id": "judge.stopped.died", "params": {}}
    return {"words": str(limit)}


def judged(
    judgement: Judgement,
    box: SandboxResult,
    spec: AssignmentSpec,
    limits: Limits,
    listing: Callable[[], list | None],
) -> tuple[list[TestOutcome], RunFacts]:
    """Step 6's answer: a judgement's tests and run facts; past the judge's limits, the tests it decided and
    every other test of the suite (`listing()`, asked only when the judge stopped before it listed them) at 0."""
    if judgement.limit is None:
        return [TestOutcome.from_wire(o) for o in judgement.outcomes], RunFacts.from_dict(judgement.run)
    tests = judgement.tests
    if tests is None:
        with contextlib.suppress(JudgeLimitError):
            tests = listing()
    decided = {o.get("name"): TestOutcome.from_wire(o) for o in judgement.outcomes}
    stop = judge_stop(judgement.limit, limits)
    not_judged = Finding(Said("judge.not_judged", where=stopped_said(stop)))
    outcomes = [
        decided.get(name)
        or TestOutcome(name=name, points=float(points), area=str(area), passed=False, finding=not_judged)
        for name, points, area in (tests or [])
    ]
    run = RunFacts.from_dict(judgement.run) or facts(box, {}, [], spec, limits)
    run.status = JUDGE_LIMIT
    run.judge_stop = stop
    words = render_said(stopped_said(stop), "en")
    run.notes = [*run.notes, render("judge.note", "en", where=words, judged=len(decided), total=len(outcomes))]
    return outcomes, run


def finish(
    tests: list[TestOutcome], run: RunFacts, *, seed: int, seconds: float, submission: Submission, spec: AssignmentSpec
) -> Result:
    """Step 7: the ``Result``: the marking scheme's charges, and the language its feedback is shown in."""
    run.rejected, run.refusal = submission.rejected, dict(submission.refusal)
    run.cells = named_cells(submission, run)
    result = mark(Result(tests=tests, run=run, seed=seed, execution_time=seconds), spec)
    language = text_language(submission.kind, submission.source)  # read from the file
    return localize(result, language if language in spec.languages else spec.languages[0])


def named_cells(submission: Submission, run: RunFacts) -> dict:
    """``RunFacts.cells``: the section heading and first line of each notebook cell the run names (that raised
    while loading, or was running when the time ran out), read from the submission itself."""
    running = run.running.get("cell") if isinstance(run.running, dict) else None
    wanted = {cell for cell, _ in run.load_errors if type(cell) is int} | ({running} if type(running) is int else set())
    if submission.kind != "ipynb" or not wanted:
        return {}
    try:
        places = cell_places(json.loads(submission.source))
    except (ValueError, RecursionError):  # not a notebook: its cells are numbered only
        return {}
    return {str(i): [places[i].heading, places[i].first_line] for i in sorted(wanted) if i in places}


def mark(result: Result, spec: AssignmentSpec) -> Result:
    """Step 7's first half, alone for the in-process grader of sweeps (``autograder/qa/inprocess.py``): every
    test's charge by the marking scheme, read from the findings."""
    return apply_marking(result, spec.scheme)
