"""Trusted: grade one submission in a fresh interpreter: plan -> sandboxed runner -> evidence -> judge -> Result.

This is the fresh-interpreter path (``--executor fresh``): a new sandboxed Python per submission, judged by
a judge process (``judge.client``, running the suite with ``pytest.main``) under the judge's own time and
memory limits, as on every executor. The warm pool (``autograder.grading.pool``) runs the same steps in
longer-lived processes and must give the same scores and messages at a fixed seed.

The steps, in the order they must happen (each depends on the previous one)::

    plan = spec.make_plan(seed)             trusted; the judge's random choices
    sandbox(runner, job={source, plan})     untrusted; evidence frames on a pipe
    judge process (its own limits):
      evidence = decode_frames(bytes)       plain data only (JSON + safetensors); duplicates dropped
      tests = run_suite(plan, evidence)     trusted; recomputes every expected value
"""

from __future__ import annotations

import contextlib
import io
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from autograder.graders import all_specs
from autograder.graders.spec import AssignmentSpec
from autograder.grading.editions import localize, text_language
from autograder.grading.judge.client import JudgeLimitError, Judgement, JudgeProcess
from autograder.grading.marking import apply_marking
from autograder.grading.result import JUDGE_LIMIT, Result, RunFacts, TestOutcome, run_status
from autograder.grading.submissions import SubmissionRefused, read_submission, submission_root
from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import INTERNAL, Done, Load, Running
from autograder.protocol.run_records import error_text, read_load, read_running
from autograder.sandbox import Limits, SandboxResult, run_sandboxed
from autograder.sandbox.view import hidden_paths

__all__ = ["grade_submission", "shared_judge", "run_facts", "facts_and_evidence", "job_blob", "judged"]

_LIMIT_WORDS = {
    "time": "its time limit ({judge_seconds:g} s)",
    "memory": "its memory limit ({judge_memory})",
    "died": "an unexpected end",
}


def run_facts(box: SandboxResult, evidence: dict, notes: list[str], spec: AssignmentSpec, limits: Limits) -> RunFacts:
    """What the run looked like: how it ended, what loading the submission left, what was noticed."""
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
    """Decode a run's evidence; (its run facts, the records a suite judges). Shared by the warm judge."""
    evidence, notes = decode_frames(box.evidence)
    run = run_facts(box, evidence, notes, spec, limits)
    for name in INTERNAL:
        if name != Load.NAME:
            evidence.pop(name, None)
    for name in [n for n in evidence if n.startswith(Running.NAME)]:
        evidence.pop(name)
    return run, evidence


def job_blob(spec: AssignmentSpec, plan: dict, kind: str, source: str, filename: str) -> bytes:
    """The runner's job (one ``torch.save`` blob on its stdin): the submission and the plan."""
    import torch

    blob = io.BytesIO()
    torch.save(
        {
            "kind": kind,
            "source": source,
            "filename": filename,
            "plan": plan,
            "experiments": spec.experiments,
            "required_names": list(spec.required_names),
        },
        blob,
    )
    return blob.getvalue()


def judged(
    judgement: Judgement,
    box: SandboxResult,
    spec: AssignmentSpec,
    limits: Limits,
    listing: Callable[[], list | None],
) -> tuple[list[TestOutcome], RunFacts]:
    """A judgement's tests and run facts; past the judge's limits, the tests it decided and every other test
    of the suite (`listing()`, asked only when the judge stopped before it listed them) at 0."""
    if judgement.limit is None:
        return [TestOutcome.from_gradescope(o) for o in judgement.outcomes], RunFacts.from_dict(judgement.run)
    tests = judgement.tests
    if tests is None:
        with contextlib.suppress(JudgeLimitError):
            tests = listing()
    decided = {o.get("name"): TestOutcome.from_gradescope(o) for o in judgement.outcomes}
    words = _LIMIT_WORDS.get(judgement.limit, judgement.limit).format(
        judge_seconds=limits.judge_seconds, judge_memory=f"{limits.judge_memory_bytes / (1 << 30):g} GiB"
    )
    not_judged = f"not judged: the judge stopped at {words} on this submission's evidence"
    outcomes = [
        decided.get(name)
        or TestOutcome(name=name, points=float(points), area=str(area), passed=False, output=not_judged)
        for name, points, area in (tests or [])
    ]
    run = RunFacts.from_dict(judgement.run) or run_facts(box, {}, [], spec, limits)
    run.status = JUDGE_LIMIT
    run.notes = [*run.notes, f"the judge stopped at {words}; {len(decided)} of {len(outcomes)} tests were judged"]
    return outcomes, run


_SHARED: dict[str, JudgeProcess] = {}  # "judge": this process's judge for the fresh path


def shared_judge(assignment: str, limits: Limits) -> JudgeProcess:
    """This process's judge for the fresh path (``suite="pytest"``), kept between submissions so that its
    start-up is paid once; replaced for another assignment or other judge limits, stopped when the process
    ends. It holds nothing a submission's evidence decided past that submission (``judge.memo``)."""
    from multiprocessing import util

    judge = _SHARED.get("judge")
    wanted = (assignment, limits.judge_seconds, limits.judge_memory_bytes)
    if judge is not None and (judge.assignment, judge.limits.judge_seconds, judge.limits.judge_memory_bytes) != wanted:
        judge.stop()
        judge = None
    if judge is None:
        judge = _SHARED["judge"] = JudgeProcess(assignment, limits, suite="pytest")
        util.Finalize(judge, judge.stop, exitpriority=10)  # at this process's exit (a batch's worker's too)
    judge.limits = limits  # the run facts it derives name this submission's limits
    return judge


def grade_submission(
    *,
    spec: AssignmentSpec,
    path: str | Path,
    seed: int | None = None,
    limits: Limits = Limits(),
    hide: tuple[str | Path, ...] = (),
    roots: tuple[str | Path, ...] = (),
    judge: JudgeProcess | None = None,
) -> Result:
    """Grade one .py/.ipynb file; `hide` adds paths no submission may read (e.g. the batch's folders);
    `roots`: the folders given on the command line, beneath which the file is read without following links
    (default: the file's own folder). `judge`: the judge process to judge it (default: ``shared_judge``)."""
    start = time.monotonic()
    try:
        kind, source = read_submission(Path(path), root=submission_root(path, roots))
        rejected = None
    except SubmissionRefused as exc:  # the student's problem, not the grader's: zero, with the reason
        kind, source, rejected = "py", "", str(exc)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    judge = shared_judge(spec.name, limits) if judge is None else judge
    try:
        judge.ready(seed)  # its start-up and the plan before the sandbox starts: on nobody's clock, no contention
        box = _run(spec, path, seed, limits, hide, kind, source)
        judgement = judge.judge(seed=seed, box=box, evidence=box.evidence)
        tests, run = judged(judgement, box, spec, limits, lambda: judge.collect(seed=seed))
    except JudgeLimitError as exc:
        return Result.grader_failure(str(exc))
    run.rejected = rejected
    result = Result(tests=tests, run=run, seed=seed, execution_time=time.monotonic() - start)
    result = apply_marking(result, spec)  # before localize: the scheme reads the English messages
    return localize(result, spec, text_language(kind, source))  # the edition is read from the file, not the run


def _run(spec: AssignmentSpec, path, seed: int, limits: Limits, hide: tuple, kind: str, source: str) -> SandboxResult:
    """The submission's run in a fresh sandboxed interpreter, its job made here (never waiting for a judge)."""

    def job() -> bytes:  # runs while the sandbox starts (and imports torch)
        return job_blob(spec, spec.make_plan(seed), kind, source, Path(path).name)

    submission = Path(path).resolve()
    return run_sandboxed(
        module="autograder.runner",
        stdin=job,
        limits=limits,
        packages=(spec.runner_package,),
        hidden_paths=hidden_paths({spec, *all_specs()}, (submission.parent, submission, *hide)),
    )
