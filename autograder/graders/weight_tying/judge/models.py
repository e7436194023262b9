"""Trusted: the judge's own MiniGPTs, built with the sizes a submission's state_dict shows and filled with
the judge's values (``runner/values.py``), never with values the submission reports.

Judging behaviour on the architecture the student really built keeps one ignored size from failing every
area (the parameter-count tests name it). Models are memoised (``autograder.grading.judge.memo``; callers must not
change them): a model whose sizes are those the plan's cfg gives, which every correct submission shows, is
kept for the whole plan, so grading many submissions against one plan builds it once; a model built from
sizes a submission reported (and what is computed on it) is kept too, keyed on the plan's values and a digest of
those sizes, in a small memo of its own: a class repeats the same mistaken sizes (an ignored embed_dim), and
the model depends on nothing else the submission sent. All memos are bounded in bytes: nothing one student
reports can fill the judge for the next.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from autograder.graders.weight_tying.runner.values import judge_table, values_for
from autograder.grading.judge.memo import Memo
from dnnlpy.models.gpt import MiniGPT

__all__ = [
    "CFG_KEYS",
    "build_minigpt",
    "cfg_model",
    "cfg_shapes",
    "shape_cfg",
    "judge_model",
    "minigpt_from_state",
    "memoised",
    "frozen",
    "tensor_key",
    "for_model",
    "judge_logits",
    "training",
    "with_params",
]

# The wrapper's constructor arguments, in the contract's order.
CFG_KEYS = ("vocab_size", "block_size", "embed_dim", "num_layers", "num_heads", "hidden_dim", "dropout")
_BUILD_ERRORS = (KeyError, IndexError, ValueError, AttributeError, TypeError)
# Sizes the judge will build from a reported state; beyond them it judges against the plan's own sizes.
_LIMITS = {"embed_dim": 256, "block_size": 64, "num_layers": 8, "hidden_dim": 2048}
# Plan models are a few KB each (a plan's sizes are small). One built from reported sizes is at most ~45 MB:
# larger than the sizes memo's budget, so it is kept for its judgement only. What one judgement builds for a
# mistaken size of the usual kind fits the budget with room for several: ~9 MiB for MiniGPT's default
# embed_dim (128) hard-coded, under 2 MiB for an ignored num_layers or hidden_dim.
PLAN_MEMO = Memo("plan", 64 << 20)
SIZES_MEMO = Memo("sizes", 24 << 20)
JUDGEMENT_MEMO = Memo("judgement", 256 << 20)  # what is too large for SIZES_MEMO, for one judgement


def frozen(value: Any) -> Any:
    """A hashable copy of plain data (dicts, lists, numbers, strings)."""
    if isinstance(value, Mapping):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def memoised(key: tuple, compute: Callable[[], Any]) -> Any:
    """compute() once per hashable key, kept across submissions: the key must hold nothing but the plan's own
    values (no size, record or object a submission reported; see ``for_model`` for work on reported sizes)."""
    return PLAN_MEMO.get(key, compute)


def _sizes_digest(shapes: Mapping[str, Any]) -> bytes | None:
    """What a memo key holds of a submission's {key: shape}: a 16-byte digest of it, however many keys it has
    (never the reported object itself, which would outlive the judgement); None when it is not plain shapes.
    The same sizes in any form (lists, tuples, tensors' shapes) give the same digest; a dict of int lists, what
    ``shape_dict`` gives every test, takes a path without a call a key (a judgement of reported sizes looks
    its memo up ~45 times)."""
    if type(shapes) is dict and all(type(v) is list and all(type(n) is int for n in v) for v in shapes.values()):
        plain = tuple(sorted((str(k), tuple(v)) for k, v in shapes.items()))
    else:
        try:
            plain = tuple(sorted((str(k), tuple(int(n) for n in _shape(shapes, k))) for k in shapes))
        except (TypeError, ValueError, KeyError):
            return None
    return hashlib.blake2b(repr(plain).encode(), digest_size=16).digest()


def _on_sizes(cfg: Mapping[str, Any], shapes: Mapping[str, Any], key: tuple, compute: Callable[[], Any]) -> Any:
    """compute() of work on the judge's model of `shapes`: in the plan memo when `shapes` are those of a MiniGPT
    built with `cfg` (what every correct submission shows), else in the sizes memo under a digest of `shapes`.
    Either way it is kept across submissions: the work depends on the plan's values and the sizes alone. What
    is too large for the sizes memo (a model of forged, huge sizes) is kept for this judgement only."""
    if _planned(cfg, shapes):
        return PLAN_MEMO.get((*key, frozen(cfg), "as planned"), compute)
    digest = _sizes_digest(shapes)
    if digest is None:  # not shapes at all: nothing to key on (the build refuses them)
        return compute()
    key = (*key, frozen(cfg), digest)
    if key in JUDGEMENT_MEMO:
        return JUDGEMENT_MEMO.get(key, compute)
    value = SIZES_MEMO.get(key, compute)
    if key not in SIZES_MEMO:
        JUDGEMENT_MEMO.get(key, lambda: value)
    return value


def tensor_key(t: Tensor) -> tuple:
    """A hashable key for a plan tensor's contents (dtype, shape, bytes): never its id, which a later plan's
    tensor may reuse."""
    return (str(t.dtype), tuple(t.shape), t.detach().contiguous().numpy().tobytes())


def for_model(cfg: Mapping[str, Any], shapes: Mapping[str, Any], key: tuple, compute: Callable[[], Any]) -> Any:
    """compute() of work on the judge's model of `shapes` (see ``judge_model``), memoised across submissions
    (``_on_sizes``). `key` must hold nothing but the plan's own values (seeds, gains, ``tensor_key`` of plan
    tensors), and compute() must depend on nothing but them, `cfg` and `shapes`."""
    return _on_sizes(cfg, shapes, ("work", *key), compute)


def judge_logits(
    cfg: Mapping[str, Any],
    shapes: Mapping[str, Sequence[int]],
    values: int,
    ids: Tensor,
    *,
    gain: float = 1.0,
    dtype: torch.dtype = torch.float32,
    table: int | None = None,
    head_follows: bool = True,
) -> Tensor:
    """judge_model(...)(ids) without autograd, memoised as ``for_model`` (callers must not change it)."""

    def compute() -> Tensor:
        model = judge_model(cfg, shapes, values, gain=gain, dtype=dtype, table=table, head_follows=head_follows)
        with torch.no_grad():
            return model(ids)

    key = ("judge_logits", values, gain, str(dtype), table, head_follows, tensor_key(ids))
    return for_model(cfg, shapes, key, compute)


def build_minigpt(cfg: Mapping[str, Any], *, weight_tying: bool = True) -> MiniGPT:
    """A MiniGPT built exactly as the contract says the wrapper must build it."""
    return MiniGPT(**{k: cfg[k] for k in CFG_KEYS}, weight_tying=weight_tying)


def cfg_model(cfg: Mapping[str, Any]) -> MiniGPT:
    """A MiniGPT built with the plan's `cfg` as the contract says, never run: what the judge reads the shapes,
    parameter counts and modules of such a model from, built once per cfg of the plan (callers must not change
    it; `cfg` must be the plan's, never sizes a submission reported)."""
    return memoised(("cfg_model", frozen(cfg)), lambda: build_minigpt(cfg))


def cfg_shapes(cfg: Mapping[str, Any]) -> dict[str, list[int]]:
    """{key: shape} of a MiniGPT built with `cfg` (what a correct submission's state_dict shows)."""
    key = ("cfg_shapes", frozen(cfg))
    return memoised(key, lambda: {k: list(v.shape) for k, v in cfg_model(cfg).state_dict().items()})


def _planned(cfg: Mapping[str, Any], shapes: Mapping[str, Any]) -> bool:
    """Whether `shapes` are exactly those of a MiniGPT built with `cfg` (what a correct submission shows)."""
    try:
        planned = cfg_shapes(cfg)
        if type(shapes) is dict and shapes == planned:  # {key: [int]} as decoded: one comparison in C
            return True
        return len(shapes) == len(planned) and all(_shape(shapes, k) == planned[k] for k in shapes)
    except Exception:  # malformed shapes, or a cfg MiniGPT refuses: not the plan's
        return False


def _shape(shapes: Mapping[str, Any], key: str) -> list[int]:
    value = shapes[key]
    return list(value.shape) if isinstance(value, Tensor) else list(value)


def shape_cfg(cfg: Mapping[str, Any], shapes: Mapping[str, Any]) -> dict:
    """`cfg` with the sizes `shapes` (a state_dict, or its {key: shape}) actually has: embed_dim, block_size,
    num_layers, hidden_dim; `cfg` itself when they cannot be read or are absurd."""
    out = dict(cfg)
    try:
        out["embed_dim"] = int(_shape(shapes, "token_embed.weight")[1])
        out["block_size"] = int(_shape(shapes, "pos_embed.weight")[0])
        out["num_layers"] = len({k.split(".")[1] for k in shapes if k.startswith("blocks.")})
        if out["num_layers"]:
            out["hidden_dim"] = int(_shape(shapes, "blocks.0.mlp.fc1.weight")[0])
    except _BUILD_ERRORS:
        return dict(cfg)
    if any(not 0 <= out[k] <= top for k, top in _LIMITS.items()):
        return dict(cfg)  # forged sizes must not make the judge build a huge model
    return out


def _build_as_stored(cfg: Mapping[str, Any], shapes: Mapping[str, Any]) -> tuple[dict, MiniGPT]:
    """(shape_cfg(cfg, shapes), a fresh MiniGPT built with it): one build, not a trial build and a real one."""
    sized = shape_cfg(cfg, shapes)
    if sized != dict(cfg):
        try:
            return sized, build_minigpt(sized)
        except _BUILD_ERRORS:  # e.g. num_heads no longer divides the real embed_dim
            pass
    return dict(cfg), build_minigpt(cfg)


def _in_dtype(model: MiniGPT, dtype: torch.dtype) -> MiniGPT:
    """`model` converted to `dtype`, in place; untouched when it holds nothing else (converting a model to the
    dtype it has walks all of its modules for nothing)."""
    if any(t.dtype != dtype for t in (*model.parameters(), *model.buffers())):
        model.to(dtype)
    return model


def _check_keys(cfg: dict, mine: Mapping[str, Tensor], shapes: Mapping[str, Any]) -> None:
    """AssertionError naming the keys / shapes in which `shapes` differs from the judge's model."""
    missing = sorted(set(mine) - set(shapes))
    extra = sorted(set(shapes) - set(mine))
    # A head of the wrong shape is let through: it shows in the logits, where the message can name it.
    wrong = sorted(
        k for k in set(mine) & set(shapes) if k != "lm_head.weight" and _shape(shapes, k) != list(mine[k].shape)
    )
    if missing or extra or wrong:
        details = []
        if missing:
            details.append(f"missing {missing[:4]}")
        if extra:
            details.append(f"unexpected {extra[:4]}")
        if wrong:
            pairs = (f"{k}: {tuple(_shape(shapes, k))} vs {tuple(mine[k].shape)}" for k in wrong[:3])
            details.append("wrong shapes " + ", ".join(pairs))
        raise AssertionError(
            f"model.minigpt's state_dict does not match a MiniGPT built with {cfg}: " + "; ".join(details)
        )


def judge_model(
    cfg: Mapping[str, Any],
    shapes: Mapping[str, Sequence[int]],
    values: int,
    *,
    gain: float = 1.0,
    dtype: torch.dtype = torch.float32,
    table: int | None = None,
    head_follows: bool = True,
) -> MiniGPT:
    """The judge's MiniGPT (eval mode) with the sizes `shapes` shows, holding judge_values(values, gain).

    `table`: a judge_table seed written into token_embed afterwards (into the head too when
    `head_follows`, else the head keeps the loaded values, as an untied model's would). Raises
    AssertionError naming the keys / shapes that differ from a MiniGPT of those sizes.
    """

    def compute() -> MiniGPT:
        sized, model = _build_as_stored(cfg, shapes)
        _check_keys(sized, model.state_dict(), shapes)
        mine = model.state_dict()
        with torch.no_grad():
            for k, v in values_for(values, {k: list(t.shape) for k, t in mine.items()}, gain=gain).items():
                mine[k].copy_(v)
            if table is not None:
                new = judge_table(table, tuple(model.token_embed.weight.shape))
                if not head_follows:
                    model.lm_head.weight = nn.Parameter(model.token_embed.weight.detach().clone())
                model.token_embed.weight.copy_(new)
        return _in_dtype(model, dtype).eval().requires_grad_(False)

    return _on_sizes(cfg, shapes, ("judge_model", values, gain, str(dtype), table, head_follows), compute)


def minigpt_from_state(cfg: Mapping[str, Any], state: Mapping[str, Tensor], *, dtype=torch.float32) -> MiniGPT:
    """A judge MiniGPT (eval mode) holding an explicit `state` the judge drew itself (the generation plan)."""
    sized, model = _build_as_stored(cfg, state)
    _check_keys(sized, model.state_dict(), state)
    mine = model.state_dict()
    with torch.no_grad():
        for key, value in state.items():
            if key != "lm_head.weight":  # tied: loading token_embed.weight sets the head too
                mine[key].copy_(value.to(mine[key].dtype))
    return _in_dtype(model, dtype).eval()


@contextlib.contextmanager
def training(model: nn.Module):
    """`model` (a judge model, kept in eval mode: a memo holds it) in train mode for the block, in eval mode again
    after it: a train-mode forward without a copy of the model, which costs more than the forward."""
    model.train()
    try:
        yield model
    finally:
        model.eval()


def with_params(model: nn.Module, params: Mapping[str, Tensor], *args: Any) -> Any:
    """model(*args) with `params` (name: tensor) in place of those parameters for this one call, each one its own
    (a tied table given under both names is two tables here): the judge's gradients of chosen parameters, taken
    on the memoised model instead of on a copy of it. The model itself is left as it was."""
    return torch.func.functional_call(model, dict(params), args, tie_weights=False, strict=False)
