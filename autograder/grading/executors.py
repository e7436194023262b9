"""Trusted: the executors behind one interface: ``grade_batch`` grades a class, ``grade_file`` a class of one.

Every executor runs ``grading.pipeline.grade`` and only decides which process runs which step: ``pool`` (warm
workers here: ``autograder.grading.pool.local``), ``fresh`` (a new sandboxed interpreter per submission:
``autograder.grading.fresh``; one submission is graded in this process, several in worker processes that
each keep a judge process) and ``dask`` (warm workers on a dask.distributed cluster:
``autograder.grading.pool.on_dask``). One crash never stops the batch.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from autograder.grading.judge.kept import Kept
from autograder.grading.result import Result
from autograder.grading.terminal import printable
from autograder.sandbox import Limits

__all__ = ["grade_batch", "grade_file", "EXECUTORS", "executor_error"]


def _grade_one(
    assignment: str,
    path: str,
    seed: int | None,
    limits: Limits,
    hide: tuple[str, ...],
    roots: tuple[str, ...] = (),
    keep: Callable[[Kept], None] | None = None,
) -> Result:
    from autograder.graders import get_assignment
    from autograder.grading.fresh import grade_submission

    try:
        spec = get_assignment(assignment)
        return grade_submission(spec=spec, path=path, seed=seed, limits=limits, hide=hide, roots=roots, keep=keep)
    except Exception as exc:  # one broken submission or grader bug must not stop the batch
        return Result.grader_failure(f"{type(exc).__name__}: {exc}")


EXECUTORS = ("pool", "fresh", "dask")


def executor_error(executor: str, scheduler: object | None) -> str | None:
    """Why `executor` cannot run with `scheduler` (the command line says it with its flags), or None."""
    if executor not in EXECUTORS:
        return f"executor {executor!r}: choose one of {', '.join(EXECUTORS)}"
    if executor == "dask" and not scheduler:
        return "the dask executor needs a scheduler: --scheduler tls://HOST:PORT (the address `dask scheduler` prints)"
    return None


def grade_batch(
    *,
    assignment: str,
    submissions: dict[str, Path],
    seed: int | None = None,
    limits: Limits = Limits(),
    workers: int | None = None,
    progress: bool = True,
    progress_label: str = "grading",
    progress_item: str = "{student}: {score}/{top}",
    hide: tuple[str | Path, ...] = (),
    on_result: Callable[[str, Result], None] | None = None,
    roots: tuple[str | Path, ...] = (),
    executor: str = "pool",
    scheduler: str | None = None,
    keep: Callable[[str, Kept], None] | None = None,
) -> dict[str, Result]:
    """Grade every submission; returns student -> Result (grader failures become grader-error results).

    `hide`: folders no submission may read (the batch's own folders: other students' work, the output).
    `roots`: the folders given on the command line; a file is read beneath its root without following links.
    `on_result(student, result)` is called as each result arrives (e.g. to write it at once).
    `progress_label`: the word before the progress bar, in the instructor's language (the caller's catalog), and
    `progress_item` the last result beside it (a ``str.format`` template of `student`, `score` and `top`).
    `seed`: the judge's plan for every submission; None draws one for the whole batch (every student is
    tested on the same cases, and the judge's reference work is shared; each result records its seed).
    `executor`: "pool" (warm workers on this machine, the default), "fresh" (a new interpreter per
    submission, the reference path), or "dask" (warm workers on the dask.distributed cluster at `scheduler`).
    `keep(student, kept)` is handed what the judge read and decided for each (``judge.kept``): on this machine
    only (the pool, or fresh for one file).
    """
    if error := executor_error(executor, scheduler):
        raise ValueError(error)
    if keep is not None and (executor == "dask" or (executor == "fresh" and len(submissions) > 1)):
        raise ValueError(
            f"keeping evidence with executor {executor!r} for {len(submissions)} submissions: the judge runs in "
            "another process there; use the pool executor (or fresh for one file)"
        )
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers={workers}: give at least 1")
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    hidden, trusted = tuple(map(str, hide)), tuple(map(str, roots))
    bar = _Progress(len(submissions), progress_label, progress_item) if progress else None

    def arrived(student: str, result: Result) -> None:
        if on_result is not None:
            on_result(student, result)
        if bar:
            bar.update(student, result)

    listener = arrived if on_result is not None or bar is not None else None  # a class of one has none

    try:
        if executor == "pool":
            from autograder.grading.pool.local import LocalPool
            from autograder.sandbox.hugepages import PAYS_BACK_FROM

            workers = min(workers, max(1, len(submissions)))
            with LocalPool(
                assignment=assignment,
                limits=limits,
                workers=workers,
                warm_named=len(submissions) == 1,  # a class of one warms only what its file names
                fold=len(submissions) >= PAYS_BACK_FROM * workers,  # a smaller class would pay more than it saves
            ) as pool:
                results = pool.grade(submissions, seed=seed, hide=hidden, roots=trusted, on_result=listener, keep=keep)
        elif executor == "dask":
            from autograder.grading.pool.on_dask import grade_on_dask

            results = grade_on_dask(
                assignment=assignment,
                submissions=submissions,
                seed=seed,
                limits=limits,
                scheduler=scheduler,
                roots=trusted,
                on_result=listener,
            )
        elif len(submissions) == 1:  # a class of one: in this process, no worker process to start
            ((student, path),) = submissions.items()
            kept = None if keep is None else functools.partial(keep, student)
            results = {student: _grade_one(assignment, str(path), seed, limits, hidden, trusted, kept)}
            arrived(student, results[student])
        else:
            results = _grade_fresh(assignment, submissions, seed, limits, workers, hidden, trusted, arrived)
    finally:
        if bar:
            bar.close()
    return dict(sorted(results.items()))


def _grade_fresh(assignment, submissions, seed, limits, workers, hidden, trusted, arrived) -> dict[str, Result]:
    import concurrent.futures as cf  # here: the pool's command, which never needs them, starts without them
    import multiprocessing

    results: dict[str, Result] = {}
    # spawn: workers start clean (no torch threads inherited from this process); each keeps a judge process.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(workers, max(1, len(submissions))), mp_context=ctx) as pool:
        futures = {
            pool.submit(_grade_one, assignment, str(path), seed, limits, hidden, trusted): student
            for student, path in submissions.items()
        }
        for future in cf.as_completed(futures):
            student = futures[future]
            try:
                results[student] = future.result()
            except Exception as exc:  # a dead worker process, for instance
                results[student] = Result.grader_failure(f"{type(exc).__name__}: {exc}")
            arrived(student, results[student])
    return results


class _Progress:
    def __init__(self, total: int, label: str = "grading", item: str = "{student}: {score}/{top}") -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        # a format string, read as markup: the label is words of a catalog, escaped all the same
        columns = (
            TextColumn(escape(label).replace("{", "{{").replace("}", "}}")),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        self.progress = Progress(*columns, TextColumn("{task.description}"), console=Console(stderr=True))
        self.progress.start()
        self.task = self.progress.add_task("", total=total)
        self.item = item

    def update(self, student: str, result: Result) -> None:
        from rich.markup import escape

        name = printable(student, newlines=False, limit=60)  # a student id is a file or folder name: untrusted
        said = self.item.format(student=name, score=f"{result.score:g}", top=f"{result.max_score:g}")
        self.progress.update(self.task, advance=1, description=escape(said))  # the column reads markup

    def close(self) -> None:
        self.progress.stop()


def grade_file(
    *,
    assignment: str,
    path: Path,
    seed: int | None = None,
    limits: Limits = Limits(),
    hide: tuple[str | Path, ...] = (),
    roots: tuple[str | Path, ...] = (),
    executor: str = "pool",
    scheduler: str | None = None,
    keep: Callable[[Kept], None] | None = None,
) -> Result:
    """Grade one file with `executor`: a class of one (see ``grade_batch``); `keep(kept)`: what the judge read
    and decided (``judge.kept``)."""
    one = {"submission": Path(path)}
    return grade_batch(
        assignment=assignment,
        submissions=one,
        seed=seed,
        limits=limits,
        workers=1,
        progress=False,
        hide=hide,
        roots=roots,
        executor=executor,
        scheduler=scheduler,
        keep=None if keep is None else lambda _student, kept: keep(kept),
    )["submission"]
