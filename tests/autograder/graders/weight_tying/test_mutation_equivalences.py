"""weight_tying's mutation sources and equivalence proofs (judge/mutation.py), and a sample of the run.

The full run (`python -m autograder mutate --assignment weight_tying --seeds 25`, its summary in the
calibration README) takes long; here a sample keeps the classes honest in every test run.
"""

from __future__ import annotations

import pytest

from autograder.graders.weight_tying.judge.mutation import EQUIVALENCES
from autograder.qa.mutation_score import _classify, mutants_of
from autograder.qa.sweep import seeds_from


@pytest.fixture(scope="module")
def mutants():
    return {m.id: m for m in mutants_of("weight_tying")}


def _by_after(mutants, text: str):
    found = [m for m in mutants.values() if m.after.endswith(text) or text in m.after]
    assert found, f"no mutant reads {text!r}"
    return found[0]


def test_every_family_is_mutated_in_every_source(mutants):
    sources = {m.source for m in mutants.values()}
    assert sources == {"weight_tying", "c13_minigpt_by_parts", "c04_einsum_manual_loss"}
    families = {m.operator for m in mutants.values()}
    assert families >= {"operator", "constant", "slice", "argument", "keyword", "layer", "dtype", "detach", "clone"}
    assert len(mutants) > 150


def test_every_equivalence_claims_a_mutant_and_none_claims_a_catalogue_mistake(mutants):
    for eq in EQUIVALENCES:
        assert any(eq.applies(m) for m in mutants.values()), f"{eq.name} claims no mutant: a dead proof"
    for text in ("padding_idx=0)", "scale_grad_by_freq=True)", "max_norm=1.0)", "eps=1e-06)", "weight_tying=False)"):
        m = _by_after(mutants, text)
        assert not any(eq.applies(m) for eq in EQUIVALENCES), (text, m.id)
    for text in ("loss(input_ids, targets).detach()", "logits = self(inputs).detach()"):
        m = _by_after(mutants, text)
        assert not any(eq.applies(m) for eq in EQUIVALENCES), (text, m.id)


# The catalogue's own mistakes (one keyword argument of a layer's constructor), the seed-dependent ones of
# the past, and a few equivalents: each graded on plans that differ in everything random.
CAUGHT = (
    "padding_idx=0)",
    "scale_grad_by_freq=True)",
    "max_norm=1.0)",
    "m.final_norm = nn.LayerNorm(embed_dim, eps=1e-06)",
    "m.final_norm = nn.LayerNorm(embed_dim, eps=0.001)",
    "return self.minigpt.loss(input_ids, targets).detach()",
    "ignore_index=0)",
    "if targets.shape == (T - 1, B):",
)
EQUIVALENT = ("dnn.Linear(vocab_size, embed_dim, bias=False)", "ids = input_ids.clone()", "argmax(dim=1, keepdim=True)")


@pytest.mark.parametrize("seed", [2, 3])
def test_a_sample_is_caught_or_shown_equivalent_on_every_plan(seed, mutants, spec, grader):
    plan = spec.make_plan(seed)
    for text in CAUGHT:
        m = _by_after(mutants, text)
        score, results = grader.grade(m.code, plan, round_trip=False)
        assert score < 100, (m.id, m.after)
    for text in EQUIVALENT:
        m = _by_after(mutants, text)
        score, results = grader.grade(m.code, plan, round_trip=False)
        assert score == 100, (m.id, {t: msg[:200] for t, (ok, msg) in results.items() if not ok})


@pytest.mark.sweep
def test_every_sixth_mutant_on_five_seeds_is_caught_everywhere_or_shown_equivalent(mutants, spec, grader):
    sample = list(mutants.values())[::6]
    graded = {m.id: {} for m in sample}
    for seed in seeds_from(5):
        plan = spec.make_plan(seed)
        for m in sample:
            graded[m.id][seed] = (grader.grade(m.code, plan, round_trip=False)[0], "")
    results = [_classify(m, graded[m.id], 100.0, EQUIVALENCES) for m in sample]
    bad = [
        f"{r.mutant.id} {r.kind} {r.scores}: {r.mutant.after}"
        for r in results
        if r.kind not in ("caught", "equivalent")
    ]
    assert not bad, "\n".join(bad)
