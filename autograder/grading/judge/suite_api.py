"""Trusted: what a hidden suite calls: fetch a record, check a value, fail with a finding (``Failed``).

A suite test is a plain function of ``(plan, evidence[, run])`` (``judge.suite`` calls it); it passes by
returning and fails by raising ``Failed`` (or ``assert ..., said``), whose message is a catalog id with its
parameters (``protocol.said``). The helpers here fail for it when the evidence is not what the runner owes:

- a record the runner owed that is missing (refused, sent twice, never sent), malformed, or without a value
  it always records: ``owed`` (it costs the test's points and puts the hand-in in *Needs a look*: erasing
  evidence never pays);
- a record that holds the student's exception, or a value of the wrong type, shape or dtype: a plain failure
  (what the student's code did), the student's text quoted as a verbatim parameter.

Only exact ``torch.Tensor`` objects are accepted: evidence arrives through ``autograder.protocol.decode``
(plain, bounded, contiguous CPU values), so anything else means the runner was tampered with. The helpers'
messages are the engine's (``autograder/grading/catalog.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import torch

from autograder.grading import catalog
from autograder.grading.findings import STARTER_CODE, Failed
from autograder.protocol.run_records import error_text
from autograder.protocol.said import Said, Text, verbatim
from autograder.protocol.schema import Record

__all__ = ["Failed", "need", "entry", "plain_tensor", "shape_dict", "describe_run", "say", "raised_where"]


def say(key: str, /, **params: object) -> Said:
    """The engine's message `key` (``autograder/grading/catalog.py``); KeyError naming an unknown id."""
    if key not in catalog.MESSAGES:
        raise KeyError(f"no message {key!r} in the engine's catalog: add it to autograder/grading/catalog.py")
    return Said(key, **params)


def describe_run(run: Mapping[str, Any] | None) -> Said:
    """Why a record the runner owed is not there, from how the run ended."""
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
    evidence: Mapping[str, Any],
    record: str | type[Record],
    run: Mapping[str, Any] | None = None,
    *,
    what: Text | str = "",
) -> dict:
    """The record of an experiment (its name, or its Record class); owed when missing or malformed, a plain
    failure when it reports the student's exception."""
    name = record if isinstance(record, str) else record.NAME
    what = what or say("judge.experiment_named", name=repr(name))
    if name not in evidence:
        raise Failed(say("judge.no_evidence_for", what=what, why=describe_run(run)), owed=True)
    return entry(evidence[name], what)


def entry(record: Any, what: Text | str) -> dict:
    """A nested record (one case of an experiment); owed when it is not a dict, a plain failure on an error
    report (the student's exception, quoted)."""
    if not isinstance(record, dict):
        raise Failed(say("judge.malformed_evidence_for", what=what, kind=type(record).__name__), owed=True)
    if "error" in record:
        stopped = _stopped_seconds(record)
        if stopped is not None:  # the runner's word, like any error: it fails the test and earns nothing
            raise Failed(say("judge.did_not_finish_within", what=what, n=f"{stopped:g}"))
        text, where, function = _located(error_text(record["error"], 1200))
        if text.split(":", 1)[0].strip() == "NotImplementedError":  # the starter code's own exception
            # which line still holds it, in the sentence: "X.loss 还没有实现：第 45 行仍是初始代码"
            line = _located(error_text(record["error"], 1200), starter=True)[1]
            raise Failed(say(STARTER_CODE, what=_unwritten(function) or what, at=line or verbatim("")))
        raised = say("judge.failed_your_code_raised", what=what, text=text)
        raise Failed(raised + where if where is not None else raised)
    return record


# The runner's error text ends with where the student's code raised ("  (at <notebook> [cell 24]:16 in loss)",
# runner/tools.error_text): the last frame in a cell is said in the student's language, counted from 1.
_AT = re.compile(
    r"^(?P<text>.*?)\s*\(at (?:[^;()]*; )*(?:<[^>\n]*>|[^\s()\[\];]+) \[cell (?P<cell>\d{1,5})\]:(?P<line>\d{1,7})"
    r"(?: in (?P<function>[\w<>.]{1,80}))?\)$",
    re.S,
)
_IN = re.compile(r"\(at [^()]*:\d{1,7} in (?P<function>[\w<>.]{1,80})\)$")
# ... or in a .py hand-in, whose frames name the file as the runner ran it (a bare name: never a library's path)
_AT_FILE = re.compile(
    r"^(?P<text>.*?)\s*\(at (?:[^;()]*; )*[^\s()\[\];:/\\]{1,200}\.py:(?P<line>\d{1,7})"
    r"(?: in (?P<function>[\w<>.]{1,80}))?\)$",
    re.S,
)


def raised_where(text: str) -> tuple[str, Text]:
    """What the student's code raised, as the runner recorded it ("ValueError: x  (at w.py:27 in f)"): its own
    text, and where it raised in the reader's words ("（第 27 行，在 f 中）"; nothing when the runner said nowhere
    the student can look), for a message that quotes the one and puts the other after it ({error}, {at})."""
    bare, where, _ = _located(str(text)[:1200])
    return bare, where if where is not None else verbatim("")


def _located(text: str, *, starter: bool = False) -> tuple[str, Said | None, str]:
    """The exception's own text and, when the runner said so, where in the notebook (or the .py file) it raised
    and the function it raised in (the runner names a method with its class: ``MiniGPTWithWeightTying.loss``;
    "" when none). `starter`: where, as the starter code's message says it (the line only: it names the method)."""
    match = _AT.match(text)
    in_file = _AT_FILE.match(text) if match is None else None
    if match is None and in_file is None:  # nowhere the student can look: only the function it raised in
        last = _IN.search(text)
        return text, None, last["function"] if last else ""
    found = match or in_file
    function = found["function"] or ""
    short = function.rpartition(".")[2]  # the class is the sentence's subject; the place names the method
    named = say("judge.raised_in", name=short) if short and short != "<module>" else verbatim("")
    bare = re.sub(r"^([A-Za-z_][\w.]*):$", r"\1", found["text"].strip())  # an exception without a message
    if in_file is not None:  # a .py file's lines are the file's own: the line is where to look
        key = "judge.starter_at_line" if starter else "judge.raised_at_line"
        return bare, say(key, line=found["line"], function=named), function
    place = Said("cell.place.bare", number=int(found["cell"]) + 1)
    key = "judge.starter_at" if starter else "judge.raised_at"
    return bare, say(key, place=place, line=found["line"], function=named), function


def _unwritten(function: str) -> str:
    """What a stub's NotImplementedError says is not written yet: the class for its constructor, else the
    method (``MiniGPTWithWeightTying.generate``); "" when the runner did not name a class's function."""
    owner, _, name = function.rpartition(".")
    if not owner or "<" in function:  # a plain function, a cell's own code or a nested one: the test's words
        return ""
    return owner if name == "__init__" else function


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
    what: Text | str = "",
    finite: bool = True,
) -> torch.Tensor:
    """record[key] as a plain torch.Tensor of the expected shape/dtype. A value the runner always records that
    is not there is owed; a None, a wrong type, shape or dtype, or a NaN is what the student's code gave."""
    label = what or key
    if not isinstance(record, Mapping) or key not in record:
        raise Failed(say("judge.no_value_recorded_for", label=label), owed=True)
    t = record[key]
    if t is None:
        raise Failed(say("judge.is_none", label=label))
    if type(t) is not torch.Tensor:
        raise Failed(say("judge.is_a_expected_a_plain_torch", label=label, kind=type(t).__name__))
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise Failed(say("judge.has_shape_expected", label=label, got=tuple(t.shape), want=tuple(shape)))
    if dtype is not None and t.dtype != dtype:
        raise Failed(say("judge.has_dtype_expected", label=label, got=t.dtype, want=dtype))
    if finite and t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise Failed(say("judge.contains_nan_or_inf", label=label))
    return t


def shape_dict(record: Mapping[str, Any], key: str, *, what: Text | str = "") -> dict[str, list[int]]:
    """record[key] as {str: [int, ...]} (state_dict shapes, which the runner always records); owed if not."""
    label = what or key
    value = record.get(key) if isinstance(record, Mapping) else None
    ok = isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, (list, tuple)) and all(type(n) is int for n in v) for k, v in value.items()
    )
    if not ok:
        raise Failed(say("judge.malformed_state_dict_shapes", label=label), owed=True)
    return {k: list(v) for k, v in value.items()}
