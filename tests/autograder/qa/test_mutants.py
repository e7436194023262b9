"""autograder.qa.mutants: one change per mutant, of every family, only where the scope says."""

from __future__ import annotations

from collections import Counter

from autograder.qa.mutants import Scope, generate

SOURCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids):
        x = self.embed(ids)
        return self.drop(self.norm(x)) @ self.embed.weight.T

    @torch.no_grad()
    def step(self, ids, n):
        for _ in range(n):
            last = self.forward(ids[:, -4:])[:, -1, :]
            ids = torch.cat([ids, last.argmax(dim=-1, keepdim=True)], dim=1)
        return ids


class Other(nn.Module):
    def forward(self, x):
        return x + 1
"""


def test_every_family_appears_and_each_mutant_is_one_compilable_change():
    mutants = generate(SOURCE, "toy")
    families = Counter(m.operator for m in mutants)
    for family in (
        "operator",
        "constant",
        "slice",
        "argument",
        "keyword",
        "layer",
        "dtype",
        "device",
        "detach",
        "clone",
    ):
        assert families[family] > 0, family
    assert len({m.code for m in mutants}) == len(mutants)  # no duplicates
    for m in mutants:
        compile(m.code, m.id, "exec")
        assert m.before != m.after, m.id
        assert m.function in ("Model.__init__", "Model.forward", "Model.step", "Other.forward"), m.id


def test_the_layer_keywords_students_write_are_among_the_mutants():
    afters = {m.after for m in generate(SOURCE, "toy")}
    assert "self.embed = nn.Embedding(vocab, dim, padding_idx=0)" in afters
    assert "self.embed = nn.Embedding(vocab, dim, scale_grad_by_freq=True)" in afters
    assert "self.norm = nn.LayerNorm(dim, eps=1e-06)" in afters
    assert "self.drop = nn.Dropout(p=0.5)" in afters
    assert "x = self.embed(ids).detach()" in afters
    assert "ids = torch.cat([last.argmax(dim=-1, keepdim=True), ids], dim=1)" in afters
    assert "last = self.forward(ids[:, -4 + 1:])[:, -1, :]" in afters


def test_scope_selects_functions_and_skips_statements():
    only = generate(SOURCE, "toy", Scope(functions=("Model.forward",)))
    assert only and {m.function for m in only} == {"Model.forward"}
    skipped = generate(SOURCE, "toy", Scope(functions=("Model.forward",), skip={"x = self.embed(ids)": "why"}))
    assert skipped and all(m.before != "x = self.embed(ids)" for m in skipped)
    assert len(skipped) < len(only)


def test_no_tensor_method_is_glued_onto_a_module_or_a_size():
    afters = [m.after for m in generate(SOURCE, "toy")]
    assert not any("nn.Embedding(vocab, dim).detach()" in a or ".shape.clone()" in a for a in afters)
