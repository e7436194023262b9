"""Untrusted: the weight_tying experiments, run in the sandbox next to the student's classes.

``run(namespace, plan, emit)`` builds the student's classes with the plan's sizes, pokes them, and emits
one record per experiment (see ``evidence``): plain torch.Tensor (never a subclass), int, float, bool, str,
None, lists and dicts. Nothing is judged here; every record is checked by the suite against the judge's own
computation. Each experiment catches its own exceptions and emits {"error": ...}, so a bug in one area does
not hide the others.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import torch

from autograder.graders.weight_tying.runner import builds as builds_module
from autograder.graders.weight_tying.runner import evidence as ev
from autograder.graders.weight_tying.runner import library_use, lm_experiments
from autograder.graders.weight_tying.runner import seal as sealing
from autograder.graders.weight_tying.runner import tools as tools_module
from autograder.graders.weight_tying.runner.library_use import withheld_reached
from autograder.graders.weight_tying.runner.lm_experiments import lm_float64, lm_grad, lm_identity, lm_reload, lm_shapes
from autograder.graders.weight_tying.runner.tools import (
    SGD,
    copy_into,
    dropout_settings,
    fits,
    flag_off,
    follow_table,
    forward_record,
    guard,
    identity_facts,
    load_state_in_place,
    no_gradient,
    plain,
    reloaded,
    seed_cpu,
    seeded,
    tie_facts,
    unique_parameters,
)
from autograder.graders.weight_tying.runner.values import judge_table, load_judge_values, state_shapes
from autograder.runner.budget import within

__all__ = ["run", "EXPERIMENTS"]


# ---------------------------------------------------------------- MiniGPTWithWeightTying
# Every model comes from the run's builds (``builds``): a configuration and seed built once, each later caller
# handed it back as it was built. What an experiment leaves in a shared model is put back before the next one
# measures: the judge's values, a table written in place and an SGD step (values, gradients: copied back), eval,
# train or dropout mode (training flags), torch's generator; a tie made in forward, a submodule swapped (the
# generation's rebuilt MiniGPT) or a ``.data`` replaced is a model changed for good, built again. A caller that
# casts it owns it (``own``): float64's cast is never undone.
# Every experiment below loads the judge's weights into model.minigpt (load_judge_values) before it measures
# anything: the judge recomputes each value from those weights, never from what the submission reports.


def _gpt(ns, cfg, seed, builds=None):
    return (builds or builds_module.current()).model(ns["MiniGPTWithWeightTying"], cfg, seed)


def _table(seed, owner, dtype=torch.float32):
    """The judge's token table for owner.token_embed's shape (values from the plan seed alone)."""
    return judge_table(seed, owner.token_embed.weight.shape).to(dtype)


def gpt_identity(ns, plan):
    p = plan["gpt"]
    model = _gpt(ns, p["cfg"], p["seed"])
    g = model.minigpt
    facts = identity_facts(model, g.token_embed.weight, g.lm_head.weight)
    facts[ev.GptIdentity.head_is_pos] = g.lm_head.weight is g.pos_embed.weight
    facts[ev.GptIdentity.flag_off] = flag_off(g)
    facts[ev.GptIdentity.state_shapes] = load_judge_values(g, p["values"]["identity"])
    facts[ev.GptIdentity.pos_before] = plain(g.pos_embed.weight)
    also = lambda: {ev.GptIdentity.pos_after: plain(g.pos_embed.weight)}  # noqa: E731
    table = _table(p["tables"]["identity"], g)
    facts.update(follow_table(model, g, table, p["ids"], eval_mode=True, also=also))
    return ev.GptIdentity.make(**facts)


def gpt_reload(ns, plan):
    p = plan["gpt"]
    builds = builds_module.current()

    def build(offset):
        model = _gpt(ns, p["cfg"], p["seed"] + offset, builds)
        if offset == 0:  # the saved model holds the judge's weights; the fresh one gets them by loading
            load_judge_values(model.minigpt, p["values"]["reload"])
        return model

    fresh = reloaded(build)
    g = fresh.minigpt
    rec = {**tie_facts(g.token_embed.weight, g.lm_head.weight), ev.GptReload.flag_off: flag_off(g)}
    rec.update(follow_table(fresh, g, _table(p["tables"]["reload"], g), p["ids"], eval_mode=True))
    return ev.GptReload.make(**rec, state_shapes=state_shapes(g))


def gpt_float64(ns, plan):
    p = plan["gpt"]
    # reload's second copy (seed + 1), cast for good: the judge's values are loaded before the cast
    model = builds_module.current().own(ns["MiniGPTWithWeightTying"], p["cfg"], p["seed"] + 1)
    shapes = load_judge_values(model.minigpt, p["values"]["float64"])
    model = model.to(torch.float64)
    g = model.minigpt
    rec = {**tie_facts(g.token_embed.weight, g.lm_head.weight), ev.GptFloat64.flag_off: flag_off(g)}
    table = _table(p["tables"]["float64"], g, torch.float64)
    rec.update(follow_table(model, g, table, p["ids"], eval_mode=True))
    return ev.GptFloat64.make(**rec, state_shapes=shapes)


def gpt_shapes(ns, plan):
    builds = builds_module.current()
    # Cases of one build and one draw of values are inputs of one model: its values are loaded for the first of
    # them only. An eval-mode forward of a model that computes as a MiniGPT changes nothing a later case reads;
    # one that rewrites its weights in forward gets values the judge does not expect, and fails that case too.
    held: dict[str, Any] = {}

    def one(c):
        key = (c["cfg"], c["seed"], c["values"], c.get("gain", 1.0))
        if held.get("key") != key:
            held.clear()  # a build or a load that raises is tried again by the next case, as a new build was
            model = _gpt(ns, c["cfg"], c["seed"], builds)
            shapes = load_judge_values(model.minigpt, c["values"], gain=c.get("gain", 1.0))
            model.eval()
            held.update(key=key, model=model, shapes=shapes)
        model = held["model"]
        return ev.ForwardCase.make(
            hidden=plain(model.minigpt.token_embed(c["ids"])),
            logits=plain(model(c["ids"])),
            state_shapes=held["shapes"],
        )

    return ev.GptShapes.make(cases=[guard(lambda c=c: one(c)) for c in plan["gpt"]["shapes"]])


def gpt_heads(ns, plan):
    builds = builds_module.current()

    def one(c):
        model = _gpt(ns, c["cfg"], c["seed"], builds)
        shapes = load_judge_values(model.minigpt, c["values"])
        model.eval()
        return ev.HeadsCase.make(logits=plain(model.minigpt(c["ids"])), state_shapes=shapes)

    return ev.GptHeads.make(cases=[guard(lambda c=c: one(c)) for c in plan["gpt"]["heads"]])


def gpt_counts(ns, plan):
    builds = builds_module.current()

    def one(c):
        model = _gpt(ns, c["cfg"], c["seed"], builds)
        count = int(sum(prm.numel() for prm in unique_parameters(model)))  # right after construction
        g = model.minigpt
        shapes = load_judge_values(g, c["values"])
        model.eval()
        logits = plain(g(c["ids"]))  # the inner MiniGPT: the wrapper's forward is judged by shape flow
        copy_into(g.token_embed.weight, _table(c["table"], g))
        return ev.CountCase.make(
            unique_numel=count,
            state_shapes=shapes,
            logits=logits,
            logits_after_write=plain(g(c["ids"])),
            dropout_settings=dropout_settings(g),
        )

    return ev.GptCounts.make(cases=[guard(lambda c=c: one(c)) for c in plan["gpt"]["counts"]])


def gpt_dropout(ns, plan):
    p = plan["gpt"]["dropout"]
    builds = builds_module.current()

    def one(cfg):
        model = _gpt(ns, cfg, p["seed"], builds)
        g = model.minigpt  # the MiniGPT as built: dropout honoured is a fact of construction, not of forward
        shapes = load_judge_values(g, p["values"])
        model.train()
        seed_cpu(p["seed"] + 7)
        first = plain(g(p["ids"]))
        second = plain(g(p["ids"]))
        model.eval()
        return ev.DropoutRun.make(
            train_1=first,
            train_2=second,
            eval=plain(g(p["ids"])),
            state_shapes=shapes,
            dropout_settings=dropout_settings(model.minigpt),
        )

    return ev.GptDropout.make(
        **{key: guard(lambda key=key: one(p[key])) for key in (ev.GptDropout.cfg, ev.GptDropout.cfg0)}
    )


def gpt_grad(ns, plan):
    p = plan["gpt"]
    model = _gpt(ns, p["cfg"], p["seed"])
    g = model.minigpt
    rec: dict[str, Any] = {ev.GptGrad.state_shapes: load_judge_values(g, p["values"]["grad"])}
    model.eval()  # the objective is the judge's; dropout is judged by its own test
    opt = SGD(model.parameters(), lr=p["lr"])  # built before any forward call
    opt.zero_grad()
    try:
        logits = model(p["ids"])
    except Exception as exc:  # nothing of the gradient can be measured: the shape flow tests judge forward
        return ev.GptGrad.make(**rec, **no_gradient(ev.GptGrad, exc))
    if not fits(logits, p["G"]):  # the judge's objective needs (B, T, V) logits: shape flow judges the rest
        return ev.GptGrad.make(**rec, **{**no_gradient(ev.GptGrad, None), ev.GptGrad.logits: plain(logits)})
    rec[ev.GptGrad.logits] = plain(logits)
    rec[ev.GptGrad.forward_error] = ""
    (logits * p["G"]).sum().backward()  # a judge objective: a wrong loss() costs only the loss tests
    embed, head = g.token_embed.weight, g.lm_head.weight
    rec[ev.GptGrad.grad_same_object] = embed.grad is not None and head.grad is embed.grad
    rec[ev.GptGrad.embed_grad] = None if embed.grad is None else plain(embed.grad)
    rec[ev.GptGrad.head_grad] = None if head.grad is None else plain(head.grad)
    opt.step()
    rec[ev.GptGrad.table_after] = plain(g.token_embed.weight)
    return ev.GptGrad.make(**rec)


def gpt_loss(ns, plan):
    p = plan["gpt"]
    model = _gpt(ns, p["cfg"], p["seed"])
    shapes = load_judge_values(model.minigpt, p["values"]["loss"], gain=p["loss_gain"])
    model.eval()
    rec: dict[str, Any] = {ev.GptLoss.state_shapes: shapes}
    with torch.no_grad():
        rec.update(forward_record(model, p["ids"], ev.GptLoss))
    pos = model.minigpt.pos_embed.weight

    def one(targets):
        for prm in model.parameters():
            prm.grad = None
        loss = model.loss(p["ids"]) if targets is None else model.loss(p["ids"], targets)
        if isinstance(loss, torch.Tensor) and loss.requires_grad:
            loss.backward()
        return ev.LossCase.make(loss=plain(loss), pos_grad=None if pos.grad is None else plain(pos.grad))

    forms = {ev.GptLoss.none: None, ev.GptLoss.short: p["targets_short"], ev.GptLoss.full: p["targets_full"]}
    for name, targets in forms.items():
        rec[name] = guard(lambda targets=targets: one(targets))
    return ev.GptLoss.make(**rec)


def _generation_model(ns, c, builds) -> tuple[torch.nn.Module, bool]:
    """(the wrapper with the plan's weights, rebuilt): a MiniGPT that cannot hold them (an ignored size, which
    the counts tests judge) is swapped for one of the plan's sizes, so the student's loop is still graded."""
    model = _gpt(ns, c["cfg"], c["seed"], builds)
    try:
        load_state_in_place(model.minigpt, c["state"])
        return model, False
    except (KeyError, ValueError):  # the grader's own load: not an error of the student's code
        from dnnlpy.models.gpt import MiniGPT

        inner = seeded(0, lambda: MiniGPT(**c["cfg"], weight_tying=True))
        load_state_in_place(inner, c["state"])
        model.minigpt = inner
        return model, True


def gpt_generate(ns, plan):
    builds = builds_module.current()

    def one(c, train: bool):
        model, rebuilt = _generation_model(ns, c, builds)
        model.train(train)  # train mode: a decoder switches its dropout off itself
        seed_cpu(1)
        first, reached = withheld_reached(lambda: model.generate(c["ids"].clone(), c["max_new_tokens"]))
        twice, second, again = c["calls"] > 1, None, []
        if twice:  # where sampling shows (the plan's guarantee 6)
            seed_cpu(2)
            second, again = withheld_reached(lambda: model.generate(c["ids"].clone(), c["max_new_tokens"]))
        delegated = list(dict.fromkeys(reached + again))
        if delegated:  # it handed the loop to the library: there is no sequence of its own to send
            return ev.GenerateCase.make(first=None, second=None, delegated=delegated, rebuilt=rebuilt)
        second = plain(second) if twice else None
        return ev.GenerateCase.make(first=plain(first), second=second, delegated=[], rebuilt=rebuilt)

    cases = [(c, False) for c in plan["gpt"]["generate"]] + [(plan["gpt"]["generate_train"], True)]
    return ev.GptGenerate.make(cases={c["name"]: guard(lambda c=c, t=t: one(c, t)) for c, t in cases})


def _sealed(record_class, fn: Callable[[dict, dict], dict]) -> Callable[[dict, dict], dict]:
    """fn, whose record leaves sealed (see ``seal``): the digest of what it measured, or what of the runner
    was changed while the student's code ran."""

    def experiment(ns, plan):
        rec = fn(ns, plan)
        changed = _INTEGRITY.changed() if _INTEGRITY is not None else ["the runner's integrity record"]
        if changed:
            return {**rec, sealing.SEAL: sealing.TAMPERED + ", ".join(changed)[:500]}
        return sealing.resealed(record_class.NAME, rec, record_class)

    experiment.__name__ = experiment.__qualname__ = fn.__name__
    return experiment


_RECORDS = {r.NAME: r for r in ev.RECORDS}
_INTEGRITY: sealing.Integrity | None = None

EXPERIMENTS = {
    ev.LmIdentity.NAME: lm_identity,
    ev.LmReload.NAME: lm_reload,
    ev.LmFloat64.NAME: lm_float64,
    ev.LmShapes.NAME: lm_shapes,
    ev.LmGrad.NAME: lm_grad,
    ev.GptIdentity.NAME: gpt_identity,
    ev.GptReload.NAME: gpt_reload,
    ev.GptFloat64.NAME: gpt_float64,
    ev.GptShapes.NAME: gpt_shapes,
    ev.GptHeads.NAME: gpt_heads,
    ev.GptCounts.NAME: gpt_counts,
    ev.GptDropout.NAME: gpt_dropout,
    ev.GptGrad.NAME: gpt_grad,
    ev.GptLoss.NAME: gpt_loss,
    ev.GptGenerate.NAME: gpt_generate,
}
EXPERIMENTS = {name: _sealed(_RECORDS[name], fn) for name, fn in EXPERIMENTS.items()}

_NEEDS = {"lm": "TiedEmbeddingLM", "gpt": "MiniGPTWithWeightTying"}


def _recurring(plan: dict) -> set[tuple]:
    """The wrapper builds (``Builds.request``) more than one request of the experiments above asks for: the only
    ones ``builds`` keeps. An experiment that builds another way makes this list stale: slower, never different
    (``test_builds.py`` counts a run's builds)."""
    p, asked = plan["gpt"], []
    asked += [(p["cfg"], p["seed"])] * 4  # identity, reload's first copy, grad, loss
    asked += [(p["cfg"], p["seed"] + 1)] * 2  # reload's second copy, which float64 then casts
    for case in (*p["shapes"], *p["heads"], *p["counts"], *p["generate"], p["generate_train"]):
        asked.append((case["cfg"], case["seed"]))
    asked += [(p["dropout"][key], p["dropout"]["seed"]) for key in (ev.GptDropout.cfg, ev.GptDropout.cfg0)]
    requests = [builds_module.Builds.request(cfg, seed) for cfg, seed in asked]
    return {r for r in requests if requests.count(r) > 1}


def _drawn(plan: dict) -> tuple[list[tuple], list[tuple]]:
    """What the experiments above draw for a MiniGPT built as the plan configures it: each load of the judge's
    values (cfg, values seed, gain) and each token table (cfg, table seed), for the fork server to draw once a
    plan (``warm.plan_ready``). Stale, like ``_recurring``, when an experiment loads another way: slower, never
    different (``test_plan_memo.py`` holds that the solution's run draws nothing it lacks)."""
    p = plan["gpt"]
    main = p["cfg"]
    loads = [(main, p["values"][key], 1.0) for key in ("identity", "reload", "float64", "grad")]
    loads.append((main, p["values"]["loss"], float(p["loss_gain"])))
    loads += [(c["cfg"], c["values"], c.get("gain", 1.0)) for c in p["shapes"]]
    loads += [(c["cfg"], c["values"], 1.0) for c in (*p["heads"], *p["counts"])]
    loads += [(p["dropout"][key], p["dropout"]["values"], 1.0) for key in (ev.GptDropout.cfg, ev.GptDropout.cfg0)]
    tables = [(main, p["tables"][key]) for key in ("identity", "reload", "float64")]
    tables += [(c["cfg"], c["table"]) for c in p["counts"]]
    return loads, tables


def run(namespace, plan: dict, emit: Callable[[str, dict], None]) -> None:
    """Run every experiment in order; emit one record per experiment, an error record on failure."""
    # Everything alive now (torch's ~10^6 objects, the submission) leaves the cyclic collector's reach: each full
    # collection would walk it all (~80 ms, several per run). What the experiments create is collected as usual.
    gc.freeze()
    torch.set_grad_enabled(True)
    with builds_module.shared(_recurring(plan)):  # a configuration built once for the whole run (``builds``)
        for done, (name, fn) in enumerate(EXPERIMENTS.items()):
            cls = _NEEDS[name.split("_")[0]]
            if cls not in namespace:
                emit(name, {"error": f"NameError: the submission does not define {cls}"})
                continue
            # each within its time budget (autograder.runner.budget): a hang costs this experiment only
            emit(name, within(name, lambda fn=fn: guard(lambda: fn(namespace, plan)), len(EXPERIMENTS) - done))


def _snapshot() -> sealing.Integrity:
    """The runner as imported, before any student code: the experiments, their tools and record schema, and
    everything a frame goes through on its way out (``seal.frame_writers``)."""
    modules, extra = sealing.frame_writers()
    names = (__name__, lm_experiments.__name__, tools_module.__name__, library_use.__name__, builds_module.__name__)
    names += (ev.__name__,)
    modules += sealing.module_dicts(*names)
    extra.update({f"EXPERIMENTS[{name!r}]": (EXPERIMENTS, name) for name in EXPERIMENTS})
    return sealing.Integrity(modules, extra)


_INTEGRITY = _snapshot()
