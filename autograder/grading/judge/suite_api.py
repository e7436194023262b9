"""Trusted: helpers for hidden suites: fetch a record, check a value, fail with a message a student can read.

Every helper raises `EvidenceError` (an AssertionError, so pytest reports it as a plain failed test) when
the evidence a test needs is missing, reports the student's exception, or has the wrong type, shape or
dtype. Only exact `torch.Tensor` objects are accepted: evidence arrives through
`autograder.protocol.decode` (plain, bounded, contiguous CPU values), so anything else means the runner was
tampered with.

A judgement has a language (``language()``: "en" unless the runner of the suite set another with
``speaking``): the engine runs every test in English (the marking scheme reads English), then runs each failed
test again in the submission's language for the message the student reads. The helpers' own messages, and the
suite runners' last words ("not run", "failed"), are the engine's: rendered from its catalog
(``autograder/grading/catalog.py``) in that language, whatever the grader.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

from autograder.grading import catalog
from autograder.protocol.run_records import error_text
from autograder.protocol.schema import Record

__all__ = [
    "EvidenceError",
    "need",
    "entry",
    "plain_tensor",
    "tensor_dict",
    "shape_dict",
    "describe_run",
    "language",
    "speaking",
    "said_again_in",
    "say",
]


_STATE: dict[str, Any] = {"language": "en"}


def language() -> str:
    """The language of the judgement in progress: "en" unless the suite's runner set another (``speaking``)."""
    return _STATE["language"]


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Within the block, the judgement's messages are rendered in `lang` (the suite's runner sets it)."""
    previous = _STATE["language"]
    _STATE["language"] = lang
    try:
        yield
    finally:
        _STATE["language"] = previous


def said_again_in(lang: str, passed: bool, call: Callable[[], tuple[bool, str]]) -> str:
    """A failed test's message in `lang`: ``call()`` runs the test once more with `lang` set and gives (passed,
    message). "" for English, a passed test, or a test that passes the second time (its English stands)."""
    if passed or lang == "en":
        return ""
    with speaking(lang):
        again, message = call()
    return "" if again else message


def say(key: str, /, **params: object) -> str:
    """The engine's message `key` (``autograder/grading/catalog.py``) in the judgement's language."""
    return catalog.render(key, language(), **params)


class EvidenceError(AssertionError):
    """The evidence a test needs is missing or malformed; the message is shown to the student."""


def describe_run(run: Mapping[str, Any] | None) -> str:
    """A short phrase about how the submission's run ended, for 'missing evidence' messages."""
    if not run:
        return say("judge.the_submission_stopped_before_it_ran")
    status = run.get("status", "ok")
    if status == "ok":
        return say("judge.the_experiment_did_not_report_see")
    key = {
        "timeout": "judge.the_submission_was_stopped_at_the",
        "memory": "judge.the_submission_ran_out_of_memory",
        "crashed": "judge.the_submission_crashed_before_it_ran",
        "exited": "judge.the_submission_exited_early_sys_exit",
    }.get(status)
    return say(key) if key else say("judge.run_ended_with_status", status=repr(status))


def need(
    evidence: Mapping[str, Any], record: str | type[Record], run: Mapping[str, Any] | None = None, *, what: str = ""
) -> dict:
    """The record of an experiment (its name, or its Record class); fails clearly if missing, malformed or
    an error report."""
    name = record if isinstance(record, str) else record.NAME
    what = what or say("judge.experiment_named", name=repr(name))
    if name not in evidence:
        raise EvidenceError(say("judge.no_evidence_for", what=what, why=_refusal(name, run) or describe_run(run)))
    return entry(evidence[name], what)


def _refusal(name: str, run: Mapping[str, Any] | None) -> str:
    """The decoder's note when it refused this record (tampered, out of bounds, sent twice), or ""."""
    notes = run.get("notes") if isinstance(run, Mapping) else None
    for note in notes if isinstance(notes, list) else []:
        if isinstance(note, str) and f"{name[:60]!r}" in note and ("refused" in note or "more than once" in note):
            return say("judge.grader_refused_record", note=note[:300])
    return ""


def entry(record: Any, what: str) -> dict:
    """A nested record (one case of an experiment); fails on an error report or a non-dict."""
    if not isinstance(record, dict):
        raise EvidenceError(say("judge.malformed_evidence_for", what=what, kind=type(record).__name__))
    if "error" in record:
        stopped = _stopped_seconds(record)
        if stopped is not None:  # the runner's word, like any error: it fails the test and earns nothing
            raise EvidenceError(say("judge.did_not_finish_within", what=what, n=f"{stopped:g}"))
        # The student's text never holds the judge's hint marker ("\n-> "): autograder.grading.marking reads only the
        # judge's words after "your code raised".
        text = error_text(record["error"], 1200).replace("\n->", "\n=>")
        raise EvidenceError(say("judge.failed_your_code_raised", what=what, text=text))
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
        raise EvidenceError(say("judge.no_value_recorded_for", label=label))
    t = record[key]
    if t is None:
        raise EvidenceError(say("judge.is_none", label=label))
    if type(t) is not torch.Tensor:
        raise EvidenceError(say("judge.is_a_expected_a_plain_torch", label=label, kind=type(t).__name__))
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise EvidenceError(say("judge.has_shape_expected", label=label, got=tuple(t.shape), want=tuple(shape)))
    if dtype is not None and t.dtype != dtype:
        raise EvidenceError(say("judge.has_dtype_expected", label=label, got=t.dtype, want=dtype))
    if finite and t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise EvidenceError(say("judge.contains_nan_or_inf", label=label))
    return t


def tensor_dict(record: Mapping[str, Any], key: str, *, what: str = "") -> dict[str, torch.Tensor]:
    """record[key] as {str: plain floating-point torch.Tensor} (a state_dict), or a clear failure."""
    label = what or key
    value = record.get(key) if isinstance(record, Mapping) else None
    if not isinstance(value, dict) or not value:
        raise EvidenceError(say("judge.no_state_dict_recorded_for", label=label))
    for name, t in value.items():
        if not isinstance(name, str) or type(t) is not torch.Tensor:
            raise EvidenceError(say("judge.malformed_state_dict_entry", label=label, name=repr(str(name)[:80])))
        if not t.is_floating_point() or not bool(torch.isfinite(t).all()):
            raise EvidenceError(say("judge.state_dict_entry_not_finite", name=repr(name[:80]), label=label))
    return value


def shape_dict(record: Mapping[str, Any], key: str, *, what: str = "") -> dict[str, list[int]]:
    """record[key] as {str: [int, ...]} (state_dict shapes), or a clear failure."""
    label = what or key
    value = record.get(key) if isinstance(record, Mapping) else None
    ok = isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, (list, tuple)) and all(type(n) is int for n in v) for k, v in value.items()
    )
    if not ok:
        raise EvidenceError(say("judge.malformed_state_dict_shapes", label=label))
    return {k: list(v) for k, v in value.items()}
