"""Trusted: one warm worker: a fork server, a judge and a sandbox uid; one submission runs while the last is judged.

Its zygote and its judge are forks of a ``Template`` (the pool's, shared by its workers, or one of its own),
which imports torch once for all of them: a replacement zygote or judge imports no torch again.

Where the pool runs ``pipeline.grade``'s steps: the judge's in the worker's judge process, step 4 in a fresh
sandboxed child of the warm zygote (``ForkedSandbox``), fed a job made here from the plan's part the judge made
once a seed. Both warm up before a student's clock starts. ``grade`` runs the steps in turn; the pool runs
``sandboxed`` and ``judged`` in two threads, a file's run beside the previous file's judgement (the judge serves
one thread at a time).

Nothing a submission does can reach the next one: its child is a copy of a zygote that never ran student
code, in its own namespaces, cgroup and tmpfs, and everything in it is killed when it ends; the judge never
runs student code and keeps only what depends on the plan (see ``judge.server``). A zygote that dies is
replaced and the submission tried once more; a judge past its limits gives the status "judge limit", and
one that has grown is replaced after the judgement (``judge.client``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.graders import all_specs, get_assignment
from autograder.grading import pipeline
from autograder.grading.judge.client import JudgeProcess
from autograder.grading.pipeline import Submission
from autograder.grading.result import Result
from autograder.protocol.frames import JOB, join_frame
from autograder.sandbox.config import jail_config
from autograder.sandbox.launch import probe_isolation
from autograder.sandbox.library import library_copy
from autograder.sandbox.limits import Limits, isolation_for
from autograder.sandbox.runs import RUNNER_PACKAGES, SandboxResult, run_cgroup
from autograder.sandbox.scratch import WORKDIR_PREFIX
from autograder.sandbox.slots import Slot, kill_uid
from autograder.sandbox.view import build_view, extra_hidden, hidden_paths, visible_hides
from autograder.sandbox.warm import Template, Zygote, ZygoteError, run_forked
from coursecheck.cells import is_released_demo, is_test_cell
from coursecheck.notebook import code_cells

__all__ = ["Worker", "ForkedSandbox", "named_warm_imports", "own_texts"]


def own_texts(submission: Submission, released: Collection[str] = ()) -> list[str]:
    """The texts of `submission` that name what its run may import: a notebook's code cells but its nbgrader test
    cells and its demonstrations as released (their digests among `released`: the run leaves such a cell out unless
    another cell needs it, and a run that does need it imports what it names itself); a .py file, or a notebook
    that cannot be read as one, whole. Only hashes and JSON are read here, never the code."""
    if submission.kind != "ipynb":
        return [submission.source]
    try:
        cells = code_cells(json.loads(submission.source))
    except (ValueError, TypeError, AttributeError, RecursionError):  # the runner reports what is wrong with it
        return [submission.source]
    return [source for _, source, meta in cells if not is_test_cell(meta) and not is_released_demo(source, released)]


def named_warm_imports(optional: Iterable[str], sources: Iterable[str]) -> tuple[str, ...]:
    """The warm imports whose top-level package one of `sources` names (as a word): a class of one that never
    plots need not wait for matplotlib (~0.5 s of the zygote's start, on a single grade's critical path).
    Only speed depends on it: a child imports whatever its zygote did not, as a fresh interpreter does."""
    texts = list(sources)
    return tuple(
        name for name in optional if any(re.search(rf"\b{re.escape(name.partition('.')[0])}\b", text) for text in texts)
    )


class Worker:
    """Grades submissions of one assignment, one at a time, with warm processes (see the module docstring)."""

    def __init__(
        self,
        assignment: str,
        limits: Limits = Limits(),
        *,
        mode: str | None = None,
        warm_named: bool = False,
        template: Template | None = None,
        fold: bool = True,
    ) -> None:
        """`warm_named`: its zygote waits for the first submission and warms only the optional imports that one
        names (a class of one need not wait for matplotlib); else it warms all the grader's ``warm_imports``.
        `template`: what its processes are forked from (a pool's, shared); else one of its own, started now.
        `fold`: its own template's memory folded into huge pages, and so its zygote's (``sandbox.hugepages``: worth
        it for many runs); a given template's setting holds for its zygote."""
        self.assignment, self.limits = assignment, limits
        self._own_template = template is None
        self.template = Template(fold) if template is None else template
        # What it grades, and who judges it (started by ``start``)
        self.spec = get_assignment(assignment)
        self.warm_imports, self.warm_named = self.spec.warm_imports, warm_named
        self.warm_up = "" if warm_named else self.spec.warm_up  # a class of one forks once: it would only pay
        self.memo_plans = not warm_named  # each plan's part decoded once by the zygote (``plan_memo``)
        self.preload = ("autograder.runner.__main__", "coursecheck.notebook", self.spec.experiments.partition(":")[0])
        self.judge = JudgeProcess(assignment, limits, self.template)
        # How its runs are isolated: the mode, a sandbox uid, what they may not see, the dnnlpy they import
        # (without what the grader withholds), what they see of the kit
        self.isolation = probe_isolation() if mode is None else isolation_for(mode)
        self.mode = self.isolation.mode
        self.slot = Slot()
        base = hidden_paths({*all_specs(), self.spec})
        packages = (*RUNNER_PACKAGES, self.spec.runner_package)
        self.library = library_copy(self.spec.withheld)
        self.view = build_view(packages, list(base), self.library) if self.mode == "namespaces" else None
        self.zygote: Zygote | None = None
        self.runs = 0
        self.zygotes_started = 0
        self._zygote_peak = 0
        self.timings: dict[str, float] = {}  # seconds of the last grade's stages (job, run, judge, total)
        self._judge_lock = threading.Lock()  # the judge serves one thread at a time (the pool's: ``judged``)
        self._part: tuple[int | None, tuple[bytes, bytes]] = (None, (b"", b""))  # (seed, its job part)
        self._part_digest = ""  # of the job part, naming its plan to the zygote (``plan_memo``)
        self.plan_error = ""  # why the zygote made no memo of the last plan it was handed, if it did not

    def start(self) -> None:
        """Start the zygote and the judge (both warm up in the background); the zygote waits for the first
        submission when that one names its warm imports (`warm_named`)."""
        self._start_zygote()
        self.judge.start()

    def _start_zygote(self) -> None:
        if not self.warm_named and (self.zygote is None or not self.zygote.alive()):
            self._stop_zygote()
            ready = self.spec.plan_ready
            self.zygote = Zygote(
                self.preload, self.warm_imports, self.library, self.warm_up, self.template, plan_ready=ready
            )
            self.zygotes_started += 1

    def _stop_zygote(self) -> None:
        if self.zygote is not None:
            self._zygote_peak = max(self._zygote_peak, self.zygote.peak_rss())
            self.zygote.close()
            self.zygote = None
        if self.mode != "rlimits":
            kill_uid(self.slot.uid)

    def _stop(self) -> None:
        self._stop_zygote()
        self.judge.stop()

    def restart(self) -> None:
        """Fresh processes after a failure (the sandbox uid stays this worker's)."""
        self._stop()
        self.start()

    def restart_sandbox(self) -> None:
        """A fresh zygote after a failure in a run (``sandboxed``); the judge carries on."""
        self._stop_zygote()
        self._start_zygote()

    def restart_judge(self) -> None:
        """A fresh judge after a failure in a judgement (``judged``); the zygote carries on."""
        with self._judge_lock:
            self.judge.stop()
            self.judge.start()

    def close(self) -> None:
        self._stop()
        self.slot.release()
        if self._own_template:
            self.template.close()

    def stats(self) -> dict:
        """Runs graded, processes started, and peak resident memory (bytes) of each warm process (the template's
        is shared by a pool's workers)."""
        zygote = max(self._zygote_peak, self.zygote.peak_rss() if self.zygote else 0)
        judge = self.judge.peak_rss()
        return {
            "runs": self.runs,
            "zygotes_started": self.zygotes_started,
            "judges_started": self.judge.started,
            "judges_replaced": self.judge.replaced,
            "zygote_peak_rss": zygote,
            "judge_peak_rss": judge,
            "template_peak_rss": self.template.peak_rss(),
        }

    def grade_path(
        self, path: str | Path, *, seed: int | None = None, hide: tuple = (), roots: tuple = (), keep=None
    ) -> Result:
        """Grade one file; `hide` adds paths no submission may read (the folder of the file always is);
        the file is read beneath its folder in `roots` (default: its own folder), never through a link."""
        submission, hide = _read(path, roots, hide)
        return self.grade(submission, seed=seed, hide=hide, keep=keep)

    def grade(self, submission: Submission, *, seed: int | None = None, hide: tuple = (), keep=None) -> Result:
        """Grade one submission given as text (``pipeline.Submission``); `keep`: ``pipeline.grade``'s."""
        self.timings = {}
        seed = secrets.randbelow(2**31) if seed is None else int(seed)
        self.judge.prepare(seed)  # the plan is drawn while the zygote warms up (or forks this run)
        if self.memo_plans:
            self._job_part(seed)  # the plan's part, for the zygote's memo of it (``plan_memo``)
        return pipeline.grade(
            submission,
            spec=self.spec,
            seed=seed,
            limits=self.limits,
            judge=self.judge,
            sandbox=ForkedSandbox(self, submission, hide, self.timings),
            timings=self.timings,
            keep=keep,
        )

    def sandboxed(self, path: str | Path, *, seed: int, hide: tuple = (), roots: tuple = ()) -> pipeline.Ran:
        """Steps 1 to 4 of one file (``pipeline.sandboxed``; ``grade_path`` says what `hide` and `roots` do), its
        job made from the plan's part kept for `seed`: what the pool runs beside the previous file's judgement
        (``judged``), which it never waits for."""
        submission, hide = _read(path, roots, hide)
        if self._part[0] != seed:
            with self._judge_lock:
                self.judge.prepare(seed)  # the plan is drawn while the zygote warms up
        timings: dict[str, float] = {}
        sandbox = ForkedSandbox(self, submission, hide, timings)
        return pipeline.sandboxed(submission, seed=seed, part=self._job_part, sandbox=sandbox, timings=timings)

    def judged(self, ran: pipeline.Ran, *, keep=None) -> Result:
        """Steps 5 to 8 of a run ``sandboxed`` made (``pipeline.judge_run``), by this worker's judge."""
        with self._judge_lock:
            result = pipeline.judge_run(ran, spec=self.spec, limits=self.limits, judge=self.judge, keep=keep)
        self.timings = ran.timings
        return result

    def _job_part(self, seed: int) -> tuple[bytes, bytes]:
        """The plan's ``pipeline.job_part`` for `seed`, asked of the judge once a seed (a judge replaced later
        draws the same plan from the same seed)."""
        if self._part[0] != seed:
            with self._judge_lock:
                self._part = (seed, self.judge.job_part(seed))
            self._part_digest = hashlib.blake2b(b"".join(self._part[1]), digest_size=16).hexdigest()
        return self._part[1]

    def plan_memo(self) -> str | None:
        """The digest of the current job part's plan once this worker's zygote holds it decoded, and what the
        grader's ``AssignmentSpec.plan_ready`` drew for its runs (handed over at the plan's first run there, again
        after a zygote is replaced), else None: a run then reads the whole job and computes all of it itself. A
        class of one forks once: it hands over nothing (``warm_named``)."""
        zygote = self.zygote
        if not self.memo_plans or zygote is None or self._part[0] is None:
            return None
        if zygote.plan_digest != self._part_digest:
            frame = join_frame(JOB, {}, self._part[1])
            if not zygote.plan(self._part_digest, frame):
                self.plan_error = zygote.plan_error  # a cost, never a mark: the runs draw it all themselves
                return None
        return self._part_digest

    def run(self, job, hide: tuple, submission: Submission | None = None):
        """One sandboxed child of the warm zygote, fed the blob `job()` makes while the child builds its root: when
        the zygote holds the plan's part decoded (``plan_memo``), the `submission`'s job that names it instead
        (``pipeline.job_naming``; `job()` is still made: the run's record keeps the whole job)."""
        group, isolation = run_cgroup(self.limits, self.isolation)
        workdir = tempfile.mkdtemp(prefix=WORKDIR_PREFIX) if self.mode != "namespaces" else "/tmp"
        try:
            if self.mode == "uid":
                os.chown(workdir, self.slot.uid, self.slot.uid)
            # the kit's own deny-list is in the view since start: each run adds its submission's paths
            view = visible_hides(self.view, extra_hidden(hide)) if self.view is not None else None
            cfg = jail_config(
                mode=self.mode,
                limits=self.limits,
                uid=self.slot.uid,
                workdir=workdir,
                view=view,
                cgroup_procs=group.procs_files if group else None,
                library=self.library,
            )
            cfg["plan"] = digest = self.plan_memo()  # the zygote forks it with that plan's memo, or none
            stdin = job
            if digest is not None and submission is not None:

                def stdin() -> bytes:  # the whole job still made: the run's record keeps it
                    job()
                    return pipeline.job_naming(digest, submission)

            return run_forked(self.zygote, cfg=cfg, stdin=stdin, limits=self.limits, isolation=isolation, group=group)
        finally:
            if group is not None:
                group.remove()
            if self.mode != "namespaces":
                shutil.rmtree(workdir, ignore_errors=True)


def _read(path: str | Path, roots: tuple, hide: tuple) -> tuple[Submission, tuple]:
    """A file read as ``pipeline.read`` reads it, and what its run may not read: `hide`, the file and its folder."""
    file = Path(path).resolve()
    return pipeline.read(path, roots), (file.parent, file, *hide)


@dataclass(frozen=True)
class ForkedSandbox:
    """Step 4 in a fork of the worker's warm zygote: its warm-up waited for first, a zygote that died replaced
    once (the machine's OOM killer?)."""

    worker: Worker
    submission: Submission
    hide: tuple
    timings: dict = field(default_factory=dict)  # where the zygote's warm-up is said (``zygote_ready``)

    def warm(self) -> float:
        worker = self.worker
        if worker.warm_named:
            texts = own_texts(self.submission, worker.spec.released_demos)
            worker.warm_imports = named_warm_imports(worker.spec.warm_imports, texts)
            worker.warm_named = False
        worker._start_zygote()  # the judge is the judging thread's to start (``judged``), never this one's
        asked = time.monotonic()
        try:
            worker.zygote.wait_ready()
        except ZygoteError:  # the fork server died (the machine's OOM killer?): a fresh one, once more
            worker._start_zygote()
            worker.zygote.wait_ready()
        self.timings["zygote_ready"] = time.monotonic() - asked
        return self.timings["zygote_ready"]

    def run(self, job) -> SandboxResult:
        try:
            box = self.worker.run(job, self.hide, self.submission)
        except ZygoteError:  # it died during this run: a fresh one, once more
            self.warm()
            box = self.worker.run(job, self.hide, self.submission)
        self.worker.runs += 1
        return box
