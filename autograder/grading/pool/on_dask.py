"""Trusted: the warm pool on a dask.distributed cluster (``--executor dask --scheduler tls://HOST:PORT``).

Each dask worker process keeps warm workers (``worker.Worker``: a fork server and a judge, one per task
thread) for as long as it lives. Submissions travel as text (kind, source, file name), never as paths, so
the machines need the kit but not the class folder; results come back as plain dicts (``Result.to_wire``) and
this process, the client, writes every output. Start the cluster as root on each machine, so the sandbox
gets its namespaces and cgroups, with the course's certificates (``dask-certs``; see the README)::

    # on one machine (prints tls://HOST:8786):
    dask scheduler --tls-ca-file ca.pem --tls-cert scheduler.pem --tls-key scheduler.key
        --dashboard-address 127.0.0.1:8787
    # on each grading machine, in the kit's venv:
    dask worker tls://HOST:8786 --nworkers 2 --nthreads 1 --dashboard-address 127.0.0.1:0
        --tls-ca-file ca.pem --tls-cert worker.pem --tls-key worker.key

The client connects over mutual TLS only (``autograder.grading.pool.dask_tls``): a plain ``tcp://`` scheduler lets
anyone run code in the workers, and is refused unless asked for by name. dask and distributed come with the
kit's ``dask`` extra (``pip install -e ".[dask]"``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from autograder.grading.pipeline import Submission, read
from autograder.grading.pool.dask_tls import DaskScheduler, dask_scheduler, security_for
from autograder.grading.result import Result
from autograder.sandbox.limits import Limits

__all__ = ["grade_on_dask", "grade_text"]

_free: dict[tuple, list] = {}  # (assignment, limits) -> idle warm workers of this dask worker process
_lock = threading.Lock()


def grade_text(assignment: str, submission: dict, seed: int, limits: dict) -> dict:
    """Runs on a dask worker: grade one submission (``Submission.to_wire()``) with a warm worker of this
    process; the Result as ``Result.to_wire()``."""
    from autograder.grading.pool.worker import Worker

    key = (assignment, tuple(sorted(limits.items())))
    with _lock:
        idle = _free.setdefault(key, [])
        worker = idle.pop() if idle else None
    if worker is None:
        worker = Worker(assignment, Limits(**limits))
    try:
        result = worker.grade(Submission.from_wire(submission), seed=seed)
    except Exception as exc:  # this submission only; the worker starts afresh
        worker.restart()
        result = Result.grader_failure(f"{type(exc).__name__}: {exc}")
    with _lock:
        _free[key].append(worker)
    return result.to_wire()


def _stall_seconds(limits: Limits) -> float:
    """How long the batch waits for the next result: a worker's warm-up (torch, the judge) and one run."""
    return 600.0 + limits.wall_seconds + limits.judge_seconds


def _address(scheduler) -> str:
    if isinstance(scheduler, str | DaskScheduler):
        return str(scheduler)
    return str(getattr(scheduler, "scheduler_address", scheduler))


def _connection(scheduler) -> tuple[object, object]:
    """(what ``Client`` connects to, its ``Security`` or None); ValueError for a scheduler reached insecurely.

    An address alone is checked as ``dask_scheduler`` checks it (``tls://`` only; TLS files from dask's
    configuration); a cluster object brings its own security, and must listen on ``tls://`` too.
    """
    if isinstance(scheduler, str):
        scheduler = dask_scheduler(scheduler)
    if isinstance(scheduler, DaskScheduler):
        return scheduler.address, security_for(scheduler)
    address = _address(scheduler)
    if not address.startswith(("tls://", "inproc://")):
        dask_scheduler(address)  # raises: says why plain TCP is refused and what to do
    return scheduler, getattr(scheduler, "security", None)


def grade_on_dask(
    *,
    assignment: str,
    submissions: dict[str, Path],
    seed: int,
    limits: Limits,
    scheduler: str | object,
    roots: tuple = (),
    on_result: Callable[[str, Result], None] | None = None,
) -> dict[str, Result]:
    """Grade on the cluster at `scheduler`: a ``DaskScheduler`` (``dask_tls.dask_scheduler``: the address and
    the client's TLS files), a ``tls://`` address (TLS files from dask's configuration), or a ``distributed``
    cluster object listening on ``tls://``. A plain ``tcp://`` one raises ValueError unless it is a
    ``DaskScheduler`` made with ``insecure_plain_tcp=True``.

    The workers never see the client's paths: submissions arrive as text, read here beneath their folder in
    `roots`, never through a link (``pipeline.read``).
    """
    try:
        from distributed import Client, wait
    except ImportError:
        raise RuntimeError(
            "--executor dask needs dask.distributed: pip install -e '.[dask]' (the kit's dask extra)"
        ) from None
    target, security = _connection(scheduler)
    results: dict[str, Result] = {}
    try:
        client = Client(target, security=security)
    except (OSError, TimeoutError) as exc:  # refused, or a TLS handshake that failed (a foreign certificate)
        raise RuntimeError(
            f"could not connect to the dask scheduler at {_address(scheduler)} ({type(exc).__name__}: {exc}): is it "
            "running, and were its certificates and the client's (--tls-dir) made by the same dask-certs run?"
        ) from None
    with client:
        futures = {}
        for student, path in submissions.items():
            submission = read(path, roots).to_wire()
            future = client.submit(grade_text, assignment, submission, seed, asdict(limits), pure=False)
            futures[future] = student
        pending = set(futures)
        stall = _stall_seconds(limits)

        def deliver(student: str, result: Result) -> None:
            results[student] = result
            if on_result is not None:
                on_result(student, result)

        while pending:
            try:
                done, pending = wait(pending, timeout=stall, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            if not done:  # a cluster whose workers died (or never came) must not hang the batch
                why = (
                    f"no result came back from the dask cluster at {_address(scheduler)} for {stall:.0f} s: are "
                    "its workers alive (dask worker ...)? Run the same command again to grade what is missing."
                )
                for future in pending:
                    deliver(futures[future], Result.grader_failure(why))
                break
            for future in done:
                try:
                    result = Result.from_wire(future.result())
                except Exception as exc:  # a lost worker, a task that could not run: this student only
                    result = Result.grader_failure(f"{type(exc).__name__}: {exc}")
                deliver(futures[future], result)
    return results
