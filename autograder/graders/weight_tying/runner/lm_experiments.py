"""Untrusted: exercise 1's experiments, on the student's TiedEmbeddingLM (run by ``experiments.run``).

Each builds the class with the plan's sizes and seed, writes the judge's tables into it, and returns its record
(see ``evidence``); the judge checks every record against its own computation. Nothing is judged here. A
TiedEmbeddingLM is two modules: each experiment builds its own (sharing one, ``builds.py``, would cost as much
as building it).
"""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.runner import evidence as ev
from autograder.graders.weight_tying.runner.library_use import tied_by_library
from autograder.graders.weight_tying.runner.tools import (
    SGD,
    copy_into,
    fits,
    follow_table,
    guard,
    identity_facts,
    no_gradient,
    plain,
    reloaded,
    seeded,
    tie_facts,
)

__all__ = ["lm_identity", "lm_reload", "lm_float64", "lm_shapes", "lm_grad"]


def _lm(ns, p, seed_offset=0):
    cls = ns["TiedEmbeddingLM"]
    return seeded(p["seed"] + seed_offset, lambda: cls(vocab_size=p["vocab_size"], embed_dim=p["embed_dim"]))


def lm_identity(ns, plan):
    p = plan["lm"]
    model, library_tables = tied_by_library(lambda: _lm(ns, p))
    facts = identity_facts(model, model.token_embed.weight, model.lm_head.weight)
    facts[ev.LmIdentity.head_has_bias] = getattr(model.lm_head, "bias", None) is not None
    mine = (model.token_embed.weight, model.lm_head.weight)
    facts[ev.LmIdentity.library_tie] = any(t is w for t in library_tables for w in mine)
    return ev.LmIdentity.make(**facts, **follow_table(model, model, p["W1"], p["ids"]))


def lm_reload(ns, plan):
    p = plan["lm"]
    fresh = reloaded(lambda offset: _lm(ns, p, seed_offset=offset))
    rec = tie_facts(fresh.token_embed.weight, fresh.lm_head.weight)
    return ev.LmReload.make(**rec, **follow_table(fresh, fresh, p["W2"], p["ids"]))


def lm_float64(ns, plan):
    p = plan["lm"]
    model = _lm(ns, p).to(torch.float64)
    rec = tie_facts(model.token_embed.weight, model.lm_head.weight)
    also = lambda: {ev.LmFloat64.embed_weight: plain(model.token_embed.weight)}  # noqa: E731
    return ev.LmFloat64.make(**rec, **follow_table(model, model, p["W3"], p["ids"], also=also))


def lm_shapes(ns, plan):
    def one(c):
        build = lambda: ns["TiedEmbeddingLM"](vocab_size=c["vocab_size"], embed_dim=c["embed_dim"])  # noqa: E731
        model = seeded(c["seed"], build)
        copy_into(model.token_embed.weight, c["W"])
        return ev.LmShapeCase.make(
            embed_weight=plain(model.token_embed.weight),
            head_weight=plain(model.lm_head.weight),
            hidden=plain(model.token_embed(c["ids"])),
            logits=plain(model(c["ids"])),
        )

    return ev.LmShapes.make(cases=[guard(lambda c=c: one(c)) for c in plan["lm"]["shapes"]])


def lm_grad(ns, plan):
    p = plan["lm"]
    model = _lm(ns, p)
    copy_into(model.token_embed.weight, p["W1"])
    opt = SGD(model.parameters(), lr=p["lr"])  # built before any forward call
    opt.zero_grad()
    try:
        logits = model(p["ids"])
    except Exception as exc:  # nothing of the gradient can be measured: the shape flow tests judge forward
        return ev.LmGrad.make(**no_gradient(ev.LmGrad, exc))
    if not fits(logits, p["G"]):  # the judge's objective needs (B, T, V) logits: shape flow judges the rest
        return ev.LmGrad.make(**{**no_gradient(ev.LmGrad, None), ev.LmGrad.logits: plain(logits)})
    (logits * p["G"]).sum().backward()
    embed, head = model.token_embed.weight, model.lm_head.weight
    rec = {
        ev.LmGrad.logits: plain(logits),
        ev.LmGrad.forward_error: "",
        ev.LmGrad.grad_same_object: embed.grad is not None and head.grad is embed.grad,
        ev.LmGrad.embed_grad: None if embed.grad is None else plain(embed.grad),
        ev.LmGrad.head_grad: None if head.grad is None else plain(head.grad),
    }
    opt.step()
    rec[ev.LmGrad.table_after] = plain(model.token_embed.weight)
    rec[ev.LmGrad.head_after] = plain(model.lm_head.weight)
    return ev.LmGrad.make(**rec)
