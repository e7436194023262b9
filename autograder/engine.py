"""Grade one submission: plan -> sandboxed runner -> evidence -> judge -> results dict.

The steps, in the order they must happen (each depends on the previous one)::

    plan = spec.make_plan(seed)             trusted; the judge's random choices
    sandbox(runner, job={source, plan})     untrusted; evidence frames on a pipe
    evidence = decode_frames(bytes)         plain data only (weights_only=True); duplicates dropped
    tests = judge.run_suite(plan, evidence) trusted; recomputes every expected value
"""
from __future__ import annotations

import importlib.util
import json
import io
import secrets
import signal
import sys
import struct
import time
from pathlib import Path
from typing import Any

from autograder.judge import run_suite
from autograder.results import build_result
from autograder.sandbox import Limits, SandboxResult, run_sandboxed
from autograder.spec import AssignmentSpec

__all__ = ["grade_submission", "decode_frames", "hidden_paths", "runner_modules", "read_submission",
           "SubmissionTooLarge", "MAX_SUBMISSION_BYTES", "MAX_FRAME_BYTES"]

MAX_FRAME_BYTES = 16 << 20
MAX_SUBMISSION_BYTES = 64 << 20  # a notebook with its outputs cleared is far smaller
_INTERNAL = ("__load__", "__done__", "__experiments_error__")
_MEMORY_MARKERS = ("MemoryError", "can't allocate", "Cannot allocate memory", "bad_alloc", "out of memory")


class SubmissionTooLarge(ValueError):
    """The file is over MAX_SUBMISSION_BYTES: it is graded as an empty submission, with this message."""


def read_submission(path: Path) -> tuple[str, str]:
    """(kind, text) of a .py or .ipynb file; a notebook keeps only its cells' sources and metadata."""
    path = Path(path)
    if path.suffix not in (".py", ".ipynb"):
        raise ValueError(f"{str(path)!r} is neither a .py nor an .ipynb file: pass the student's notebook or script")
    if not path.is_file():
        raise FileNotFoundError(f"no submission file at {str(path)!r}")
    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise SubmissionTooLarge(
            f"{path.name} is {size / 2**20:.0f} MiB, over the {MAX_SUBMISSION_BYTES >> 20} MiB limit: clear the "
            "notebook's outputs (Edit > Clear Outputs of All Cells), save, and hand it in again")
    text = path.read_text(encoding="utf-8", errors="replace")
    return path.suffix[1:], (_without_outputs(text) if path.suffix == ".ipynb" else text)


def _without_outputs(text: str) -> str:
    # Outputs (plots, long logs) are never part of a submission; dropping them keeps the job small.
    # Text that is not a notebook goes through unchanged, for the runner to report.
    try:
        nb = json.loads(text)
        cells = [{key: cell[key] for key in ("cell_type", "source", "metadata") if key in cell}
                 for cell in nb["cells"]]
    except (ValueError, KeyError, TypeError):
        return text
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": nb.get("nbformat", 4),
                       "nbformat_minor": nb.get("nbformat_minor", 5)})


def decode_frames(data: bytes) -> tuple[dict[str, dict], list[str]]:
    """Evidence frames -> (name -> record, notes). Malformed frames are skipped; a name sent twice is dropped."""
    import torch

    evidence: dict[str, dict] = {}
    duplicated: set[str] = set()
    notes: list[str] = []
    pos = 0
    while pos < len(data):
        if len(data) - pos < 8:
            notes.append("evidence ends with a truncated frame header")
            break
        (size,) = struct.unpack(">Q", data[pos:pos + 8])
        if size > MAX_FRAME_BYTES or pos + 8 + size > len(data):
            notes.append(f"evidence frame of {size} bytes is oversized or truncated: the rest is ignored")
            break
        blob = data[pos + 8:pos + 8 + size]
        pos += 8 + size
        try:
            frame = torch.load(io.BytesIO(blob), weights_only=True)
        except Exception as exc:  # noqa: BLE001 - anything unloadable is simply not evidence
            notes.append(f"malformed evidence frame ignored ({type(exc).__name__})")
            continue
        if not (type(frame) is dict and type(frame.get("name")) is str and type(frame.get("record")) is dict):
            notes.append("evidence frame without a name and a dict record ignored")
            continue
        name = frame["name"]
        if name in evidence or name in duplicated:
            duplicated.add(name)
            evidence.pop(name, None)
            continue
        evidence[name] = frame["record"]
    for name in sorted(duplicated):
        notes.append(f"evidence for {name!r} was sent more than once: treated as missing")
    return evidence, notes


def hidden_paths(spec: AssignmentSpec, extra: tuple[str | Path, ...] = ()) -> tuple[str, ...]:
    """What student code must not see: every assignment's suite, solutions and calibration, the kit's
    nbgrader source/submissions/gradebook, its tests and git history, plus `extra` (e.g. the submissions being graded)."""
    from autograder.assignments import all_specs

    kit = Path(__file__).resolve().parents[1]
    paths: list[Path] = [kit / ".git", kit / "solutions", kit / "tests", kit / "autograder" / "calibration"]
    for sub in ("source", "submitted", "autograded", "feedback", "gradebook.db"):
        paths.append(kit / "assignments" / sub)
    paths += list(kit.glob("*/gradebook.db")) + [kit / "gradebook.db"]
    for other in {spec, *all_specs()}:
        paths += [Path(other.suite_dir), Path(other.calibration_dir), Path(other.solution_path)]
        paths += _assignment_private_files(other)
    # The code the runner imports: a folder holding any of it, or inside it, is never hidden (only files
    # are); the kit's own secrets inside it are listed above.
    code = [kit / "autograder", kit / "dnnlpy", Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    for path in (Path(p).resolve() for p in extra):
        if path.is_dir() and any(path == n or path in n.parents or n in path.parents for n in code):
            continue
        paths.append(path)
    return tuple(str(p) for p in paths if p.exists())


def runner_modules(spec: AssignmentSpec) -> tuple[str, ...]:
    """The kit modules the runner imports besides itself (and dnnlpy): the sandbox exposes only these."""
    return ("autograder.spec", "autograder.assignments", spec.experiments.partition(":")[0])


def _assignment_private_files(spec: AssignmentSpec) -> list[Path]:
    """Everything in the experiments' package folder except what the runner imports (``__init__.py`` and
    the experiments module): the judge's reference, plan maker, notes and their bytecode stay unseen."""
    module = spec.experiments.partition(":")[0]
    found = importlib.util.find_spec(module)
    if found is None or not found.origin:
        return []
    exp_file = Path(found.origin).resolve()
    folder = exp_file.parent
    return [p for p in folder.iterdir() if p not in (exp_file, folder / "__init__.py")]


def _status(box: SandboxResult, evidence: dict, load: dict) -> str:
    if box.timed_out:
        return "timeout"
    texts = [box.stderr] + [m for _, m in load.get("errors", [])]
    texts += [str(r.get("error", "")) for r in evidence.values() if isinstance(r, dict)]
    if any(marker in t for t in texts for marker in _MEMORY_MARKERS):
        return "memory"
    if box.signal == signal.SIGXCPU:
        return "timeout"
    if box.signal is not None:
        return "crashed"
    if "__done__" not in evidence or box.exit_code != 0:
        return "exited"
    return "ok"


def _run_info(box: SandboxResult, evidence: dict, notes: list[str], spec: AssignmentSpec,
              limits: Limits) -> dict[str, Any]:
    load = evidence.get("__load__", {})
    errors = [[int(i), str(m)[:2000]] for i, m in load.get("errors", [])
              if isinstance(i, int)] if isinstance(load.get("errors"), list) else []
    return {
        "status": _status(box, evidence, {"errors": errors}),
        "exit_code": box.exit_code, "signal": box.signal, "wall_seconds": box.wall_seconds,
        "limit": limits.wall_seconds, "memory": f"{limits.memory_bytes / (1 << 30):g} GiB",
        "stdout_tail": box.stdout[-4000:], "stderr_tail": box.stderr[-4000:],
        "load_errors": errors,
        "defined": [n for n in load.get("defined", []) if isinstance(n, str)],
        "required_names": list(spec.required_names),
        "notes": box.notes + notes + (["evidence over the size cap was dropped"] if box.evidence_overflow else []),
        "isolation": box.isolation.as_dict(),
    }


def grade_submission(*, spec: AssignmentSpec, path: str | Path, seed: int | None = None,
                     limits: Limits = Limits(), hide: tuple[str | Path, ...] = ()) -> dict:
    """Grade one .py/.ipynb file; returns the Gradescope-style results dict (see autograder.results)."""
    start = time.monotonic()
    try:
        kind, source = read_submission(Path(path))
        rejected = None
    except SubmissionTooLarge as exc:  # the student's problem, not the grader's: zero, with the reason
        kind, source, rejected = "py", "", str(exc)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    made: dict[str, Any] = {}

    def job() -> bytes:  # runs while the sandbox starts (and imports torch)
        import torch

        made["plan"] = spec.make_plan(seed)
        blob = io.BytesIO()
        torch.save({"kind": kind, "source": source, "filename": Path(path).name, "plan": made["plan"],
                    "experiments": spec.experiments, "required_names": list(spec.required_names)}, blob)
        return blob.getvalue()

    # With namespaces the runner sees of the kit only these modules, dnnlpy and the venv, and the hidden
    # paths are covered on top of that; the weaker sandbox modes cannot hide files at all.
    box = run_sandboxed(module="autograder.runner", stdin=job, limits=limits, modules=runner_modules(spec),
                        hidden_paths=hidden_paths(spec, (Path(path).resolve().parent, Path(path).resolve(), *hide)))
    evidence, notes = decode_frames(box.evidence)
    run = _run_info(box, evidence, notes, spec, limits)
    if rejected:
        run["rejected"] = rejected
    for name in _INTERNAL:
        if name != "__load__":
            evidence.pop(name, None)
    tests, _ = run_suite(suite_dir=Path(spec.suite_dir), plan=made["plan"], evidence=evidence, run=run)
    return build_result(tests=tests, run=run, seed=seed, execution_time=time.monotonic() - start)
