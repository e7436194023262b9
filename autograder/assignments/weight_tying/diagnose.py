"""Name the misconception behind a wrong value (trusted side; used by the suite's failure messages).

Each function gets the wrong evidence and the judge's expected values and returns a short phrase that
contains the keyword listed in MISCONCEPTIONS.md, or a generic description when nothing is recognised.
"""
from __future__ import annotations

import torch

from autograder.judging import close

__all__ = ["logits_problem", "gradient_problem", "head_follow_problem", "logits_follow_table"]


def logits_problem(logits: torch.Tensor, expected: torch.Tensor, *, block_size: int | None = None) -> str:
    """Why `logits` differs from `expected` (same leading shape (B, T, ...))."""
    if logits.shape[:-1] != expected.shape[:-1] or logits.shape[-1] != expected.shape[-1]:
        got, want = tuple(logits.shape), tuple(expected.shape)
        if block_size is not None and logits.shape[-1] == block_size != expected.shape[-1]:
            return (
                f"logits have shape {got}, expected {want}: the head scores positions, not tokens "
                f"(positional embedding tied)"
            )
        return (
            f"logits have shape {got}, expected {want} = (B, T, V): transposed / wrong matmul "
            f"(the head must map (B, T, D) -> (B, T, V) with x @ W.T, W of shape (V, D))"
        )
    if logits.is_floating_point() and close(logits.sum(-1), torch.ones_like(logits.sum(-1)), atol=1e-4) and bool(
        (logits >= 0).all()
    ):
        return (
            "every row sums to 1: probabilities instead of logits (return the raw scores; softmax belongs in "
            "the loss / sampling)"
        )
    lse = torch.logsumexp(logits.double(), dim=-1)
    if logits.is_floating_point() and close(lse, torch.zeros_like(lse), atol=1e-4):
        return (
            "every row is a log-distribution (logsumexp = 0): log-probabilities (log_softmax) instead of logits, "
            "i.e. probabilities instead of logits (return the raw scores)"
        )
    e, g = expected.double().flatten(), logits.double().flatten()
    scale = float((e @ g) / (e @ e)) if float(e @ e) > 0 else 0.0
    if abs(scale - 1) > 1e-3 and abs(scale) > 1e-6 and close(g, scale * e, rtol=1e-4, atol=1e-5):
        return f"logits are {scale:.4g} times the expected ones: logits scaled (no extra factor such as sqrt(D))"
    diff = (logits - expected).double()
    flat = diff.reshape(-1, diff.shape[-1])
    if flat.shape[0] > 1 and close(flat, flat[:1].expand_as(flat), atol=1e-4) and flat.abs().max() > 1e-4:
        return "logits are off by the same vector at every position: bias on the head (the tied head has no bias)"
    err = float(diff.abs().max())
    return f"logits have the right shape but wrong values (largest difference {err:.3g})"


def gradient_problem(grad: torch.Tensor, g_in: torch.Tensor, g_out: torch.Tensor, *, same_object: bool) -> str:
    """Why the shared gradient differs from g_in + g_out (embedding path + head path)."""
    total = g_in + g_out
    if close(grad, 2 * total, rtol=1e-3, atol=1e-6):
        return "gradient doubled: the shared gradient is twice the sum of both paths"
    if close(grad, 0.5 * total, rtol=1e-3, atol=1e-6):
        return "gradient halved: the shared gradient is half the sum of both paths"
    if close(grad, g_in, rtol=1e-3, atol=1e-6) or close(grad, g_out, rtol=1e-3, atol=1e-6):
        path = "embedding" if close(grad, g_in, rtol=1e-3, atol=1e-6) else "head"
        if not same_object:
            return (
                f"token_embed.weight.grad holds only the {path}-path gradient and lm_head.weight.grad is another "
                f"tensor: .data sharing (or an untied/copied table) gives two Parameters, so the two uses "
                f"never add up in one .grad (only one path)"
            )
        return f"the shared gradient holds only the {path}-path gradient (only one path): is one use detached?"
    return "the shared gradient is not the sum of the embedding-path and head-path gradients"


def head_follow_problem(
    head_before_forward: torch.Tensor,
    head_after_forward: torch.Tensor | None,
    target: torch.Tensor,
    *,
    is_reported: bool,
    same_data_ptr: bool,
    pos_embed: torch.Tensor | None = None,
) -> str | None:
    """None when the head behaves as tied; otherwise the misconception behind it."""
    follows = head_before_forward.shape == target.shape and close(head_before_forward, target, rtol=0, atol=0)
    if follows and is_reported:
        return None
    if follows and same_data_ptr:
        return (
            "the head sees in-place changes but lm_head.weight is not the embedding's Parameter object: "
            ".data sharing (two Parameters over one storage; their gradients never add up in one .grad). "
            "Assign the Parameter itself: lm_head.weight = token_embed.weight"
        )
    if follows:
        return "the head's weight follows the embedding but is not reported as the same Parameter object"
    if pos_embed is not None and head_before_forward.shape == pos_embed.shape:
        return "lm_head.weight has the positional table's shape: positional embedding tied instead of token_embed"
    if head_before_forward.shape != target.shape:
        return (
            f"lm_head.weight has shape {tuple(head_before_forward.shape)}, expected the embedding's "
            f"{tuple(target.shape)} (V, D): transposed, or not the embedding's table"
        )
    if head_after_forward is not None and head_after_forward.shape == target.shape and close(
        head_after_forward, target, rtol=0, atol=0
    ):
        return (
            "right after construction the head is not tied; it only becomes tied when forward() runs: "
            "tied only after forward (tie once in __init__)"
        )
    return (
        "after an in-place change of model.token_embed.weight (before any forward call), model.lm_head.weight "
        "did not change: copied table or untied head (copy.deepcopy / .clone() / a new nn.Parameter make a second "
        "table; assign the Parameter itself: lm_head.weight = token_embed.weight)"
    )


def logits_follow_table(logits: torch.Tensor, expected: torch.Tensor) -> bool:
    """True when `logits` is `expected` up to what shape flow judges separately: a per-token bias, a
    per-position offset or normalisation (softmax / log_softmax) and a positive scale.

    Lets the identity tests demand that the head really uses the shared table without failing a
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
