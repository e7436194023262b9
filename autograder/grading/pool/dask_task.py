"""Trusted: what runs on a dask worker for ``--executor dask``: one submission graded by a warm worker of that
worker process, the result sent back as JSON bytes (the only thing the kit's dask client takes back).

A module of its own, importing the grading machinery only when a task runs: the dask client (``dask_relay``)
refers to ``grade_text`` by name, and imports this module in a sandbox that shows nothing else of the kit.
"""

from __future__ import annotations

import json
import threading

__all__ = ["grade_text"]

_free: dict[tuple, list] = {}  # (assignment, limits) -> idle warm workers of this dask worker process
_templates: list = []  # the one template this process's warm workers are forked from (one torch import)
_lock = threading.Lock()


def grade_text(assignment: str, submission: dict, seed: int, limits: dict) -> bytes:
    """Grade one submission (``Submission.to_wire()``) with a warm worker of this process; the Result as
    ``Result.to_wire()`` in JSON."""
    from autograder.grading.pipeline import Submission
    from autograder.grading.pool.worker import Worker
    from autograder.grading.result import Result
    from autograder.sandbox.limits import Limits
    from autograder.sandbox.warm import Template

    key = (assignment, tuple(sorted(limits.items())))
    with _lock:
        idle = _free.setdefault(key, [])
        worker = idle.pop() if idle else None
        if not _templates:
            _templates.append(Template())
    if worker is None:
        worker = Worker(assignment, Limits(**limits), template=_templates[0])
    try:
        result = worker.grade(Submission.from_wire(submission), seed=seed)
    except Exception as exc:  # this submission only; the worker starts afresh
        worker.restart()
        result = Result.grader_failure(f"{type(exc).__name__}: {exc}")
    with _lock:
        _free[key].append(worker)
    return json.dumps(result.to_wire()).encode()
