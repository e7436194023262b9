"""Trusted: fetch an experiment record for a hidden-suite test, and refuse it unless its seal holds.

`need` is `autograder.grading.judge.suite_api.need` plus the seal check of ``runner/seal.py``: a record that comes
without its seal, with a seal saying the runner was changed while the student's code ran, or whose content
no longer matches its seal fails the test with that reason, before any of its values is read: evidence the
runner owed and did not send as measured (it costs the test's points, and puts the hand-in in *Needs a look*).

A judgement checks each record's seal once: the suite asks for a record in several tests, and the digest is
most of what asking costs. The verdict is kept for the judgement only (``judge.memo``), keyed on the record
object itself (held by the entry, so its id cannot be reused while the entry lives). It holds the reason's
catalog id, never words (``words.say``).

`entry` (a case of a record) and `need` say where the notebook sets a part the hand-in left as the starter code:
the shared engine says the part is not written, and this grader knows which exercise asks for it (``SECTION``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autograder.graders.weight_tying.judge.words import say, see
from autograder.graders.weight_tying.runner import evidence as ev
from autograder.graders.weight_tying.runner.seal import verdict
from autograder.grading.judge import suite_api as base
from autograder.grading.judge.memo import Memo
from autograder.grading.result import SYNTAX_ERRORS
from autograder.protocol.schema import Record

__all__ = ["need", "entry", "SECTION"]

_RECORDS = {r.NAME: r for r in ev.RECORDS}
# Verdicts of this judgement: one per record checked. An entry holds the evidence's own record (bounded in
# decoding, and held by the evidence for the judgement anyway) and a verdict: it keeps nothing alive but its
# slot, so it is not walked to be measured (that walk cost ~15 % of judging a submission); 1 MiB of 256-byte
# slots holds a verdict for every frame the judge reads (server.MAX_FRAMES).
_VERDICTS = Memo("judgement", 1 << 20, measure=lambda entry: 0)


def need(
    evidence: Mapping[str, Any], record: str | type[Record], run: Mapping[str, Any] | None = None, *, what=""
) -> dict:
    """The record (see ``autograder.grading.judge.suite_api.need``), only if its seal holds."""
    name = record if isinstance(record, str) else record.NAME
    missing = _undefined(name, run)
    if missing is not None and isinstance(evidence.get(name), dict) and "error" in evidence[name]:
        # the runner could not call a class the notebook never defined: said as the run's fact, not as an
        # exception of the student's (a syntax error the run names: as its consequence)
        key = "judge.class_not_defined_syntax" if _syntax_error(run) else "judge.class_not_defined"
        raise base.Failed(say(key, name=missing))  # no subject: every test of the class says the same
    rec = _with_section(base.need, evidence, record, run, what=what)
    _, why = _VERDICTS.get((name, id(rec)), lambda: (rec, verdict(name, rec, _RECORDS[name])))
    if why is not None:
        key, params = why
        raise base.Failed(say("judge.evidence_refused", what=what or name, why=say(key, **params)), owed=True)
    return rec


# the section whose exercise asks for each class (its methods with it): where a starter-code failure sends the student
SECTION = {"TiedEmbeddingLM": 6, "MiniGPTWithWeightTying": 9}


def entry(record: Any, what) -> dict:
    """A case of a record (see ``autograder.grading.judge.suite_api.entry``)."""
    return _with_section(base.entry, record, what)


def _with_section(fetch, *args, **kwargs) -> dict:
    """`fetch`'s record; its starter-code failure (``Finding.starter``) with the section of the unwritten part's
    class after it (nothing added for a part no exercise names)."""
    try:
        return fetch(*args, **kwargs)
    except base.Failed as failed:
        section = SECTION.get(failed.finding.unwritten.partition(".")[0]) if failed.finding.starter else None
        if section is None:
            raise
        raise base.Failed(failed.finding.said + see(section)) from None


# which class each experiment calls (runner/experiments._NEEDS: an experiment's name starts with its key)
_NEEDS = {"lm": "TiedEmbeddingLM", "gpt": "MiniGPTWithWeightTying"}


def _undefined(name: str, run: Mapping[str, Any] | None) -> str | None:
    """The class experiment `name` calls when the run says the submission did not define it, else None."""
    cls = _NEEDS.get(name.split("_")[0])
    if cls is None or not isinstance(run, Mapping):
        return None
    defined, required = run.get("defined"), run.get("required_names")
    if isinstance(defined, list) and isinstance(required, list) and cls in required and cls not in defined:
        return cls
    return None


def _syntax_error(run: Mapping[str, Any] | None) -> bool:
    """Whether the run says a cell (a .py file's part) did not compile: its load errors, as the pages read them."""
    errors = run.get("load_errors") if isinstance(run, Mapping) else None
    return isinstance(errors, list) and any(
        isinstance(e, list) and len(e) == 2 and str(e[1]).startswith(SYNTAX_ERRORS) for e in errors
    )
