"""Untrusted: the small tools the weight_tying experiments poke student models with.

Imports only torch and the standard library: this module must work where the judge's files are unreadable.
"""

from __future__ import annotations

import io
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import torch

from autograder.graders.weight_tying.runner import evidence as ev

__all__ = [
    "plain",
    "error_text",
    "guard",
    "copy_into",
    "SGD",
    "seed_cpu",
    "seeded",
    "reloaded",
    "load_state_in_place",
    "dropout_settings",
    "unique_parameters",
    "flag_off",
    "tie_facts",
]


def plain(t: Any) -> torch.Tensor:
    """A detached plain-torch.Tensor copy; a non-tensor raises so the record says so."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"expected a torch.Tensor, got {type(t).__name__}")
    return t.detach().clone().contiguous().as_subclass(torch.Tensor)


def _library_dirs() -> tuple[str, ...]:
    """Where library code lives (torch, dnnlpy, the kit): frames there are not the student's."""
    dirs = {os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    module = sys.modules.get("dnnlpy")
    if module is not None and getattr(module, "__file__", None):
        dirs.add(os.path.dirname(module.__file__))
    return tuple(d + os.sep for d in dirs)


def error_text(exc: BaseException) -> str:
    """'ExcType: message  (at file:line in fn; ...)', the student's own frames only; a method is named with its
    class (``MiniGPTWithWeightTying.generate``), so the judge can say which part is still the starter code."""
    text = f"{type(exc).__name__}: {exc}"[:1500]
    steps = list(traceback.walk_tb(exc.__traceback__))
    frames = traceback.StackSummary.extract(iter(steps))
    library = _library_dirs()
    mine = [
        (f, step.f_code.co_qualname)
        for f, (step, _) in zip(frames, steps, strict=True)
        if not f.filename.startswith(library)
    ]
    if mine:
        tail = "; ".join(f"{f.filename}:{f.lineno} in {name}" for f, name in mine[-3:])
        text += f"  (at {tail})"[:600]
    return text


def guard(fn: Callable[[], Any]) -> Any:
    """fn(), or {"error": ...} when the student's code raised: a failure is evidence too."""
    try:
        return fn()
    except Exception as exc:
        return {"error": error_text(exc)}


def copy_into(param: torch.Tensor, value: torch.Tensor) -> None:
    with torch.no_grad():
        param.copy_(value)


class SGD:
    """Plain SGD over a parameter list fixed at construction: step() does p -= lr * p.grad, as
    torch.optim.SGD(params, lr=lr) does (no momentum, no weight decay).

    Written out because torch.optim's first use imports torch._dynamo: about 1 s of CPU per grading run,
    ten times what all the experiments cost on a correct solution.
    """

    def __init__(self, params, lr: float) -> None:
        self.params = list(params)  # fixed now, like an optimizer built before any forward call
        self.lr = float(lr)

    def zero_grad(self) -> None:
        for prm in self.params:
            prm.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for prm in self.params:
            if prm.grad is not None:
                prm.add_(prm.grad, alpha=-self.lr)


def seed_cpu(seed: int) -> None:
    """Seed torch's CPU generator, the one every experiment draws from.

    What torch.manual_seed does on a machine without accelerators, minus its lazy seeding of CUDA, XPU and
    MTIA: each of those records a Python stack trace per call, ~3 of the ~35 ms all the seeding cost."""
    torch.default_generator.manual_seed(int(seed))


def seeded(seed: int, build: Callable[[], Any]) -> Any:
    seed_cpu(seed)
    return build()


def reloaded(build: Callable[[int], Any]) -> Any:
    """build(1), loaded with the state_dict of build(0): the tie must survive a save/load round trip."""
    buf = io.BytesIO()
    torch.save(build(0).state_dict(), buf)
    buf.seek(0)
    fresh = build(1)
    fresh.load_state_dict(torch.load(buf, weights_only=False))
    return fresh


def load_state_in_place(module, state: dict) -> None:
    """Copy every judge tensor into `module`'s state in place (keeps any tie intact)."""
    mine = module.state_dict()
    missing = [k for k in state if k not in mine]
    if missing:
        raise KeyError(f"model.minigpt has no entries {missing[:4]} (a MiniGPT built with these arguments has)")
    # Entries the judge's weights do not fill would keep the student's own values: the output would then
    # depend on them (on some plans but not others), so the model must be exactly the one the plan describes.
    extra = [k for k, v in mine.items() if k not in state and isinstance(v, torch.Tensor) and v.is_floating_point()]
    if extra:
        raise ValueError(
            f"cannot load the judge's weights into model.minigpt: it has entries {extra[:4]} that a MiniGPT built "
            f"with these arguments does not have (a hyper-parameter ignored?)"
        )
    wrong = [k for k, v in state.items() if tuple(mine[k].shape) != tuple(v.shape)]
    if wrong:
        k = wrong[0]
        raise ValueError(
            f"cannot load the judge's weights into model.minigpt: {k} has shape {tuple(mine[k].shape)}, "
            f"a MiniGPT built with these arguments has {tuple(state[k].shape)} (a hyper-parameter ignored?)"
        )
    with torch.no_grad():
        for k, v in state.items():
            mine[k].copy_(v)


def dropout_settings(module) -> list:
    """[[module name, probability], ...] for every dropout module inside `module`.

    The judge applies the same rule to its own model (its reference imports this; never the other way
    round: the runner must not need the judge's files)."""
    out = []
    for name, sub in module.named_modules():
        p = getattr(sub, "p", None)
        if "Dropout" in type(sub).__name__ and isinstance(p, (int, float)) and not isinstance(p, bool):
            out.append([name, float(p)])
    return out


def unique_parameters(model) -> list:
    """Each Parameter of `model` once, however many names it has (a tied table counts once)."""
    unique: dict[int, Any] = {}
    for _, prm in model.named_parameters(remove_duplicate=False):
        unique.setdefault(id(prm), prm)
    return list(unique.values())


def flag_off(inner) -> bool:
    """The wrapper's MiniGPT was built untied (weight_tying=False, or the flag left out): it only names the mistake."""
    return getattr(getattr(inner, "config", None), "weight_tying", None) is False


def tie_facts(embed, head) -> dict:
    return {ev.TieFacts.head_is_embed: head is embed, ev.TieFacts.same_data_ptr: head.data_ptr() == embed.data_ptr()}


def identity_facts(model: torch.nn.Module, embed, head) -> dict:
    """What the runner sees about the tie (reported, never trusted alone by the judge)."""
    unique = unique_parameters(model)
    return {
        **tie_facts(embed, head),
        ev.LmIdentity.n_param_objects: len(unique),
        ev.LmIdentity.unique_numel: int(sum(p.numel() for p in unique)),
        ev.LmIdentity.param_names: [[n, list(p.shape)] for n, p in model.named_parameters(remove_duplicate=False)],
        ev.LmIdentity.embed_in_parameters: any(p is embed for p in unique),
    }


def follow_table(model, owner, table, ids, *, eval_mode: bool = False, also: Callable[[], dict] = dict) -> dict:
    """Write the judge's `table` into owner.token_embed in place, before any forward call; record the head
    right after (plus `also()`), what the constructed model computes without the student's forward (the head
    applied to the table's rows, or the wrapper's MiniGPT), the logits of a forward call for `ids`, and the head
    again after that forward call."""
    copy_into(owner.token_embed.weight, table)
    rec = {ev.TableFollow.head_after_inplace: plain(owner.lm_head.weight), **also()}
    if eval_mode:
        model.eval()
    compute = (lambda: owner.lm_head(table[ids])) if owner is model else (lambda: owner(ids))
    head = guard(lambda: plain(compute()))  # (B, T, D) -> (B, T, V): the tie as built, whatever forward does
    rec[ev.TableFollow.head_logits] = head if isinstance(head, torch.Tensor) else None
    rec.update(forward_record(model, ids, ev.TableFollow))
    # Seen again after one forward call: tells "tied only after forward" apart from a copied table.
    rec[ev.TableFollow.head_after_forward] = plain(owner.lm_head.weight)
    return rec


def forward_record(model, ids, record) -> dict:
    """{logits, forward_error} of one forward call: a forward that raises leaves the facts recorded before it
    (the tie) to be judged on their own."""
    try:
        return {record.logits: plain(model(ids)), record.forward_error: ""}
    except Exception as exc:
        return {record.logits: None, record.forward_error: error_text(exc)}


def no_gradient(record, exc: Exception | None) -> dict:
    """A gradient record with no measurement: forward raised `exc`, or (None) returned what the judge's
    objective cannot multiply."""
    out = {
        name: None
        for name in ("logits", "embed_grad", "head_grad", "table_after", "head_after")
        if name in record.FIELDS
    }
    return {**out, record.forward_error: "" if exc is None else error_text(exc), record.grad_same_object: False}


def fits(logits, objective: torch.Tensor) -> bool:
    return isinstance(logits, torch.Tensor) and tuple(logits.shape) == tuple(objective.shape)
