"""Trusted: a pool of warm workers on this machine, fed from one queue (``grade_batch``'s default executor).

Each worker is two threads of this process driving its own processes (``worker.Worker``: a fork server and a
judge), all forked from one ``Template`` that imports torch once for the whole pool: the first runs each file it
takes in a sandbox (``Worker.sandboxed``) and hands the run to the second, which has it judged
(``Worker.judged``), so that a file's run goes on while the previous file is judged, and the machine's cores have
work while a worker's chain of processes hands a file from one to the next. The threads only wait on pipes, so
this process stays light (it never imports torch). Each worker takes submissions as soon as it is warm, whatever
the others' state. A failure while grading one submission becomes that student's grader-error result, the
process that failed (the zygote or the judge) is started afresh, and the batch goes on: nothing one submission
does can stop another's grading.
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
        threads = []
        for worker in self.workers:
            ran: queue.Queue = queue.Queue(maxsize=1)  # the next run waits here while the judge is busy
            judge_gone = threading.Event()
            threads += [
                threading.Thread(target=_runs, args=(worker, todo, ran, done, judge_gone, seed, hide, roots)),
                threading.Thread(target=_judgements, args=(worker, ran, done, judge_gone, keep)),
            ]
        for thread in threads:
            thread.daemon = True
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


def _runs(worker: Worker, todo, ran, done, judge_gone, seed, hide, roots) -> None:
    """A worker's first thread: steps 1 to 4 of each file it takes (``Worker.sandboxed``), handed to its second
    thread, one at a time: a run goes on while the previous one is judged."""
    try:
        while not judge_gone.is_set():
            try:
                student, path = todo.get_nowait()
            except queue.Empty:
                return
            try:
                ran.put((student, worker.sandboxed(path, seed=seed, hide=hide, roots=roots)))
            except Exception as exc:  # a grader bug or a zygote that died: this student only
                done.put((student, Result.grader_failure(f"{type(exc).__name__}: {exc}")))
                try:
                    worker.restart_sandbox()
                except Exception:  # this worker is done; the others drain the queue
                    return
    finally:
        ran.put(None)


def _judgements(worker: Worker, ran, done, judge_gone, keep) -> None:
    """A worker's second thread: steps 5 to 8 of each run its first thread hands over (``Worker.judged``). A
    judge that cannot be started again ends the worker: the runs already made are the grader's failure."""
    while (item := ran.get()) is not None:
        student, made = item
        if judge_gone.is_set():
            done.put((student, Result.grader_failure("this worker's judge process could not be started again")))
            continue
        try:
            kept = None if keep is None else functools.partial(keep, student)
            result = worker.judged(made, keep=kept)
        except Exception as exc:  # a grader bug or a judge that died: this student only
            result = Result.grader_failure(f"{type(exc).__name__}: {exc}")
            try:
                worker.restart_judge()
            except Exception:
                judge_gone.set()
        done.put((student, result))
