"""Trusted: a pool of warm workers on this machine, fed from one queue (``grade_batch``'s default executor).

Each worker is a thread of this process driving its own processes (``worker.Worker``: a fork server and a
judge), all forked from one ``Template`` that imports torch once for the whole pool; the threads only wait on
pipes, so this process stays light (it never imports torch). Each worker takes submissions as soon as it is
warm, whatever the others' state. A failure
while grading one submission becomes that student's grader-error result, that worker's processes are
started afresh, and the batch goes on: nothing one submission does can stop another's grading.
"""

from __future__ import annotations

import functools
import queue
import threading
from collections.abc import Callable
from pathlib import Path

from autograder.graders import get_assignment
from autograder.grading.judge.kept import Kept
from autograder.grading.pool.worker import Worker
from autograder.grading.result import Result
from autograder.sandbox.limits import Limits
from autograder.sandbox.template import SHARED_IMPORTS
from autograder.sandbox.warm import Template

__all__ = ["LocalPool", "shared_imports"]


def shared_imports(assignment: str) -> tuple[str, ...]:
    """What of the assignment's warm imports the template may import once for all its zygotes."""
    return tuple(name for name in get_assignment(assignment).warm_imports if name in SHARED_IMPORTS)


class LocalPool:
    """`workers` warm workers for `assignment`; use as a context manager (``close`` stops every process)."""

    def __init__(
        self,
        *,
        assignment: str,
        limits: Limits = Limits(),
        workers: int = 1,
        mode: str | None = None,
        warm_named: bool = False,
        fold: bool = True,
    ) -> None:
        """`warm_named`: each worker's zygote warms only the optional imports its first submission names
        (``Worker``: for a class of one). `fold`: the template's and zygotes' memory folded into huge pages
        (``grade_batch`` asks it of a class large enough to pay for it: ``hugepages.PAYS_BACK_FROM``). Public
        libraries every zygote would import (matplotlib) are imported once, in the template
        (``template.SHARED_IMPORTS``)."""
        if workers < 1:
            raise ValueError(f"workers={workers}: give at least 1")
        self.template = Template(fold, () if warm_named else shared_imports(assignment))
        self.workers = [
            Worker(assignment, limits, mode=mode, warm_named=warm_named, template=self.template) for _ in range(workers)
        ]
        for worker in self.workers:  # all warm up at once
            worker.start()
        self._retired: list[dict] = []

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
        self.template.close()

    def stats(self) -> list[dict]:
        """Per worker: runs, processes started, peak RSS of its zygote and judge (bytes)."""
        return [worker.stats() for worker in self.workers]

    def grade(
        self,
        submissions: dict[str, Path],
        *,
        seed: int | None = None,
        hide: tuple = (),
        roots: tuple = (),
        on_result: Callable[[str, Result], None] | None = None,
        keep: Callable[[str, Kept], None] | None = None,
    ) -> dict[str, Result]:
        """student -> Result for every submission; `on_result` is called (in this thread) as each arrives.

        `roots`: the folders given on the command line; each file is read beneath its root, never through a link.
        `keep(student, kept)`: what the judge read and decided for each (``judge.kept``), from a worker's thread.
        """
        todo: queue.Queue = queue.Queue()
        for item in submissions.items():
            todo.put(item)
        done: queue.Queue = queue.Queue()
        threads = [
            threading.Thread(target=self._drain, args=(w, todo, done, seed, hide, roots, keep), daemon=True)
            for w in self.workers
        ]
        for thread in threads:
            thread.start()
        results: dict[str, Result] = {}
        while len(results) < len(submissions):
            try:
                student, result = done.get(timeout=1.0)  # a timeout keeps Ctrl-C responsive
            except queue.Empty:
                if not any(t.is_alive() for t in threads) and done.empty():
                    break
                continue
            results[student] = result
            if on_result is not None:
                on_result(student, result)
        for student in submissions:  # a worker thread that died outright (it should not)
            if student not in results:
                results[student] = Result.grader_failure("the worker grading this submission stopped")
                if on_result is not None:
                    on_result(student, results[student])
        return results

    @staticmethod
    def _drain(worker: Worker, todo: queue.Queue, done: queue.Queue, seed, hide, roots, keep) -> None:
        while True:
            try:
                student, path = todo.get_nowait()
            except queue.Empty:
                return
            try:
                kept = None if keep is None else functools.partial(keep, student)
                result = worker.grade_path(path, seed=seed, hide=hide, roots=roots, keep=kept)
            except Exception as exc:  # a grader bug or a process that died: this student only
                result = Result.grader_failure(f"{type(exc).__name__}: {exc}")
                try:
                    worker.restart()
                except Exception:  # this worker is done; the others drain the queue
                    done.put((student, result))
                    return
            done.put((student, result))
