"""Sealed evidence: records the runner did not send as measured earn nothing.

a37 (stub classes that raise, emit patched to send records computed from the plan) scored 37 before records
were sealed; the forged records below are a37's own, so these tests fail without the seal check.
"""

from __future__ import annotations

import runpy

import pytest
import torch

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.messages import render
from autograder.graders.weight_tying.runner import experiments
from autograder.graders.weight_tying.runner.evidence import RECORDS, GptGenerate, LmIdentity
from autograder.graders.weight_tying.runner.seal import SEAL, TAMPERED, digest, resealed, verdict
from autograder.protocol.frames import FrameWriter

LM_TESTS = (
    "test_tied_lm_head_is_the_embedding_parameter",
    "test_tied_lm_tie_survives_state_dict_reload",
    "test_tied_lm_tie_survives_to_float64",
    "test_tied_lm_counts_one_table",
    "test_tied_lm_shapes_and_values",
    "test_tied_lm_float64",
    "test_tied_lm_shared_gradient_is_sum_of_paths",
    "test_tied_lm_sgd_step_updates_table_once",
    "test_wrapper_positional_embedding_not_tied",
)


@pytest.fixture(scope="module")
def solution_evidence(plan, collect_evidence):
    return collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)


@pytest.fixture(scope="module")
def a37_records(spec, plan) -> dict:
    """The records a37 forges from the plan (its functions, run here without its emit patch)."""
    ns = runpy.run_path(str(spec.calibration_dir / "attacks" / "a37_forge_records_from_plan.py"))
    forged = ns["_lm_records"](plan["lm"])
    forged["gpt_identity"] = ns["_gpt_identity"](plan["gpt"])
    return forged


def _problem(name: str, record, record_class) -> str | None:
    """Why the record's seal does not hold, in English (the catalog's words), or None."""
    found = verdict(name, record, record_class)
    return None if found is None else render(found[0], "en", **found[1])


def test_records_forged_from_the_plan_earn_nothing(plan, judge, score, a37_records):
    results = judge(plan, a37_records)
    assert score(results) == 0, [t for t, o in results.items() if o.passed]
    for test in LM_TESTS:
        message = results[test].message()
        assert "evidence refused" in message and "no seal" in message and results[test].finding.owed, message


def test_a_forged_record_under_an_honest_seal_is_refused(spec, plan, judge, collect_evidence, a37_records):
    """A forger that keeps the seal the runner computed for its own (failing) record gains nothing."""
    honest = collect_evidence(spec.calibration_dir / "wrong" / "w02_clone_new_parameter.py", plan)
    evidence = dict(honest)
    for name, forged in a37_records.items():
        evidence[name] = {**forged, SEAL: honest[name][SEAL]}
    results = judge(plan, evidence, only=LM_TESTS)
    assert not any(o.passed for o in results.values())
    assert all("no longer matches its seal" in o.message() and o.finding.owed for o in results.values()), results


def test_a_record_sealed_while_the_frame_writer_was_patched_says_so(plan, solution_evidence, collect_evidence, judge):
    original = FrameWriter.__call__
    FrameWriter.__call__ = lambda self, name, record: original(self, name, record)  # as a19/a23/a37 do
    try:
        evidence = collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)
    finally:
        FrameWriter.__call__ = original
    seal = evidence["lm_identity"][SEAL]
    assert seal.startswith(TAMPERED) and "FrameWriter.__call__" in seal
    outcome = judge(plan, evidence, only=["test_tied_lm_head_is_the_embedding_parameter"])[
        "test_tied_lm_head_is_the_embedding_parameter"
    ]
    assert not outcome.passed and "runner was changed while your code ran" in outcome.message()
    # Put back as it was, the runner seals honestly again.
    assert collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)["lm_identity"][SEAL] == digest(
        "lm_identity", evidence["lm_identity"], LmIdentity
    )


def test_a_record_sealed_while_json_or_safetensors_was_patched_says_so(plan, collect_evidence):
    """json and safetensors write every frame: a submission that rewrites what they write (issue 31: json.dumps
    patched to empty a record's list of library decoders called) leaves every record it touched tampered."""
    import json

    import safetensors.torch

    for space, name in ((json, "dumps"), (safetensors.torch, "serialize")):
        original = getattr(space, name)
        setattr(space, name, lambda *args, original=original, **kwargs: original(*args, **kwargs))
        try:
            evidence = collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)
        finally:
            setattr(space, name, original)
        seal = evidence["gpt_generate"][SEAL]
        assert seal.startswith(TAMPERED) and f"{space.__name__}.{name}" in seal, seal


def test_the_seal_covers_each_named_case(solution_evidence):
    """gpt_generate's cases are named ({name: case}): each name and each case's declared values are sealed
    (issue 31: the seal hashed none of them, so a rewritten case kept it)."""
    rec = solution_evidence["gpt_generate"]
    assert _problem("gpt_generate", rec, GptGenerate) is None
    cases = rec["cases"]
    name = sorted(cases)[0]
    changed = {
        "a case's tokens": {**cases, name: {**cases[name], "first": cases[name]["first"] + 1}},
        "a case's decoders called": {**cases, name: {**cases[name], "delegated": ["dnnlpy.models.sampling.greedy"]}},
        "a case left out": {k: v for k, v in cases.items() if k != name},
        "a case renamed": {**{k: v for k, v in cases.items() if k != name}, "renamed": cases[name]},
    }
    for what, forged in changed.items():
        assert "no longer matches" in (_problem("gpt_generate", dict(rec, cases=forged), GptGenerate) or ""), what


def test_an_experiment_swapped_for_the_students_own_is_caught(plan, collect_evidence):
    name = "lm_identity"
    original = experiments.lm_identity
    experiments.lm_identity = lambda ns, plan: original(ns, plan)
    try:
        rec = experiments.EXPERIMENTS[name]({"TiedEmbeddingLM": _solution_class("TiedEmbeddingLM")}, plan)
    finally:
        experiments.lm_identity = original
    assert rec[SEAL].startswith(TAMPERED) and "lm_identity" in rec[SEAL]


def test_a_runner_function_whose_code_was_rewritten_is_caught(plan):
    """Rewriting a function's __code__ keeps the function object (and the name bound to it): the seal compares
    the code too. Here a copy of the very same code: nothing it does changes, and it is still caught."""
    from autograder.graders.weight_tying.runner import tools

    target = tools.plain  # every experiment's helper: turns what the student returned into a plain tensor
    original = target.__code__
    target.__code__ = original.replace()  # an equal copy: a new code object
    try:
        rec = experiments.EXPERIMENTS["lm_identity"]({"TiedEmbeddingLM": _solution_class("TiedEmbeddingLM")}, plan)
    finally:
        target.__code__ = original
    assert rec[SEAL].startswith(TAMPERED) and "tools.plain" in rec[SEAL], rec[SEAL]
    rec = experiments.EXPERIMENTS["lm_identity"]({"TiedEmbeddingLM": _solution_class("TiedEmbeddingLM")}, plan)
    assert not rec[SEAL].startswith(TAMPERED)  # put back, the runner seals honestly again


def _solution_class(name):
    return runpy.run_path(str(SOLUTIONS_DIR / "weight_tying.py"))[name]


def test_the_seal_covers_every_declared_value_and_nothing_else(solution_evidence):
    rec = solution_evidence["lm_identity"]
    assert _problem("lm_identity", rec, LmIdentity) is None
    moved = dict(rec, logits=rec["logits"] + 1e-6)
    assert "no longer matches" in _problem("lm_identity", moved, LmIdentity)
    flipped = dict(rec, head_is_embed=not rec["head_is_embed"])  # the runner's word is sealed too
    assert "no longer matches" in _problem("lm_identity", flipped, LmIdentity)
    # An undeclared key is neither judged nor sealed: the decoder's own refusals are tested by a30-a35.
    assert _problem("lm_identity", dict(rec, zz_extra=torch.ones(2)), LmIdentity) is None
    assert _problem("lm_identity", {"error": "ValueError: x"}, LmIdentity) is None  # errors earn nothing anyway


def test_every_experiment_record_is_sealed(solution_evidence):
    for record in RECORDS:
        rec = solution_evidence[record.NAME]
        assert _problem(record.NAME, rec, record) is None, record.NAME
        assert resealed(record.NAME, rec, record)[SEAL] == rec[SEAL]
