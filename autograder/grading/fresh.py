"""Trusted: the fresh executor (``--executor fresh``): this process reads the file and keeps a judge process;
each submission runs in a new sandboxed interpreter (``sandbox.launch``). The steps are ``grading.pipeline``'s.

The judge process (``judge.client``, running the suite with ``judge.suite``, as every executor does) works
under its own time and
memory limits, as on every executor. The warm pool (``autograder.grading.pool``) runs the same steps in
longer-lived processes and must give the same scores and messages at a fixed seed: this path is the reference.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from autograder.graders import all_specs
from autograder.graders.spec import AssignmentSpec
from autograder.grading import pipeline
from autograder.grading.judge.client import JudgeLimitError, JudgeProcess
from autograder.grading.result import Result
from autograder.sandbox import Limits, SandboxResult, run_sandboxed
from autograder.sandbox.library import library_copy
from autograder.sandbox.view import hidden_paths

__all__ = ["grade_submission", "shared_judge"]

_SHARED: dict[str, JudgeProcess] = {}  # "judge": this process's judge for the fresh path


def shared_judge(assignment: str, limits: Limits) -> JudgeProcess:
    """This process's judge for the fresh path, kept between submissions so that its
    start-up is paid once; replaced for another assignment or other judge limits, stopped when the process
    ends. It holds nothing a submission's evidence decided past that submission (``judge.memo``)."""
    from multiprocessing import util

    judge = _SHARED.get("judge")
    wanted = (assignment, limits.judge_seconds, limits.judge_memory_bytes)
    if judge is not None and (judge.assignment, judge.limits.judge_seconds, judge.limits.judge_memory_bytes) != wanted:
        judge.stop()
        judge = None
    if judge is None:
        judge = _SHARED["judge"] = JudgeProcess(assignment, limits)
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
    submission = pipeline.read(path, roots)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    judge = shared_judge(spec.name, limits) if judge is None else judge
    try:
        asked = time.monotonic()
        judge.ready(seed)  # its start-up and the plan before the sandbox starts: on nobody's clock, no contention
        start += time.monotonic() - asked
        box = _run(spec, path, seed, limits, hide, submission)
        judgement = judge.judge(seed=seed, box=box, evidence=box.evidence)
        tests, run = pipeline.judged(judgement, box, spec, limits, lambda: judge.collect(seed=seed))
    except JudgeLimitError as exc:
        return Result.grader_failure(str(exc))
    seconds = time.monotonic() - start
    return pipeline.finish(tests, run, seed=seed, seconds=seconds, submission=submission, spec=spec)


def _run(spec: AssignmentSpec, path, seed: int, limits: Limits, hide: tuple, submission) -> SandboxResult:
    """The submission's run in a fresh sandboxed interpreter, its job made here (never waiting for a judge)."""

    def job() -> bytes:  # runs while the sandbox starts (and imports torch)
        return pipeline.job(spec, spec.make_plan(seed), submission)

    file = Path(path).resolve()
    return run_sandboxed(
        module="autograder.runner",
        stdin=job,
        limits=limits,
        packages=(spec.runner_package,),
        hidden_paths=hidden_paths({spec, *all_specs()}, (file.parent, file, *hide)),
        library=library_copy(spec.withheld),
    )
