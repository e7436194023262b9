"""Trusted: the fresh executor (``--executor fresh``): where its steps run. This process reads the file and keeps a
judge process (``judge.client``, under its own time and memory limits, as on every executor); each submission
runs in a new sandboxed interpreter (``sandbox.launch``); ``pipeline.grade`` strings the steps together.

The warm pool (``autograder.grading.pool``) runs the same steps in longer-lived processes and must give the
same scores and messages at a fixed seed: this path is the reference.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.graders import all_specs
from autograder.graders.spec import AssignmentSpec
from autograder.grading import pipeline
from autograder.grading.judge.client import JudgeProcess
from autograder.grading.judge.kept import Kept
from autograder.grading.result import Result
from autograder.sandbox import Limits, SandboxResult, run_sandboxed
from autograder.sandbox.library import library_copy
from autograder.sandbox.view import hidden_paths

__all__ = ["grade_submission", "shared_judge", "FreshSandbox"]

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
    keep: Callable[[Kept], None] | None = None,
) -> Result:
    """Grade one .py/.ipynb file; `hide` adds paths no submission may read (e.g. the batch's folders);
    `roots`: the folders given on the command line, beneath which the file is read without following links
    (default: the file's own folder). `judge`: the judge process to judge it (default: ``shared_judge``).
    `keep`: handed what the judge read and decided (``pipeline.grade``)."""
    submission = pipeline.read(path, roots)
    file = Path(path).resolve()
    return pipeline.grade(
        submission,
        spec=spec,
        seed=secrets.randbelow(2**31) if seed is None else int(seed),
        limits=limits,
        judge=shared_judge(spec.name, limits) if judge is None else judge,
        sandbox=FreshSandbox(spec, limits, hide=(file.parent, file, *hide)),
        keep=keep,
    )


@dataclass(frozen=True)
class FreshSandbox:
    """Step 4 in a new sandboxed interpreter (``sandbox.launch``), which has nothing to warm."""

    spec: AssignmentSpec
    limits: Limits
    hide: tuple[str | Path, ...]

    def warm(self) -> float:
        return 0.0

    def run(self, job: Callable[[], bytes]) -> SandboxResult:
        return run_sandboxed(
            module="autograder.runner",
            stdin=job,
            limits=self.limits,
            packages=(self.spec.runner_package,),
            hidden_paths=hidden_paths({self.spec, *all_specs()}, self.hide),
            library=library_copy(self.spec.withheld),
        )
