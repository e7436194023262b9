"""Trusted: grade one submission in a fresh interpreter: plan -> sandboxed runner -> evidence -> judge -> Result.

This is the fresh-interpreter path (``--executor fresh``): a new sandboxed Python per submission, the judge
in this process. The warm pool (``autograder.pool``) runs the same steps in longer-lived processes and must
give the same scores and messages at a fixed seed.

The steps, in the order they must happen (each depends on the previous one)::

    plan = spec.make_plan(seed)             trusted; the judge's random choices
    sandbox(runner, job={source, plan})     untrusted; evidence frames on a pipe
    evidence = decode_frames(bytes)         plain data only (weights_only=True); duplicates dropped
    tests = run_suite(plan, evidence)       trusted; recomputes every expected value
"""

from __future__ import annotations

import io
import secrets
import time
from pathlib import Path
from typing import Any

from autograder.editions import localize, text_language
from autograder.graders import all_specs
from autograder.judge.plugin import run_suite
from autograder.marking import apply_marking
from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import INTERNAL, Done, Load
from autograder.protocol.run_records import error_text, read_load
from autograder.result import Result, RunFacts, run_status
from autograder.sandbox import Limits, SandboxResult, run_sandboxed
from autograder.sandbox.view import hidden_paths
from autograder.spec import AssignmentSpec
from autograder.submissions import SubmissionRefused, read_submission, submission_root

__all__ = ["grade_submission", "run_facts", "facts_and_evidence", "job_blob"]


def run_facts(box: SandboxResult, evidence: dict, notes: list[str], spec: AssignmentSpec, limits: Limits) -> RunFacts:
    """What the run looked like: how it ended, what loading the submission left, what was noticed."""
    load = read_load(evidence.get(Load.NAME), spec.required_names)  # the runner's word: any shape, never raises
    texts = [box.stderr] + [m for _, m in load.errors]
    texts += [error_text(r.get("error", "")) for r in evidence.values() if isinstance(r, dict)]
    status = run_status(
        timed_out=box.timed_out,
        signal=box.signal,
        exit_code=box.exit_code,
        done=Done.NAME in evidence,
        texts=texts,
        memory_exceeded=box.memory_exceeded,
    )
    overflow = ["evidence over the size cap was dropped"] if box.evidence_overflow else []
    return RunFacts(
        status=status,
        exit_code=box.exit_code,
        signal=box.signal,
        wall_seconds=box.wall_seconds,
        limit=limits.wall_seconds,
        memory=f"{limits.memory_bytes / (1 << 30):g} GiB",
        stdout_tail=box.stdout[-4000:],
        stderr_tail=box.stderr[-4000:],
        load_errors=load.errors,
        defined=load.defined,
        required_names=list(spec.required_names),
        notes=box.notes + notes + load.notes + overflow,
        isolation=box.isolation.as_dict(),
    )


def facts_and_evidence(box: SandboxResult, spec: AssignmentSpec, limits: Limits) -> tuple[RunFacts, dict]:
    """Decode a run's evidence; (its run facts, the records a suite judges). Shared by the warm judge."""
    evidence, notes = decode_frames(box.evidence)
    run = run_facts(box, evidence, notes, spec, limits)
    for name in INTERNAL:
        if name != Load.NAME:
            evidence.pop(name, None)
    return run, evidence


def job_blob(spec: AssignmentSpec, plan: dict, kind: str, source: str, filename: str) -> bytes:
    """The runner's job (one ``torch.save`` blob on its stdin): the submission and the plan."""
    import torch

    blob = io.BytesIO()
    torch.save(
        {
            "kind": kind,
            "source": source,
            "filename": filename,
            "plan": plan,
            "experiments": spec.experiments,
            "required_names": list(spec.required_names),
        },
        blob,
    )
    return blob.getvalue()


def grade_submission(
    *,
    spec: AssignmentSpec,
    path: str | Path,
    seed: int | None = None,
    limits: Limits = Limits(),
    hide: tuple[str | Path, ...] = (),
    roots: tuple[str | Path, ...] = (),
) -> Result:
    """Grade one .py/.ipynb file; `hide` adds paths no submission may read (e.g. the batch's folders);
    `roots`: the folders given on the command line, beneath which the file is read without following links
    (default: the file's own folder)."""
    start = time.monotonic()
    try:
        kind, source = read_submission(Path(path), root=submission_root(path, roots))
        rejected = None
    except SubmissionRefused as exc:  # the student's problem, not the grader's: zero, with the reason
        kind, source, rejected = "py", "", str(exc)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    made: dict[str, Any] = {}

    def job() -> bytes:  # runs while the sandbox starts (and imports torch)
        made["plan"] = spec.make_plan(seed)
        return job_blob(spec, made["plan"], kind, source, Path(path).name)

    submission = Path(path).resolve()
    box = run_sandboxed(
        module="autograder.runner",
        stdin=job,
        limits=limits,
        packages=(spec.runner_package,),
        hidden_paths=hidden_paths({spec, *all_specs()}, (submission.parent, submission, *hide)),
    )
    run, evidence = facts_and_evidence(box, spec, limits)
    run.rejected = rejected
    tests, _ = run_suite(suite_dir=spec.suite_dir, plan=made["plan"], evidence=evidence, run=run.to_dict())
    result = Result(tests=tests, run=run, seed=seed, execution_time=time.monotonic() - start)
    result = apply_marking(result, spec)  # before localize: the scheme reads the English messages
    return localize(result, spec, text_language(kind, source))  # the edition is read from the file, not the run
