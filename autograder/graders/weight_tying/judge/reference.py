"""Trusted: the judge's own computations for weight_tying, with pristine torch and the kit's MiniGPT.

Trusted side only (plan maker and suite). Every expected value of the suite comes from here, computed
from weights the judge chose (the plan's tables, ``judge/models.py``'s MiniGPTs), never from anything
the runner computed. Recorded outputs are only *read* to learn what a forward pass does after the head
(a softmax, a scale), so that a gradient is judged for the function the student really wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from autograder.graders.weight_tying.diagnosis import TOL, close, logits_follow_table
from autograder.graders.weight_tying.judge.models import (
    CFG_KEYS,
    build_minigpt,
    cfg_shapes,
    for_model,
    judge_logits,
    judge_model,
    minigpt_from_state,
    shape_cfg,
    tensor_key,
    with_params,
)
from autograder.graders.weight_tying.runner.tools import dropout_settings
from dnnlpy.models.gpt import MiniGPT

__all__ = [
    "CFG_KEYS",
    "IdentityMemo",
    "build_minigpt",
    "sizes_ignored",
    "library_tied",
    "judge_model",
    "minigpt_from_state",
    "shape_cfg",
    "tied_lm_logits",
    "skipped_part",
    "layer_norm_eps",
    "other_heads",
    "after_head",
    "span_residual",
    "rewritten_by_forward",
    "max_norm_rewrite",
    "tied_lm_path_grads",
    "next_token_loss",
    "minigpt_path_grads",
    "dropout_settings",
    "decode",
    "decodes_to",
    "DECODE_VARIANTS",
    "variant_matters",
]


class IdentityMemo:
    """Judge results keyed on the identity of their inputs (a plan case, an evidence record).

    Several tests need the same computation on the same objects (one greedy decode); the suite asks the
    memo instead of redoing it. An entry holds its key objects, so their ids cannot be reused by new
    objects while it lives; only the `size` most recent entries are kept. Callers must not change what
    they get back.
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


def tied_lm_logits(table: Tensor, ids: Tensor) -> Tensor:
    """E[ids] @ E.T: (V, D), (B, T) -> (B, T, V)."""
    return table[ids] @ table.T


# What a forward pass may do after the head without changing how the gradient accumulates in the table;
# shape flow judges these outputs, so the gradient tests judge the gradient of the function as written.
_AFTER_HEAD: dict[str, Callable[[Tensor, float], Tensor]] = {
    "logits": lambda z, c: z,
    "scaled logits": lambda z, c: c * z,
    "probabilities": lambda z, c: z.softmax(-1),
    "log-probabilities": lambda z, c: z.log_softmax(-1),
}


def after_head(
    output: Tensor, logits: Tensor, *, bias: bool = True, tol: dict | None = None
) -> tuple[str, Callable[[Tensor], Tensor]] | None:
    """(name, f) with `output` = f(`logits`) (+ a per-token bias when `bias`) within `tol` (TOL: what
    differently written correct code differs by), f one of logits / c * logits / softmax / log_softmax;
    None when the output is none of them (then a gradient cannot be judged on its own)."""
    if output.shape != logits.shape or not output.is_floating_point() or logits.numel() == 0:
        return None
    tol = tol or TOL
    out, z = output.double(), logits.double()
    flat_z = z.reshape(-1, z.shape[-1])
    scale = float((flat_z * out.reshape(flat_z.shape)).sum() / (flat_z * flat_z).sum().clamp_min(1e-30))
    for name, fn in _AFTER_HEAD.items():
        if name == "scaled logits" and not scale > 0:
            continue
        want = fn(z, scale)
        offset = (out - want).reshape(-1, out.shape[-1]).mean(0) if bias else 0.0  # one vector at every position
        if close(out, want + offset, **tol):
            return name, (lambda x, fn=fn, c=scale: fn(x, c))
    return None


def rewritten_by_forward(record: Mapping[str, Any], table: Tensor, logits: Tensor | None, ids: Tensor) -> bool:
    """The forward pass rewrote the shared table itself (max_norm), as far as the judge can check it: the head
    after the forward call (the runner's word) is no longer the table written before it, and the logits for the
    judge's ids are those of that rewritten table, E'[ids] @ E'.T (up to what shape flow judges). A rewrite the
    logits do not show is only claimed, and explains nothing."""
    after = record.get("head_after_forward")
    if not (type(after) is torch.Tensor and after.shape == table.shape and after.dtype == table.dtype):
        return False
    if close(after, table, rtol=0, atol=0) or logits is None:
        return False
    return logits_follow_table(logits, tied_lm_logits(after, ids))


def max_norm_rewrite(record: Mapping[str, Any], table: Tensor, logits: Tensor | None, ids: Tensor) -> Tensor | None:
    """The table as a forward with max_norm on the embedding left it (the runner's record of the head after that
    forward), when the model of that mistake gives what was recorded: the looked-up rows of `table` scaled down
    to one norm (the others untouched), and `logits` those of that table (``rewritten_by_forward``); else None."""
    if not rewritten_by_forward(record, table, logits, ids):
        return None
    after = record["head_after_forward"].double()
    before = table.double()
    rows = torch.unique(ids)
    norms = before[rows].norm(dim=-1)
    cap = float(after[rows].norm(dim=-1).max())
    want = before.clone()
    want[rows] = before[rows] * (cap / norms.clamp_min(1e-12)).clamp(max=1.0).unsqueeze(-1)
    return record["head_after_forward"] if close(after, want, rtol=1e-4, atol=1e-6) else None


def span_residual(output: Tensor, table: Tensor) -> float:
    """How far the rows of `output` (..., V) lie outside span(columns of table (V, D), ones): 0 when the output
    is h @ table.T for some vectors h, up to a per-position offset (a log-softmax) or a softmax (undone
    here); relative to the output's norm (1.0 for an all-zero output, which shows nothing)."""
    x = output.detach().double().reshape(-1, output.shape[-1])
    if bool((x > 0).all()) and close(x.sum(-1), torch.ones(x.shape[0], dtype=x.dtype), atol=1e-4):
        x = x.log()  # probabilities -> log-probabilities: logits up to a per-position offset
    basis = torch.cat([table.detach().double(), torch.ones(table.shape[0], 1, dtype=torch.float64)], dim=1)
    q, _ = torch.linalg.qr(basis)  # (V, D + 1), orthonormal columns
    norm = float(x.norm())
    if norm == 0:
        return 1.0
    return float((x - (x @ q) @ q.T).norm()) / norm


def tied_lm_path_grads(
    table: Tensor, ids: Tensor, upstream: Tensor, post: Callable[[Tensor], Tensor] | None = None
) -> tuple[Tensor, Tensor]:
    """Gradients of sum(post(logits) * upstream) w.r.t. the lookup copy and the head copy of an untied table."""
    e_in = table.detach().clone().requires_grad_(True)  # used only by the lookup
    e_out = table.detach().clone().requires_grad_(True)  # used only by the head
    logits = e_in[ids] @ e_out.T  # (B, T, D) @ (D, V) -> (B, T, V)
    ((post or (lambda z: z))(logits) * upstream).sum().backward()
    return e_in.grad, e_out.grad


def next_token_loss(
    logits_of, ids: Tensor, targets: Tensor | None, *, ignore_index: int = -100, criterion=F.cross_entropy
) -> Tensor:
    """The contract's three target forms, with pristine F.cross_entropy (mean over positions; `ignore_index`
    only to recognise a loss that skips a token id, `criterion` one that feeds another criterion)."""
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
    return criterion(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=ignore_index)


def minigpt_path_grads(
    cfg: Mapping[str, Any],
    shapes: Mapping[str, Any],
    values: int,
    ids: Tensor,
    upstream: Tensor,
    post: tuple[str, Callable[[Tensor], Tensor]] | None = None,
) -> tuple[Tensor, Tensor]:
    """The judge's MiniGPT (sizes as `shapes`, judge_values(values)) with its table untied into a lookup copy
    and a head copy: both copies' gradients of sum(post(model(ids)) * upstream)."""
    name, fn = post or ("logits", lambda z: z)

    def compute():
        model = judge_model(cfg, shapes, values)  # raises if the keys differ
        lookup, head = (model.token_embed.weight.detach().clone().requires_grad_(True) for _ in range(2))
        logits = with_params(model, {"token_embed.weight": lookup, "lm_head.weight": head}, ids)  # untied
        (fn(logits) * upstream).sum().backward()
        return lookup.grad, head.grad

    if name != "logits":  # depends on the submission's own output (a scale), so not shared
        return compute()
    return for_model(cfg, shapes, ("path_grads", values, tensor_key(ids), tensor_key(upstream)), compute)


@torch.no_grad()
def skipped_part(model: MiniGPT, ids: Tensor, output: Tensor, *, tol: dict) -> str | None:
    """Which part of `model`'s forward `output` leaves out (the positional embedding, the decoder blocks, the
    final LayerNorm), if leaving one out explains it; None otherwise."""
    tok = model.token_embed(ids)  # (B, T, D)
    pos = model.pos_embed(torch.arange(ids.shape[1]))  # (T, D)
    variants = {
        "the positional embedding": (tok, True, True),
        "the decoder blocks": (tok + pos, False, True),
        "the final LayerNorm": (tok + pos, True, False),
        "the positional embedding and the decoder blocks": (tok, False, True),
    }
    for name, (h, blocks, norm) in variants.items():
        if blocks:
            for block in model.blocks:
                h = block(h)
        if norm:
            h = model.final_norm(h)
        if output.shape == (want := model.lm_head(h)).shape and close(output, want, **tol):
            return name
    return None


@torch.no_grad()
def other_heads(
    cfg: Mapping[str, Any],
    shapes: Mapping[str, Any],
    values: int,
    ids: Tensor,
    matches: Callable[[Tensor], bool],
    **settings: Any,
) -> int | None:
    """A num_heads other than cfg's with which the judge's MiniGPT of `shapes` (holding judge_values(values), and
    `settings` as ``judge_logits`` takes them) gives logits for `ids` that `matches` accepts: the head count a
    submission really used; None if none does."""
    token = shapes.get("token_embed.weight")
    d = int(token[1]) if isinstance(token, (list, tuple)) and len(token) == 2 else cfg["embed_dim"]
    for h in (1, 2, 3, 4, 6, 8, 12):
        if h == cfg["num_heads"] or d % h:
            continue
        if matches(judge_logits({**cfg, "num_heads": h}, shapes, values, ids, **settings)):
            return h
    return None


def layer_norm_eps(model: MiniGPT, ids: Tensor, output: Tensor, *, tol: dict) -> float | None:
    """An eps with which `model`'s LayerNorms (all of them, or the final one alone) give `output`; None if none
    of the usual ones does."""
    norms = [m for m in model.modules() if hasattr(m, "eps") and hasattr(m, "normalized_shape")]
    for eps in (1e-6, 1e-12, 1e-4, 1e-3, 1e-2, 0.0):
        for chosen in (norms, [model.final_norm]):
            saved = [m.eps for m in chosen]
            try:
                for m in chosen:
                    m.eps = eps
                if close(output, model(ids), **tol):
                    return eps
            finally:
                for m, e in zip(chosen, saved, strict=True):
                    m.eps = e
    return None


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
    "batch rows not independent (row 0's token for every row)": dict(crop="last", position=-1, append=True, row0=True),
}


def variant_matters(variant: str, b: int, t: int, n: int, block: int) -> bool:
    """Whether a simulated mistake can change the output of this case at all (a crop only past block_size,
    a batch mix-up only with several rows)."""
    if variant == "correct":
        return False
    if "crop" in variant and t + n <= block:
        return False
    return not (DECODE_VARIANTS[variant].get("row0") and b == 1)


@torch.no_grad()
def _decode_steps(model: MiniGPT, ids: Tensor, max_new_tokens: int, variant: str):
    """Greedy decoding (or a simulated misconception of it), one step at a time: yields the sequence so far
    (B, T + step) and `last`, the logits (B, V) its newest token was chosen from."""
    how = DECODE_VARIANTS[variant]
    block = model.block_size
    context = ids
    out = ids
    for _ in range(max_new_tokens):
        logits = model(_crop(context, block, how["crop"]))  # (B, t, V)
        pos = how["position"] if logits.size(1) >= abs(how["position"]) or how["position"] >= 0 else -1
        last = logits[:, pos, :]  # (B, V)
        nxt = last.argmax(-1, keepdim=True)  # (B, 1)
        if how.get("row0"):
            nxt = nxt[:1].expand_as(nxt)  # every row continues with row 0's token
        out = torch.cat([out, nxt], dim=1)
        if how["append"]:
            context = out
        yield out, last


@torch.no_grad()
def decode(model: MiniGPT, ids: Tensor, max_new_tokens: int, variant: str = "correct"):
    """Greedy decoding (or a simulated misconception of it).

    Returns (sequence (B, T + n) int64, margins (n, B): top-1 minus top-2 logit, top-1 probs (n, B)).
    """
    out, margins, top1 = ids, [], []
    for sequence, last in _decode_steps(model, ids, max_new_tokens, variant):
        out = sequence
        top = last.topk(2, dim=-1).values  # (B, 2)
        margins.append(top[:, 0] - top[:, 1])
        top1.append(last.softmax(-1).max(-1).values)
    return out, torch.stack(margins), torch.stack(top1)


def decodes_to(model: MiniGPT, ids: Tensor, variant: str, sequence: Tensor) -> bool:
    """Whether decoding `ids` as `variant` gives `sequence` (B, T + n): decode(...)[0] == sequence, stopped at
    the first token that differs (every later token is appended after it, so the sequences differ)."""
    t = ids.shape[1]
    for step, (out, _) in enumerate(_decode_steps(model, ids, sequence.shape[1] - t, variant)):
        if not torch.equal(out[:, t + step], sequence[:, t + step]):
            return False
    return True


def library_tied(evidence) -> bool:
    """The runner reports that TiedEmbeddingLM's pair is a dnnlpy MiniGPT's, tied by the library while it was
    built (``LmIdentity.library_tie``). The runner's word: it only costs (its tests are not credited)."""
    from autograder.graders.weight_tying.runner.evidence import LmIdentity

    rec = evidence.get(LmIdentity.NAME)
    return isinstance(rec, dict) and rec.get(LmIdentity.library_tie) is True


def sizes_ignored(plan, evidence) -> bool:
    """The judge's own finding that the wrapper builds a model of other sizes than asked: the counts
    experiment's state_dict shapes differ from those of a MiniGPT built with the plan's arguments."""
    from autograder.graders.weight_tying.runner.evidence import CountCase, GptCounts
    from autograder.grading.judge.suite_api import shape_dict

    rec = evidence.get(GptCounts.NAME)
    cases = rec.get(GptCounts.cases) if isinstance(rec, dict) else None
    if not isinstance(cases, list) or len(cases) != len(plan["gpt"]["counts"]):
        return False
    for c, got in zip(plan["gpt"]["counts"], cases, strict=True):
        try:
            shapes = shape_dict(got, CountCase.state_shapes, what="model.minigpt.state_dict() shapes")
        except AssertionError:
            continue
        if shapes != cfg_shapes(c["cfg"]):
            return True
    return False
