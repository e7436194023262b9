"""Trusted: the warm pool on a dask.distributed cluster (``--executor dask --scheduler tls://HOST:PORT``).

Each dask worker process keeps warm workers (``worker.Worker``: a fork server and a judge, one per task
thread) for as long as it lives. Submissions travel as text (kind, source, file name), never as paths, so
the machines need the kit but not the class folder; results come back as bytes, ``Result.to_wire()`` as JSON,
and this process, which never talks to the cluster itself, writes every output: the dask client runs in the
sandbox, with the network (``dask_relay``), and hands over each result as JSON, the only thing this process
reads of it; what runs on the workers is ``dask_task``. Start the cluster as root on each machine, so the
sandbox gets its namespaces and cgroups, with the course's certificates (``dask-certs``; see the README)::

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

import importlib.util
import json
import threading
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from autograder.graders import all_specs
from autograder.grading.pipeline import read
from autograder.grading.pool.dask_tls import DaskScheduler, dask_scheduler
from autograder.grading.result import Result
from autograder.sandbox import run_sandboxed
from autograder.sandbox.limits import GiB, Limits
from autograder.sandbox.view import hidden_paths

__all__ = ["grade_on_dask"]

# The relay's own limits: the whole batch's time (a stalled cluster ends it sooner, see _stall_seconds), and
# room for distributed's threads and one result at a time.
_RELAY_LIMITS = Limits(wall_seconds=7 * 24 * 3600, memory_bytes=4 * GiB, max_processes=256)
_MAX_LINE = 64 << 20  # bytes of one relay message (a result's JSON is a few KiB, even in two languages)


def _stall_seconds(limits: Limits) -> float:
    """How long the batch waits for the next result: a worker's warm-up (torch, the judge) and one run."""
    return 600.0 + limits.wall_seconds + limits.judge_seconds


def _address(scheduler) -> str:
    if isinstance(scheduler, str | DaskScheduler):
        return str(scheduler)
    return str(getattr(scheduler, "scheduler_address", scheduler))


def _pem(value: str) -> str:
    """A certificate or key as PEM text: given as text already, or the file it names, read here (the relay's
    sandbox shows no file of the caller's)."""
    return value if "\n" in value else Path(value).read_text(encoding="ascii")


def _connection(scheduler) -> tuple[str, dict | None]:
    """(the scheduler's address, the client's TLS material as PEM text, or None for plain TCP asked for by
    name); ValueError for a scheduler reached insecurely, or one that only this process could reach.

    An address alone is checked as ``dask_scheduler`` checks it (``tls://`` only; TLS files from dask's
    configuration); a cluster object brings its own security, and must listen on ``tls://`` too.
    """
    if isinstance(scheduler, str):
        scheduler = dask_scheduler(scheduler)
    if isinstance(scheduler, DaskScheduler):
        address, files = scheduler.address, (scheduler.ca, scheduler.cert, scheduler.key)
    else:
        address = _address(scheduler)
        if not address.startswith("tls://"):
            dask_scheduler(address)  # raises: says why plain TCP is refused and what to do
        security = getattr(scheduler, "security", None)
        files = tuple(getattr(security, f"tls_{name}", None) for name in ("ca_file", "client_cert", "client_key"))
    if address.startswith("inproc://"):
        raise ValueError(
            f"the dask scheduler {address!r} lives in this process, and the dask client runs in a sandbox of its "
            "own: start the cluster with TLS and give its tls:// address"
        )
    if files[0] is None:  # tcp:// asked for by name
        return address, None
    return address, {key: _pem(str(value)) for key, value in zip(("ca", "cert", "key"), files, strict=True)}


class _Messages:
    """The relay's evidence pipe, read as it arrives: each line one JSON object, handed to `handle` (a line that
    is not one, or that runs past _MAX_LINE, is dropped: the students it would have named are graded as missing)."""

    def __init__(self, handle: Callable[[dict], None]) -> None:
        self.handle, self.buffer, self.lock = handle, bytearray(), threading.Lock()

    def __call__(self, chunk: bytes) -> None:
        with self.lock:
            self.buffer += chunk
            while (end := self.buffer.find(b"\n")) >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    self.handle(message)
            if len(self.buffer) > _MAX_LINE:
                self.buffer.clear()


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
    `roots`, never through a link (``pipeline.read``). The dask client runs in the sandbox (``dask_relay``) and
    each result comes back from it as JSON; nothing else of the cluster's is read here.
    """
    if importlib.util.find_spec("distributed") is None:
        raise RuntimeError("--executor dask needs dask.distributed: pip install -e '.[dask]' (the kit's dask extra)")
    address, tls = _connection(scheduler)
    stall = _stall_seconds(limits)
    wire = {student: read(path, roots).to_wire() for student, path in submissions.items()}
    job = {"address": address, "tls": tls, "assignment": assignment, "seed": seed, "limits": asdict(limits)}
    job.update(stall=stall, submissions=wire)
    results: dict[str, Result] = {}
    failed: list[str] = []

    def deliver(student: str, result: Result) -> None:
        results[student] = result
        if on_result is not None:
            on_result(student, result)

    def handle(message: dict) -> None:
        if "failed" in message:
            failed.append(str(message["failed"])[:500])
            return
        student = message.get("student")
        if isinstance(student, str) and student in submissions and student not in results:
            deliver(student, _result(message))

    box = run_sandboxed(
        module="autograder.grading.pool.dask_relay",
        stdin=json.dumps(job).encode(),
        limits=_RELAY_LIMITS,
        packages=("autograder.grading.pool.dask_relay", "autograder.grading.pool.dask_task"),
        hidden_paths=hidden_paths(all_specs(), roots),
        network=True,
        on_evidence=_Messages(handle),
    )
    if failed:
        raise RuntimeError(
            f"could not connect to the dask scheduler at {address} ({failed[0]}): is it running, and were its "
            "certificates and the client's (--tls-dir) made by the same dask-certs run?"
        )
    why = (
        f"no result came back from the dask cluster at {address} for {stall:.0f} s: are its workers alive (dask "
        "worker ...)? Run the same command again to grade what is missing."
    )
    if box.exit_code != 0 and not box.timed_out:
        why = f"the dask client stopped ({(box.stderr.strip().splitlines() or ['no message'])[-1][:300]}): {why}"
    for student in submissions:
        if student not in results:
            deliver(student, Result.grader_failure(why))
    return results


def _result(message: dict) -> Result:
    """A student's Result from the relay's message: the worker's JSON, read as JSON only."""
    if "result" not in message:
        return Result.grader_failure(str(message.get("error", "the dask client sent no result"))[:2000])
    try:
        return Result.from_wire(json.loads(message["result"]))
    except (TypeError, ValueError) as exc:
        return Result.grader_failure(f"the result that came back is not a grader's result: {exc}"[:2000])
