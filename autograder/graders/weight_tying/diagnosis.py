"""Trusted and public: name the misconception behind a wrong weight_tying value, in one place.

Used by the hidden suite (on evidence), by the students' self-check and by the notebook's visible test cells
(on live objects); ``scripts/build_notebook.py`` copies this file into the release as
``weight_tying_diagnosis.py``. Every function returns None when the value is right, else a sentence that
contains the misconception's keyword (MISCONCEPTIONS.md lists them) and the notebook section to reread; no
message prints the line of code that fixes it. Imports torch only.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = [
    "SECTIONS",
    "reread",
    "TOL",
    "TOL64",
    "GRAD_TOL",
    "SCALE_TOL",
    "grad_tol",
    "close",
    "tie_problem",
    "logits_problem",
    "logits_follow_table",
    "gradient_problem",
    "lookup_problem",
    "generated_ids_problem",
    "greedy_problem",
]

TOL = {"rtol": 1e-4, "atol": 1e-5}  # float32 logits and losses of differently written (correct) code
TOL64 = {"rtol": 1e-7, "atol": 1e-9}  # the same in float64
GRAD_TOL = {"rtol": 1e-4, "atol": 1e-6}  # gradients and one SGD step (plus SCALE_TOL of their largest entry)
# float32 sums of many terms differ, between correct implementations, by ~1e-7 of the largest term: an
# absolute tolerance of this much times the largest expected entry keeps them apart from real mistakes.
SCALE_TOL = 1e-5
_RATIO_TOL = {"rtol": 1e-3, "atol": 1e-6}  # recognising "twice" / "half" / "one path" of a gradient

# The notebook's sections (assignments/source/weight_tying/weight_tying.ipynb, "## N. title"), by number.
# A test keeps them in step with the notebook's headings.
SECTIONS = {
    2: "An embedding is a lookup, not arithmetic on ids",
    4: "Positions have their own table, and it is never tied",
    5: "Logits, not probabilities",
    6: "Exercise 1: `TiedEmbeddingLM`",
    7: "Gradients from both ends add up",
    8: "What tying saves",
    9: "Exercise 2: `MiniGPTWithWeightTying`",
}


def reread(*numbers: int) -> str:
    """' (reread section 7, "Gradients from both ends add up")': where the notebook explains the point."""
    parts = [f'section {n}, "{SECTIONS[n]}"' for n in numbers]
    return f" (reread {' and '.join(parts)})"


def grad_tol(expected: Tensor) -> dict:
    """GRAD_TOL, with the absolute part grown by SCALE_TOL times the largest entry of `expected`."""
    scale = float(expected.detach().abs().max()) if expected.numel() else 0.0
    return {"rtol": GRAD_TOL["rtol"], "atol": GRAD_TOL["atol"] + SCALE_TOL * scale}


def close(actual: Tensor, expected: Tensor, *, rtol: float = TOL["rtol"], atol: float = TOL["atol"]) -> bool:
    """allclose in float64, False when the shapes differ."""
    if tuple(actual.shape) != tuple(expected.shape):
        return False
    return bool(torch.allclose(actual.double(), expected.double(), rtol=rtol, atol=atol))


def tie_problem(
    *,
    head_shape: tuple[int, ...],
    table_shape: tuple[int, ...],
    follows: bool,
    same_object: bool,
    same_storage: bool,
    follows_after_forward: bool = False,
    equal_values: bool = False,
    pos_shape: tuple[int, ...] | None = None,
    flag_off: bool = False,
) -> str | None:
    """None when the head behaves as tied; otherwise the misconception behind it.

    `follows`: an in-place change of token_embed.weight shows in lm_head.weight (before any forward call);
    `same_object`: lm_head.weight is token_embed.weight; `same_storage`: they start at one address;
    `follows_after_forward`: the head shows the table only after a forward call; `equal_values`: the two
    hold equal values now; `pos_shape`: the positional table's shape, when there is one; `flag_off`: the head
    belongs to a dnnlpy MiniGPT built with weight_tying=False (or without the flag, which is the same).
    """
    if follows and same_object:
        return None
    if follows and same_storage:
        return (
            ".data sharing: lm_head.weight and token_embed.weight share memory but are two Parameter objects "
            "(e.g. nn.Parameter(token_embed.weight.data)), so their gradients never add up in one .grad, an "
            "optimizer counts the table twice, and the tie breaks on .to(...) or load_state_dict; the head must "
            "hold the embedding's Parameter object itself, not its storage" + reread(6)
        )
    if follows:
        return "the head's weight follows the embedding but is not reported as the same Parameter object" + reread(6)
    if pos_shape is not None and tuple(head_shape) == tuple(pos_shape) != tuple(table_shape):
        return (
            "lm_head.weight has the positional table's shape: positional embedding tied instead of token_embed"
            + reread(4)
        )
    if tuple(head_shape) != tuple(table_shape):
        return (
            f"lm_head.weight has shape {tuple(head_shape)}, expected the embedding's {tuple(table_shape)} (V, D): "
            "transposed (a Linear(D, V) already stores its weight as (V, D)), or not the embedding's table" + reread(6)
        )
    if flag_off and not follows_after_forward:
        return (
            "untied head: model.minigpt was built with weight_tying=False, which is also what leaving the flag out "
            "gives (MiniGPT ties only when asked), so its lm_head keeps a second (V, D) table of its own" + reread(9)
        )
    if follows_after_forward:
        return (
            "right after construction the head is not tied; it only becomes tied when forward() runs: "
            "tied only after forward (tie once, when the model is built)" + reread(6)
        )
    if equal_values:
        return (
            "copied table: lm_head.weight holds a copy of token_embed.weight (same values, separate memory, e.g. "
            ".clone(), copy_() or copy.deepcopy); the two drift apart after the first optimizer step: the head "
            "must hold the embedding's Parameter object itself" + reread(6)
        )
    return (
        "after an in-place change of token_embed.weight (before any forward call), lm_head.weight did not "
        "change: copied table or untied head (copy.deepcopy / .clone() / a new nn.Parameter make a second "
        "table; the head must hold the embedding's Parameter object itself)" + reread(6)
    )


def logits_problem(
    logits: object, expected: Tensor, *, block_size: int | None = None, tol: dict | None = None
) -> str | None:
    """None when `logits` equals `expected` (B, T, V) within `tol`; else the mistake it looks like."""
    tol = tol or TOL
    if not isinstance(logits, Tensor):
        return f"forward must return a tensor of logits, got {type(logits).__name__}"
    logits = logits.detach()
    got, want = tuple(logits.shape), tuple(expected.shape)
    if got != want:
        b, t, v = want
        if block_size is not None and len(got) == 3 and got[-1] == block_size != v:
            return (
                f"logits have shape {got}, expected {want}: the head scores positions, not tokens "
                f"(positional embedding tied)" + reread(4)
            )
        if got == (b, t):
            return (
                f"forward returns token ids (an argmax?) of shape {got}: it must return logits (B, T, V) = {want}"
                + reread(5)
            )
        if got == (b * t, v):
            return f"forward returns flattened logits {got}: keep the (B, T, V) = {want} shape" + reread(6)
        return (
            f"logits have shape {got}, expected {want} = (B, T, V): transposed / wrong matmul (the head maps each "
            f"D-vector to V scores with the (V, D) table), or vectors that never went through the head" + reread(6)
        )
    if not logits.is_floating_point():
        return f"forward must return floating-point logits, got dtype {logits.dtype}" + reread(5)
    if close(logits, expected, **tol):
        return None
    sums = logits.sum(-1)
    if close(sums, torch.ones_like(sums), atol=1e-4) and bool((logits >= 0).all()):
        return (
            "every row sums to 1: probabilities instead of logits (return the raw scores; softmax belongs in "
            "the loss / sampling)" + reread(5)
        )
    lse = torch.logsumexp(logits.double(), dim=-1)
    if close(lse, torch.zeros_like(lse), atol=1e-4):
        return (
            "every row is a log-distribution (logsumexp = 0): log-probabilities (log_softmax) instead of logits, "
            "i.e. probabilities instead of logits (return the raw scores)" + reread(5)
        )
    e, g = expected.double().flatten(), logits.double().flatten()
    scale = float((e @ g) / (e @ e)) if float(e @ e) > 0 else 0.0
    if abs(scale - 1) > 1e-3 and abs(scale) > 1e-6 and close(g, scale * e, rtol=1e-4, atol=1e-5):
        return (
            f"logits are {scale:.4g} times the expected ones: logits scaled (no extra factor such as sqrt(D))"
            + reread(6)
        )
    diff = (logits - expected).double()
    flat = diff.reshape(-1, diff.shape[-1])
    if flat.shape[0] > 1 and close(flat, flat[:1].expand_as(flat), atol=1e-4) and flat.abs().max() > 1e-4:
        return (
            "logits are off by the same vector at every position: bias on the head (the tied head has no bias)"
            + reread(6)
        )
    return f"logits have the right shape but wrong values (largest difference {float(diff.abs().max()):.3g})"


def logits_follow_table(logits: Tensor, expected: Tensor) -> bool:
    """True when `logits` is `expected` up to what shape flow judges separately: a per-token bias, a
    per-position offset or normalisation (softmax / log_softmax) and a positive scale.

    Lets the identity checks demand that the head really uses the shared table without failing a
    submission a second time for a bias or a softmax.
    """
    if logits.shape != expected.shape or logits.numel() == 0:
        return False
    x = logits.double().reshape(-1, logits.shape[-1])
    y = expected.double().reshape(-1, expected.shape[-1])
    if bool((x > 0).all()) and close(x.sum(-1), torch.ones(x.shape[0], dtype=x.dtype), atol=1e-4):
        x = x.log()  # probabilities -> log-probabilities (a per-position offset of the logits)

    def centred(m):
        return m - m.mean(0, keepdim=True) - m.mean(1, keepdim=True) + m.mean()

    xc, yc = centred(x), centred(y)
    norm = float(yc.norm())
    if norm == 0:
        return bool(float(xc.norm()) < 1e-6)
    scale = float((xc * yc).sum()) / norm**2
    return scale > 0 and float((xc - scale * yc).norm()) <= 1e-3 * norm * max(scale, 1e-12)


def _row_problem(grad: Tensor, g_in: Tensor, g_out: Tensor) -> str | None:
    """The mistake behind a gradient right on some rows (ids) only, if it is one of the embedding options."""
    total = g_in + g_out
    tol = grad_tol(total)
    wrong = (~torch.isclose(grad.double(), total.double(), **tol)).any(dim=-1).nonzero().flatten().tolist()
    if not wrong or len(wrong) == grad.shape[0]:
        return None
    looked_up = [r for r in wrong if float(g_in[r].abs().max()) > 0]
    if looked_up and all(close(grad[r], g_out[r], **_RATIO_TOL) for r in looked_up):
        return (
            f"rows {looked_up[:5]} of the shared gradient hold only the head-path part, every other row both "
            f"parts: the lookup never passes a gradient to those ids (padding_idx on the embedding)" + reread(7, 2)
        )
    shares = [
        float((grad[r] - g_out[r]).double() @ g_in[r].double() / (g_in[r].double() @ g_in[r].double()))
        for r in looked_up
    ]
    if looked_up and all(s > 0 and abs(1 / s - round(1 / s)) < 1e-3 and round(1 / s) >= 2 for s in shares):
        return (
            f"rows {looked_up[:5]} get their lookup-path gradient divided by how often the id occurs in the batch: "
            f"scale_grad_by_freq on the embedding (the shared gradient is the plain sum of both paths)" + reread(7, 2)
        )
    return None


def gradient_problem(grad: Tensor | None, g_in: Tensor, g_out: Tensor, *, same_object: bool) -> str | None:
    """None when the shared .grad is g_in + g_out (lookup path + head path); else why not."""
    if grad is None:
        return "token_embed.weight.grad is None: the shared table got no gradient (is it detached or frozen?)" + reread(
            7
        )
    if grad.is_sparse:
        grad = grad.to_dense()
    total = g_in + g_out
    if close(grad, total, **grad_tol(total)):
        return None
    if close(grad, 2 * total, **_RATIO_TOL):
        return "gradient doubled: the shared gradient is twice the sum of both paths" + reread(7)
    if close(grad, 0.5 * total, **_RATIO_TOL):
        return "gradient halved: the shared gradient is half the sum of both paths" + reread(7)
    if close(grad, g_in, **_RATIO_TOL) or close(grad, g_out, **_RATIO_TOL):
        path = "embedding" if close(grad, g_in, **_RATIO_TOL) else "head"
        if not same_object:
            return (
                f"token_embed.weight.grad holds only the {path}-path gradient and lm_head.weight.grad is another "
                f"tensor: .data sharing (or an untied/copied table) gives two Parameters, so the two uses "
                f"never add up in one .grad (only one path)" + reread(7)
            )
        return (
            f"the shared gradient holds only the {path}-path gradient (only one path): is one use detached?" + reread(7)
        )
    rows = _row_problem(grad, g_in, g_out)
    if rows is not None:
        return rows
    return "the shared gradient is not the sum of the embedding-path and head-path gradients" + reread(7)


def lookup_problem(hidden: Tensor, table: Tensor, ids: Tensor) -> str | None:
    """None when `hidden` (B, T, D) is the rows table[ids]; else what the lookup did instead."""
    want = table[ids]
    if tuple(hidden.shape) != tuple(want.shape):
        return (
            f"token_embed(input_ids) has shape {tuple(hidden.shape)}, expected (B, T, D) = {tuple(want.shape)}"
            + reread(2)
        )
    if close(hidden, want):
        return None
    h, w = hidden.double().reshape(-1, want.shape[-1]), want.double().reshape(-1, want.shape[-1])
    cos = (h * w).sum(-1) / (h.norm(dim=-1) * w.norm(dim=-1)).clamp_min(1e-12)
    cap = float(h.norm(dim=-1).max())
    if bool((cos > 1 - 1e-5).all()) and close(h.norm(dim=-1), w.norm(dim=-1).clamp(max=cap), rtol=1e-4, atol=1e-6):
        return (
            f"token_embed(input_ids) returns the right rows with their norms capped at {cap:.3g}: max_norm on the "
            f"embedding renormalises (and rewrites) every looked-up row" + reread(2)
        )
    return "token_embed(input_ids) is not the rows E[input_ids]" + reread(2)


def generated_ids_problem(seq: object, prompt: Tensor, max_new_tokens: int, *, check_prompt: bool = True) -> str | None:
    """None when `seq` is int64 of shape (B, T + max_new_tokens) starting with the prompt (unless not
    `check_prompt`); else what is off."""
    b, t = prompt.shape
    want = (b, t + max_new_tokens)
    if not isinstance(seq, Tensor):
        return f"generate must return a tensor of token ids, got {type(seq).__name__}"
    if seq.dtype != torch.int64:
        return (
            f"generate returned dtype {seq.dtype}: not int64 (token ids are integers: a dtype slip; the result is "
            f"the prompt's own int64 ids followed by the new ones)" + reread(9)
        )
    if tuple(seq.shape) != want:
        hint = "only the new tokens" if tuple(seq.shape) == (b, max_new_tokens) else "a wrong number of new tokens"
        return (
            f"generate returned shape {tuple(seq.shape)}, expected (B, T + max_new_tokens) = {want}: wrong length, "
            f"{hint} (prompt not preserved, or not exactly max_new_tokens new tokens)" + reread(9)
        )
    if check_prompt and not torch.equal(seq[:, :t], prompt):
        return "the first T columns are not the prompt: prompt not preserved" + reread(9)
    return None


def greedy_problem(seq: Tensor, expected: Tensor, *, again: Tensor | None = None) -> str | None:
    """None when `seq` is the greedy decoding `expected` (and a second call `again` repeats it); else why not.

    Both are (B, T + n) int64 with the prompt in front (see generated_ids_problem).
    """
    if again is not None and (again.shape != seq.shape or not torch.equal(again, seq)):
        return (
            "two calls returned different tokens: sampling instead of argmax (greedy decoding takes the most "
            "likely token every step)" + reread(9)
        )
    if torch.equal(seq, expected):
        return None
    row, col = (seq != expected).nonzero()[0].tolist()
    return (
        f"the tokens differ from greedy decoding at row {row}, position {col}: each step runs the model on the "
        "last block_size tokens and appends the argmax of the LAST position's logits (wrong crop, wrong position, "
        "missing append, or sampling instead of argmax)" + reread(9)
    )
