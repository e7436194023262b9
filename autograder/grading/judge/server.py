"""Trusted: the warm judge, one process per pool worker: plans, then judges evidence, within its own limits.

Started by ``autograder.grading.judge.client``, as ``python -I -B -m autograder.grading.judge.server FD`` or, in the
pool, as a fork of the ``template`` (torch imported already), which runs ``main([FD])``; its first message on FD
says which assignment to load, its memory cap and its environment, so that the template never holds them. It
never runs student code; it reads evidence a submission wrote, so it runs under a
memory cap (RLIMIT_AS here, and a cgroup when the grader is root) and the grader kills it at its time limit:
a submission whose evidence makes judging too slow or too big gets the status "judge limit", and a fresh
judge takes over. Once its imports are done it says so (``{"ready": true}``), then serves requests
(``wire``)::

    {"op": "warm", "seed"}      -> {"warm": seed} + the plan's job part (``pipeline.job_part``: two blobs): the plan
                                   drawn, the suite loaded
    {"op": "judge", "seed", "box": {...}, "limits": {...}} + evidence blob
        -> {"batch": [{"run": run facts}, {"tests": [[name, points, area], ...]}, {"outcome": {...}} per test]}
           (in one batch, or in several when the judgement is slow: ``Outbox``), then {"done": true}
    {"op": "collect", "seed"}                              -> {"tests": [...]}
    a memory error while judging                          -> {"limit": "memory"}, then this process exits

Reference work is shared across submissions that share a plan: the plan (per seed) and the suite's modules
(whose memos key on the plan's objects) stay loaded while the seed stays the same (``judge.suite``). What a
suite memoised from one submission's evidence is dropped when its judgement ends, but for work on the sizes it
reported (``judge.memo``). The plan's tensors are fingerprinted after each judgement: if a test changed them, the
plan is made afresh.

A judgement is language-free: each outcome carries its finding (a message id and its parameters), rendered in
the reader's language where it is shown.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import resource
import sys
import threading
import time
from multiprocessing.connection import Connection

from autograder.grading.judge.memo import end_judgement
from autograder.grading.judge.wire import GROWN_SHARE, receive, send
from autograder.grading.run_status import MEMORY_MARKERS
from autograder.protocol.frames import HEADER
from autograder.sandbox.warm import resident_bytes

__all__ = ["WarmJudge", "main", "fingerprint", "bounded_frames", "judged_inputs", "MAX_FRAMES"]

_PR_SET_DUMPABLE = 4
MAX_FRAMES = 2048  # evidence frames the judge reads (a runner sends a few dozen)
FLUSH_AFTER = 0.05  # seconds a decided finding waits at most for the rest of its judgement before it is sent
HEAP_SLACK = 32 << 20  # freed heap a judge keeps between judgements (``_give_back``)


def fingerprint(value) -> str:
    """A digest of a plan's contents (tensors by their bytes), to notice a test that changed it."""
    import torch

    digest = hashlib.blake2b(digest_size=16)

    def walk(item) -> None:
        if isinstance(item, torch.Tensor):
            digest.update(repr((item.dtype, tuple(item.shape))).encode())
            digest.update(item.detach().contiguous().view(torch.uint8).numpy().tobytes() if item.numel() else b"")
        elif isinstance(item, dict):
            for key in item:
                digest.update(repr(key).encode())
                walk(item[key])
        elif isinstance(item, (list, tuple)):
            for part in item:
                walk(part)
        else:
            digest.update(repr(item).encode())

    walk(value)
    return digest.hexdigest()


def bounded_frames(data: bytes, limit: int) -> tuple[bytes, int]:
    """The first `limit` frames of an evidence channel, and how many more there were.

    A runner sends a few dozen records; tens of thousands of tiny frames would cost the judge one
    ``torch.load`` each. Walking the headers costs nothing; the decoder still checks every frame it reads.
    """
    pos = count = 0
    cut = None
    while pos + HEADER.size <= len(data):
        if count == limit:
            cut = pos
        (size,) = HEADER.unpack_from(data, pos)
        pos += HEADER.size + size
        count += 1
    return (data, 0) if cut is None else (data[:cut], count - limit)


def judged_inputs(box, spec, limits) -> tuple:
    """(the run facts, the records) a suite judges, from a sandbox's report (``SandboxResult``): its first
    ``MAX_FRAMES`` frames decoded and the run's facts (``pipeline.facts_and_evidence``). The judge process
    and pytest over kept evidence (``judge.pytest_suite``) both read a run through this."""
    from autograder.grading.pipeline import facts_and_evidence

    box.evidence, dropped = bounded_frames(box.evidence, MAX_FRAMES)
    if dropped:
        box.notes = [*box.notes, f"{dropped} evidence frames past the first {MAX_FRAMES} were not read"]
    return facts_and_evidence(box, spec, limits)


def _is_memory_error(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and any(marker in str(exc) for marker in MEMORY_MARKERS)
    )


class WarmJudge:
    def __init__(self, spec) -> None:
        self.spec = spec
        self._plans: dict[int, tuple[dict, str]] = {}  # seed -> (plan, fingerprint); the last two seeds
        self._suite = None  # judge.suite.Suite for self._suite_seed, or None
        self._suite_seed: int | None = None

    def plan(self, seed: int) -> dict:
        if seed not in self._plans:
            plan = self.spec.make_plan(seed)
            self._plans[seed] = (plan, fingerprint(plan))
            while len(self._plans) > 2:
                self._plans.pop(next(iter(self._plans)))
        return self._plans[seed][0]

    def job_part(self, seed: int) -> tuple[bytes, bytes]:
        from autograder.grading import pipeline

        return pipeline.job_part(self.spec, self.plan(seed))

    def prepare(self, seed: int):
        """The suite, imported for this seed's plan (the previous seed's modules are dropped)."""
        from autograder.grading.judge.suite import Suite

        if self._suite is None or self._suite_seed != seed:
            if self._suite is not None:
                self._suite.close()
                self._suite = None
            self._suite = Suite.load(self.spec.suite_dir, self.spec.scheme)
            self._suite_seed = seed
        return self._suite

    def judge(self, seed: int, box, limits, emit) -> None:
        plan = self.plan(seed)
        run, evidence = judged_inputs(box, self.spec, limits)
        emit({"run": run.to_dict()})
        suite = self.prepare(seed)
        try:
            emit({"tests": suite.collect()})
            for outcome in suite.run(plan=plan, evidence=evidence, run=run.to_dict()):
                emit({"outcome": outcome.to_wire()})
        finally:
            end_judgement()  # nothing this submission's evidence decided is kept for the next one
            if fingerprint(plan) != self._plans[seed][1]:  # a test changed the plan: never reuse it
                self._plans.pop(seed, None)
                if self._suite is not None and self._suite_seed == seed:
                    self._suite.close()
                    self._suite = None

    def collect(self, seed: int) -> list:
        return self.prepare(seed).collect()


class Outbox:
    """Every message to the grader, in order; a judgement's findings sent together (``{"batch": [...]}``) when it
    ends, or ``FLUSH_AFTER`` seconds after the first one not sent yet, by a daemon thread: what the judge decided
    before a test that hangs reaches the grader long before its time limit kills this process. One message a
    judgement where there were ~30 (~2 ms of this process's and the grader's CPU a file)."""

    def __init__(self, conn: Connection, after: float | None = None) -> None:
        self.conn, self.after = conn, FLUSH_AFTER if after is None else after
        self._pending: list[dict] = []
        self._flushes = 0  # how many batches went: the flusher's deadline is for the batch it saw begin
        self._lock = threading.Condition()
        threading.Thread(target=self._flusher, name="outbox", daemon=True).start()

    def __call__(self, message: dict) -> None:
        """A finding (or the run's facts, the suite's listing) of the judgement under way, sent with the rest."""
        with self._lock:
            self._pending.append(message)
            if len(self._pending) == 1:
                self._lock.notify_all()

    def send(self, message: dict, blobs: tuple[bytes, ...] = ()) -> None:
        """`message` now, after whatever is pending."""
        with self._lock:
            self._flush()
            send(self.conn, message, blobs)

    def _flush(self) -> None:
        if self._pending:
            batch, self._pending = self._pending, []
            self._flushes += 1
            self._lock.notify_all()
            send(self.conn, {"batch": batch})

    def _flusher(self) -> None:
        with self._lock:
            while True:
                self._lock.wait_for(lambda: self._pending)
                seen = self._flushes
                if not self._lock.wait_for(lambda seen=seen: self._flushes != seen, timeout=self.after):
                    with contextlib.suppress(OSError):  # the grader is gone: the main thread says so
                        self._flush()


def _give_back(floor: int | None, limit: int) -> int | None:
    """Return the memory a judgement freed to the system (glibc keeps freed heap pages otherwise) once this judge
    holds more than ``HEAP_SLACK`` over what it held after the last time (`floor`; None: never yet) or over `limit`
    (``GROWN_SHARE`` of its cap: the grader replaces a judge past it), so that the grader's measure of it after a
    judgement (``judge.client``) sees what it really holds, and a judgement that built much leaves nothing behind.
    An ordinary judgement's few MB stay: giving them back cost ~0.5 ms a judgement, and as much again in the next
    judgement's page faults to take them back. Returns the floor from now on."""
    resident = resident_bytes()
    if floor is not None and 0 < resident <= min(limit, floor + HEAP_SLACK):
        return floor
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):  # not glibc
        pass
    return resident_bytes()


def serve(conn: Connection, judge: WarmJudge, memory: int) -> None:
    """Answer the grader's requests on `conn` until it closes it; `memory`: this judge's cap, in bytes."""
    from autograder.sandbox.limits import Limits
    from autograder.sandbox.runs import SandboxResult

    outbox = Outbox(conn)
    floor: int | None = None  # resident bytes after the last time freed memory was given back
    outbox.send({"ready": True})  # imports done: what the grader waits for before a student's clock starts
    while True:
        try:
            header, blobs = receive(conn)
        except EOFError:
            return
        op = header.get("op")
        try:
            if op == "warm":
                part = judge.job_part(int(header["seed"]))
                judge.prepare(int(header["seed"]))
                outbox.send({"warm": int(header["seed"])}, part)
            elif op == "judge":
                start = time.monotonic()
                box = SandboxResult.from_wire(header["box"], blobs[0] if blobs else b"")
                judge.judge(int(header["seed"]), box, Limits(**header["limits"]), outbox)
                floor = _give_back(floor, int(GROWN_SHARE * memory))
                outbox.send({"done": True, "seconds": round(time.monotonic() - start, 3)})
            elif op == "collect":
                outbox.send({"tests": judge.collect(int(header["seed"]))})
            else:
                outbox.send({"error": f"unknown request {op!r}"})
        except MemoryError as exc:
            outbox.send({"limit": "memory", "detail": str(exc)[:500]})
            return  # a fresh judge takes over: this one's heap may be in pieces
        except Exception as exc:  # the grader's own failure: reported, and this judge carries on
            if _is_memory_error(exc):
                outbox.send({"limit": "memory", "detail": str(exc)[:500]})
                return
            outbox.send({"error": f"{type(exc).__name__}: {exc}"})


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    conn = Connection(int(args[0]))
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    start, _blobs = receive(conn)  # {"assignment", "memory", "env"}: sent once this process is in its cgroup
    os.environ.clear()
    os.environ.update(start["env"])
    memory = int(start["memory"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    import torch

    torch.set_num_threads(1)  # the judge's models are tiny; workers judge side by side

    from autograder.graders import get_assignment

    serve(conn, WarmJudge(get_assignment(start["assignment"])), memory)


if __name__ == "__main__":
    main()
