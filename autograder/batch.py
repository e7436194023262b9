"""Trusted: grade many submissions in parallel, one sandbox each; one crash never stops the batch."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path

from autograder.result import Result
from autograder.sandbox import Limits
from autograder.terminal import printable

__all__ = ["grade_batch"]


def _grade_one(
    assignment: str, path: str, seed: int | None, limits: Limits, hide: tuple[str, ...], roots: tuple[str, ...] = ()
) -> Result:
    import torch

    from autograder.engine import grade_submission
    from autograder.graders import get_assignment

    torch.set_num_threads(1)  # workers judge side by side: one thread each
    try:
        spec = get_assignment(assignment)
        return grade_submission(spec=spec, path=path, seed=seed, limits=limits, hide=hide, roots=roots)
    except Exception as exc:  # one broken submission or grader bug must not stop the batch
        return Result.grader_failure(f"{type(exc).__name__}: {exc}")


def grade_batch(
    *,
    assignment: str,
    submissions: dict[str, Path],
    seed: int | None = None,
    limits: Limits = Limits(),
    workers: int | None = None,
    progress: bool = True,
    hide: tuple[str | Path, ...] = (),
    on_result: Callable[[str, Result], None] | None = None,
    roots: tuple[str | Path, ...] = (),
) -> dict[str, Result]:
    """Grade every submission; returns student -> Result (grader failures become grader-error results).

    `hide`: folders no submission may read (the batch's own folders: other students' work, the output).
    `roots`: the folders given on the command line; a file is read beneath its root without following links.
    `on_result(student, result)` is called as each result arrives (e.g. to write it at once).
    """
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers={workers}: give at least 1")
    results: dict[str, Result] = {}
    # spawn: workers start clean (no torch threads inherited from this process); each judges in-process.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(workers, max(1, len(submissions))), mp_context=ctx) as pool:
        hidden, trusted = tuple(map(str, hide)), tuple(map(str, roots))
        futures = {
            pool.submit(_grade_one, assignment, str(path), seed, limits, hidden, trusted): student
            for student, path in submissions.items()
        }
        bar = _Progress(len(futures)) if progress else None
        for future in cf.as_completed(futures):
            student = futures[future]
            try:
                results[student] = future.result()
            except Exception as exc:  # a dead worker process, for instance
                results[student] = Result.grader_failure(f"{type(exc).__name__}: {exc}")
            if on_result is not None:
                on_result(student, results[student])
            if bar:
                bar.update(student, results[student])
        if bar:
            bar.close()
    return dict(sorted(results.items()))


class _Progress:
    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        self.progress = Progress(*columns, TextColumn("{task.description}"), console=Console(stderr=True))
        self.progress.start()
        self.task = self.progress.add_task("", total=total)

    def update(self, student: str, result: Result) -> None:
        name = printable(student, newlines=False, limit=60)  # a student id is a file or folder name: untrusted
        self.progress.update(self.task, advance=1, description=f"{name}: {result.score:g}/{result.max_score:g}")

    def close(self) -> None:
        self.progress.stop()
