"""Trusted: the judge's own computations for weight_tying, with pristine torch and the kit's MiniGPT.

Trusted side only (plan maker and suite). Every expected value of the suite comes from here, computed
from weights the judge chose or from plain evidence tensors, never from anything the runner computed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from autograder.graders.weight_tying.runner.tools import dropout_settings
from dnnlpy.models.gpt import MiniGPT, count_parameters

__all__ = [
    "CFG_KEYS",
    "IdentityMemo",
    "build_minigpt",
    "minigpt_from_state",
    "shape_cfg",
    "tied_lm_logits",
    "tied_lm_path_grads",
    "next_token_loss",
    "minigpt_path_grads",
    "dropout_settings",
    "expected_param_count",
    "decode",
    "DECODE_VARIANTS",
]

# The wrapper's constructor arguments, in the contract's order.
CFG_KEYS = ("vocab_size", "block_size", "embed_dim", "num_layers", "num_heads", "hidden_dim", "dropout")


class IdentityMemo:
    """Judge results keyed on the identity of their inputs (a plan case, an evidence record).

    Several tests need the same computation on the same objects (one greedy decode, one untied backward);
    the suite asks the memo instead of redoing it. An entry holds its key objects, so their ids cannot be
    reused by new objects while it lives; only the `size` most recent entries are kept. Callers must not
    change what they get back.
    """

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._entries: dict[tuple[int, ...], tuple[tuple, Any]] = {}

    def get(self, keys: tuple, compute: Callable[[], Any]) -> Any:
        ident = tuple(id(k) for k in keys)
        hit = self._entries.get(ident)
        if hit is None:
            hit = (keys, compute())
            if len(self._entries) >= self._size:
                self._entries.pop(next(iter(self._entries)))
            self._entries[ident] = hit
        return hit[1]


def build_minigpt(cfg: Mapping[str, Any], *, weight_tying: bool = True) -> MiniGPT:
    """A MiniGPT built exactly as the contract says the wrapper must build it."""
    return MiniGPT(**{k: cfg[k] for k in CFG_KEYS}, weight_tying=weight_tying)


_BUILD_ERRORS = (KeyError, IndexError, ValueError, AttributeError)


def _state_sizes(cfg: Mapping[str, Any], state: Mapping[str, Tensor]) -> dict:
    """`cfg` with the sizes read from the state_dict, or `cfg` itself when they cannot be read or are absurd."""
    out = dict(cfg)
    limits = {"embed_dim": 256, "block_size": 64, "num_layers": 8, "hidden_dim": 2048}  # defaults fit
    try:
        out["embed_dim"] = int(state["token_embed.weight"].shape[1])
        out["block_size"] = int(state["pos_embed.weight"].shape[0])
        out["num_layers"] = len({k.split(".")[1] for k in state if k.startswith("blocks.")})
        if out["num_layers"]:
            out["hidden_dim"] = int(state["blocks.0.mlp.fc1.weight"].shape[0])
    except _BUILD_ERRORS:
        return dict(cfg)
    if any(not 0 <= out[k] <= top for k, top in limits.items()):
        return dict(cfg)  # forged sizes must not make the judge build a huge model
    return out


def shape_cfg(cfg: Mapping[str, Any], state: Mapping[str, Tensor]) -> dict:
    """`cfg` with the sizes the state_dict actually has (embed_dim, block_size, num_layers, hidden_dim).

    Judging values against the submission's real architecture keeps an ignored size from failing every
    area: the parameter-count tests name it, the other areas judge behaviour on the model as built.
    """
    return _build_as_stored(cfg, state)[0]


def _build_as_stored(cfg: Mapping[str, Any], state: Mapping[str, Tensor]) -> tuple[dict, MiniGPT]:
    """(shape_cfg(cfg, state), a fresh MiniGPT built with it): one build, not a trial build and a real one."""
    sized = _state_sizes(cfg, state)
    if sized != dict(cfg):
        try:
            return sized, build_minigpt(sized)
        except _BUILD_ERRORS:  # e.g. num_heads no longer divides the real embed_dim
            pass
    return dict(cfg), build_minigpt(cfg)


def minigpt_from_state(cfg: Mapping[str, Any], state: Mapping[str, Tensor], *, dtype=torch.float32) -> MiniGPT:
    """A judge MiniGPT (eval mode) holding `state`; raises AssertionError naming key/shape mismatches.

    Sizes come from the state (see shape_cfg); num_heads and dropout from `cfg`. When the state's head
    table differs from its embedding table (an untied submission), the judge's copy is untied the same
    way, so values are judged on the model the submission really built.
    """
    cfg, model = _build_as_stored(cfg, state)
    model = model.to(dtype)
    mine = model.state_dict()
    missing = sorted(set(mine) - set(state))
    extra = sorted(set(state) - set(mine))
    # A head of the wrong shape is loaded as is: it shows in the logits, where the message can name it.
    wrong = sorted(
        k for k in set(mine) & set(state) if k != "lm_head.weight" and tuple(state[k].shape) != tuple(mine[k].shape)
    )
    if missing or extra or wrong:
        details = []
        if missing:
            details.append(f"missing {missing[:4]}")
        if extra:
            details.append(f"unexpected {extra[:4]}")
        if wrong:
            pairs = (f"{k}: {tuple(state[k].shape)} vs {tuple(mine[k].shape)}" for k in wrong[:3])
            details.append("wrong shapes " + ", ".join(pairs))
        raise AssertionError(
            f"model.minigpt's state_dict does not match a MiniGPT built with {dict(cfg)}: " + "; ".join(details)
        )
    with torch.no_grad():
        for key, value in state.items():
            if key != "lm_head.weight":  # tied: loading token_embed.weight sets the head too
                mine[key].copy_(value.to(dtype))
    head = state.get("lm_head.weight")
    table = model.token_embed.weight
    if head is not None and head.shape == table.shape and not torch.equal(head.to(dtype), table.detach()):
        model.lm_head.weight = nn.Parameter(head.detach().clone().to(dtype))
    return model.eval()


def tied_lm_logits(table: Tensor, ids: Tensor) -> Tensor:
    """E[ids] @ E.T: (V, D), (B, T) -> (B, T, V)."""
    return table[ids] @ table.T


def tied_lm_path_grads(table: Tensor, ids: Tensor, upstream: Tensor) -> tuple[Tensor, Tensor]:
    """Gradients of sum(logits * upstream) w.r.t. the lookup copy and the head copy of an untied table."""
    e_in = table.detach().clone().requires_grad_(True)  # used only by the lookup
    e_out = table.detach().clone().requires_grad_(True)  # used only by the head
    logits = e_in[ids] @ e_out.T  # (B, T, D) @ (D, V) -> (B, T, V)
    (logits * upstream).sum().backward()
    return e_in.grad, e_out.grad


def next_token_loss(logits_of, ids: Tensor, targets: Tensor | None) -> Tensor:
    """The contract's three target forms, with pristine F.cross_entropy (mean over positions)."""
    b, t = ids.shape
    if targets is None:
        inputs, targets = ids[:, :-1], ids[:, 1:]
    elif tuple(targets.shape) == (b, t - 1):
        inputs = ids[:, :-1]
    elif tuple(targets.shape) == (b, t):
        inputs = ids
    else:
        raise ValueError(f"targets shape {tuple(targets.shape)} does not fit ids {tuple(ids.shape)}")
    logits = logits_of(inputs)  # (B, T', V)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


def minigpt_path_grads(cfg, state, ids: Tensor, targets: Tensor | None) -> tuple[Tensor, Tensor]:
    """Untie a copy (separate lookup and head tables), return both tables' gradients of the loss."""
    model = minigpt_from_state(cfg, state)
    # The head copy takes the state's own head table: identical when tied; when the submission is untied,
    # this lets the judge recognise which single path its gradient holds.
    head = state.get("lm_head.weight")
    if head is None or head.shape != model.token_embed.weight.shape:
        head = model.token_embed.weight
    model.lm_head.weight = nn.Parameter(head.detach().clone().float())
    next_token_loss(model, ids, targets).backward()
    return model.token_embed.weight.grad, model.lm_head.weight.grad


def expected_param_count(cfg) -> tuple[int, int]:
    """(tied count, untied count) of a MiniGPT with these hyper-parameters."""
    return count_parameters(build_minigpt(cfg)), count_parameters(build_minigpt(cfg, weight_tying=False))


def _crop(ids: Tensor, block: int, how: str) -> Tensor:
    if how == "last":
        return ids[:, -block:]
    if how == "first":
        return ids[:, :block]
    if how == "last_minus_1":
        return ids[:, -(block - 1) :] if block > 1 else ids[:, -1:]
    raise ValueError(how)


# Simulated misconceptions of `generate`, keyed by the keyword the suite reports.
DECODE_VARIANTS = {
    "correct": dict(crop="last", position=-1, append=True),
    "wrong crop (first block_size tokens)": dict(crop="first", position=-1, append=True),
    "wrong crop (block_size - 1 tokens)": dict(crop="last_minus_1", position=-1, append=True),
    "wrong position (logits of the first position)": dict(crop="last", position=0, append=True),
    "wrong position (logits of the second-to-last position)": dict(crop="last", position=-2, append=True),
    "missing append": dict(crop="last", position=-1, append=False),
}


@torch.no_grad()
def decode(model: MiniGPT, ids: Tensor, max_new_tokens: int, variant: str = "correct"):
    """Greedy decoding (or a simulated misconception of it).

    Returns (sequence (B, T + n) int64, margins (n, B): top-1 minus top-2 logit, top-1 probs (n, B)).
    """
    how = DECODE_VARIANTS[variant]
    block = model.block_size
    context = ids
    out = ids
    margins, top1 = [], []
    for _ in range(max_new_tokens):
        logits = model(_crop(context, block, how["crop"]))  # (B, t, V)
        pos = how["position"] if logits.size(1) >= abs(how["position"]) or how["position"] >= 0 else -1
        last = logits[:, pos, :]  # (B, V)
        top = last.topk(2, dim=-1).values  # (B, 2)
        margins.append(top[:, 0] - top[:, 1])
        top1.append(last.softmax(-1).max(-1).values)
        nxt = last.argmax(-1, keepdim=True)  # (B, 1)
        out = torch.cat([out, nxt], dim=1)
        if how["append"]:
            context = out
    return out, torch.stack(margins), torch.stack(top1)
