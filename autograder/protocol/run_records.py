"""Trusted: read the run's own records (``__load__``, an experiment's ``error``) without trusting their shape.

These records are the runner's word: student code can forge them (a 3-item error entry, ``defined: 5``,
an error that is a list). They only shape messages, never points, so a malformed part is dropped with a
note and the rest is kept; nothing here raises, whatever the record holds.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from typing import Any

from autograder.protocol.frames import MAX_RUNNING, Load, Refused, Running

__all__ = [
    "LoadFacts",
    "read_load",
    "read_running",
    "read_refused",
    "error_text",
    "MAX_LOAD_ERRORS",
    "MAX_MESSAGE_CHARS",
    "MAX_REFUSED",
]

MAX_LOAD_ERRORS = 50  # cells that raised, kept (the runner sends at most 50)
MAX_MESSAGE_CHARS = 2000  # one message, as the runner cuts it
MAX_REFUSED = 32  # paths, and calls, of the ``__refused__`` record kept (the runner sends at most 32 of each)

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 200
_REPR.maxlevel = 3


@dataclass
class LoadFacts:
    errors: list[list] = field(default_factory=list)  # [[cell index, "ExcType: message"], ...]
    defined: list[str] = field(default_factory=list)  # required names the submission defines
    notes: list[str] = field(default_factory=list)  # what was malformed and dropped


def read_load(record: Any, required_names: list[str] | tuple[str, ...]) -> LoadFacts:
    """The ``__load__`` record's cells that raised and required names defined; malformed parts dropped."""
    facts = LoadFacts()
    if record is None:  # the run ended before it loaded the submission
        return facts
    if type(record) is not dict:
        facts.notes.append(f"the {Load.NAME} record is not a dict ({type(record).__name__}): ignored")
        return facts
    errors = record.get(Load.errors, [])
    if type(errors) is not list:
        facts.notes.append(f"{Load.NAME} errors is not a list ({type(errors).__name__}): ignored")
        errors = []
    bad = 0
    for entry in errors[:MAX_LOAD_ERRORS]:
        if type(entry) in (list, tuple) and len(entry) == 2 and type(entry[0]) is int and type(entry[1]) is str:
            facts.errors.append([entry[0], entry[1][:MAX_MESSAGE_CHARS]])
        else:
            bad += 1
    if bad:
        facts.notes.append(f"{bad} malformed {Load.NAME} error entries ignored (each must be [cell, message])")
    defined = record.get(Load.defined, [])
    if type(defined) is not list:
        facts.notes.append(f"{Load.NAME} defined is not a list ({type(defined).__name__}): ignored")
        defined = []
    facts.defined = [name for name in required_names if name in {n for n in defined if type(n) is str}]
    return facts


def error_text(value: Any, limit: int = MAX_MESSAGE_CHARS) -> str:
    """An experiment's ``error`` as bounded text: a str cut to `limit`, anything else a short repr."""
    if type(value) is str:
        return value[:limit]
    try:
        return _REPR.repr(value)[:limit]
    except Exception:  # a repr that fails is still not the grader's failure
        return f"<a {type(value).__name__}>"


def read_running(evidence: dict) -> dict:
    """Where the run was when it stopped: {"cell": i} or {"check": name} from the last ``__running__N`` record
    that agrees with the rest of the evidence (a cell only while loading had not finished, a check only after),
    {} when the runner did not say or ran out of reports (its last one may then be stale)."""
    numbered = []
    for name in evidence:
        suffix = name[len(Running.NAME) :] if name.startswith(Running.NAME) else ""
        if suffix.isdigit() and len(suffix) <= 3:
            numbered.append((int(suffix), name))
    if not numbered or len(numbered) >= MAX_RUNNING:
        return {}
    record = evidence[max(numbered)[1]]
    if type(record) is not dict:
        return {}
    cell, check = record.get(Running.cell), record.get(Running.check)
    loaded = Load.NAME in evidence
    if type(cell) is int and cell >= 0 and not loaded:
        return {"cell": cell}
    if type(check) is str and check and loaded:
        return {"check": check[:80]}
    return {}


def read_refused(record: Any) -> tuple[list[str], list[str]]:
    """The ``__refused__`` record's (files, calls): strs of at most 512 characters, at most ``MAX_REFUSED`` of
    each; anything else in it is dropped (the runner's word: only words for a TA come of it)."""
    if type(record) is not dict:
        return [], []
    found = []
    for key in (Refused.files, Refused.calls):
        values = record.get(key)
        values = values[:MAX_REFUSED] if type(values) is list else []
        found.append([v for v in values if type(v) is str and 0 < len(v) <= 512])
    return found[0], found[1]
