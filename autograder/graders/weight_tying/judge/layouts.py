"""Trusted: the judge's models of what a forward pass may return instead of (B, T, V) logits.

A forward whose output has another shape is named `logits_shape` only when its values are the right logits (or
the right vectors) in another layout, value for value within the test's tolerance: every position flattened
into rows, the last (or first) position alone, the vocabulary and positions swapped, a batch of one squeezed,
the ids of the argmax, or the vectors before the head. Output of another shape that none of these gives (zeros
of the right size, anything made up) names nothing: it costs the test its own points. Scores of the positions
(the head tied to the positional table) are named by their own model.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from autograder.graders.weight_tying.diagnosis import close

__all__ = ["LAYOUTS", "layout_of", "before_head", "scores_positions"]

# Each layout as a function of the right logits (B, T, V) and the vectors before the head (B, T, D).
LAYOUTS: dict[str, Callable[[Tensor, Tensor | None], Tensor | None]] = {
    "every position flattened into rows": lambda z, h: z.reshape(-1, z.shape[-1]),
    "the last position only": lambda z, h: z[:, -1],
    "the first position only": lambda z, h: z[:, 0],
    "positions and vocabulary swapped": lambda z, h: z.transpose(1, 2),
    "the batch dimension squeezed": lambda z, h: z.squeeze(0) if z.shape[0] == 1 else None,
    "the ids of the largest logits": lambda z, h: z.argmax(-1),
    "the vectors before the head": lambda z, h: h,
}


def layout_of(output: Tensor, logits: Tensor, hidden: Tensor | None, *, tol: dict) -> str | None:
    """The layout in which `output` holds the right `logits` (or the vectors `hidden` before the head), value for
    value within `tol`; None when no layout gives it (then its shape names no misconception)."""
    for name, layout in LAYOUTS.items():
        want = layout(logits, hidden)
        if want is None or tuple(want.shape) != tuple(output.shape):
            continue
        if want.numel() < 2 or bool((want == want.flatten()[0]).all()):  # a constant shows no layout
            continue
        if not want.is_floating_point():
            if not output.is_floating_point() and torch.equal(output.long(), want):
                return name
            continue
        if output.is_floating_point() and close(output, want, **tol):
            return name
    return None


@torch.no_grad()
def before_head(model, ids: Tensor) -> Tensor:
    """The vectors a MiniGPT hands its head, (B, T) -> (B, T, D): the final LayerNorm's output."""
    x = model.token_embed(ids) + model.pos_embed(torch.arange(ids.shape[1]))
    for block in model.blocks:
        x = block(x)
    return model.final_norm(x)


@torch.no_grad()
def scores_positions(output: Tensor, model, ids: Tensor, *, tol: dict) -> bool:
    """`output` (B, T, block_size) is what a head tied to the positional table gives: the vectors before the head
    scored against the positions' rows, value for value."""
    want = before_head(model, ids) @ model.pos_embed.weight.T  # (B, T, D) @ (D, block_size)
    return tuple(want.shape) == tuple(output.shape) and output.is_floating_point() and close(output, want, **tol)
