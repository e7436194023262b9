"""Trusted: helpers for hidden suites: fetch a record, check a value, fail with a message a student can read.

Every helper raises `EvidenceError` (an AssertionError, so pytest reports it as a plain failed test) when
the evidence a test needs is missing, reports the student's exception, or has the wrong type, shape or
dtype. Only exact `torch.Tensor` objects are accepted: evidence arrives through
`autograder.protocol.decode` (plain, bounded, contiguous CPU values), so anything else means the runner was
tampered with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from autograder.protocol.run_records import error_text
from autograder.protocol.schema import Record

__all__ = ["EvidenceError", "need", "entry", "plain_tensor", "tensor_dict", "shape_dict", "describe_run"]


class EvidenceError(AssertionError):
    """The evidence a test needs is missing or malformed; the message is shown to the student."""


def describe_run(run: Mapping[str, Any] | None) -> str:
    """A short phrase about how the submission's run ended, for 'missing evidence' messages."""
    if not run:
        return "the submission stopped before it ran"
    status = run.get("status", "ok")
    if status == "ok":
        return "the experiment did not report (see the run output)"
    return {
        "timeout": "the submission was stopped at the time limit before it ran",
        "memory": "the submission ran out of memory before it ran",
        "crashed": "the submission crashed before it ran",
        "exited": "the submission exited early (sys.exit / os._exit) before it ran",
    }.get(status, f"the run ended with status {status!r} before it ran")


def need(
    evidence: Mapping[str, Any], record: str | type[Record], run: Mapping[str, Any] | None = None, *, what: str = ""
) -> dict:
    """The record of an experiment (its name, or its Record class); fails clearly if missing, malformed or
    an error report."""
    name = record if isinstance(record, str) else record.NAME
    what = what or f"experiment {name!r}"
    if name not in evidence:
        raise EvidenceError(f"no evidence for {what}: {_refusal(name, run) or describe_run(run)}")
    return entry(evidence[name], what)


def _refusal(name: str, run: Mapping[str, Any] | None) -> str:
    """The decoder's note when it refused this record (tampered, out of bounds, sent twice), or ""."""
    notes = run.get("notes") if isinstance(run, Mapping) else None
    for note in notes if isinstance(notes, list) else []:
        if isinstance(note, str) and f"{name[:60]!r}" in note and ("refused" in note or "more than once" in note):
            return "the grader refused what the run sent for it (" + note[:300] + ")"
    return ""


def entry(record: Any, what: str) -> dict:
    """A nested record (one case of an experiment); fails on an error report or a non-dict."""
    if not isinstance(record, dict):
        raise EvidenceError(f"malformed evidence for {what} (got {type(record).__name__}, expected a dict)")
    if "error" in record:
        stopped = _stopped_seconds(record)
        if stopped is not None:  # the runner's word, like any error: it fails the test and earns nothing
            raise EvidenceError(
                f"{what} did not finish within {stopped:g} s, its share of the time limit, and was stopped: an "
                "endless loop, or a very slow one? The other checks still ran"
            )
        # The student's text never holds the judge's hint marker ("\n-> "): autograder.grading.marking reads only the
        # judge's words after "your code raised".
        text = error_text(record["error"], 1200).replace("\n->", "\n=>")
        raise EvidenceError(f"{what} failed: your code raised {text}")
    return record


def _stopped_seconds(record: dict) -> float | None:
    """The budget a stopped experiment had (``autograder.runner.budget``), bounded and rounded; None when
    the record does not say it was stopped."""
    value = record.get("stopped")
    if type(value) not in (int, float) or not 0 <= value < 1e6:
        return None
    return round(float(value), 1)


def plain_tensor(
    record: Mapping[str, Any],
    key: str,
    *,
    shape: tuple[int, ...] | None = None,
    dtype: torch.dtype | None = None,
    what: str = "",
    finite: bool = True,
) -> torch.Tensor:
    """record[key] as a plain torch.Tensor of the expected shape/dtype, or a clear failure."""
    label = what or key
    if not isinstance(record, Mapping) or key not in record:
        raise EvidenceError(f"no value recorded for {label}")
    t = record[key]
    if t is None:
        raise EvidenceError(f"{label} is None")
    if type(t) is not torch.Tensor:
        raise EvidenceError(f"{label} is a {type(t).__name__}, expected a plain torch.Tensor")
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise EvidenceError(f"{label} has shape {tuple(t.shape)}, expected {tuple(shape)}")
    if dtype is not None and t.dtype != dtype:
        raise EvidenceError(f"{label} has dtype {t.dtype}, expected {dtype}")
    if finite and t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise EvidenceError(f"{label} contains NaN or inf")
    return t


def tensor_dict(record: Mapping[str, Any], key: str, *, what: str = "") -> dict[str, torch.Tensor]:
    """record[key] as {str: plain floating-point torch.Tensor} (a state_dict), or a clear failure."""
    label = what or key
    value = record.get(key) if isinstance(record, Mapping) else None
    if not isinstance(value, dict) or not value:
        raise EvidenceError(f"no state_dict recorded for {label}")
    for name, t in value.items():
        if not isinstance(name, str) or type(t) is not torch.Tensor:
            raise EvidenceError(
                f"malformed state_dict for {label}: entry {str(name)[:80]!r} is not a named plain tensor"
            )
        if not t.is_floating_point() or not bool(torch.isfinite(t).all()):
            raise EvidenceError(f"state_dict entry {name[:80]!r} of {label} is not a finite floating-point tensor")
    return value


def shape_dict(record: Mapping[str, Any], key: str, *, what: str = "") -> dict[str, list[int]]:
    """record[key] as {str: [int, ...]} (state_dict shapes), or a clear failure."""
    label = what or key
    value = record.get(key) if isinstance(record, Mapping) else None
    ok = isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, (list, tuple)) and all(type(n) is int for n in v) for k, v in value.items()
    )
    if not ok:
        raise EvidenceError(f"malformed state_dict shapes for {label}")
    return {k: list(v) for k, v in value.items()}
