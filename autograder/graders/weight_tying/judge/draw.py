"""Trusted: the plan's building blocks: ids that cover what a test needs, tables, configurations.

Each helper takes the plan's generator, so a plan is reproducible from its seed. The coverage each one
guarantees is part of the plan's contract (see the table in ``plan.py``): write it down there when you
change it here.
"""

from __future__ import annotations

import math

import torch

from autograder.graders.weight_tying.runner.values import judge_table

__all__ = ["seed_of", "randint", "covering_ids", "rows_to_cover", "table", "cfg", "LM_NORMS"]

# Row norms of TiedEmbeddingLM's tables: a max_norm anywhere below 4 renormalises a looked-up row, and
# the logits (up to 16) stay where a softmax does not underflow to exact zeros in float32.
LM_NORMS = (0.2, 4.0)


def seed_of(g: torch.Generator) -> int:
    return int(torch.randint(0, 2**31 - 1, (1,), generator=g))


def randint(g: torch.Generator, lo: int, hi: int) -> int:
    """An int in [lo, hi)."""
    return int(torch.randint(lo, hi, (1,), generator=g))


def covering_ids(
    g: torch.Generator, vocab: int, b: int, t: int, *, cover: str = "ends", interior: bool = False
) -> torch.Tensor:
    """(b, t) int64 ids in [0, vocab) that hold, whatever the generator draws:

    - `cover="ends"`: ids 0 and vocab - 1 (as far as b * t allows); `cover="all"`: every id;
    - with `interior`, those ids sit in columns 1 .. t-2, so each is both an input and a target of the
      shifted loss (ids[:, :-1] predicts ids[:, 1:]);
    - one id twice within a row (t >= 2) and one id in two rows (b >= 2).
    """
    grid = torch.randint(0, vocab, (b, t), generator=g)
    need = list(range(vocab)) if cover == "all" else sorted({0, vocab - 1})
    need = [need[i] for i in torch.randperm(len(need), generator=g).tolist()]
    cols = list(range(1, t - 1)) if interior and t >= 3 else list(range(t))
    repeats = [spot for spot in ((0, 1) if t >= 2 else None, (1, 0) if b >= 2 else None) if spot is not None]

    def places_for(repeats: list) -> list:
        reserved = {(0, 0), *repeats}
        free = [(r, c) for r in range(b) for c in cols if (r, c) not in reserved]
        return free if cols[0] != 0 else [(0, 0), *free]

    # On a grid too small for everything, the ends of the vocabulary come first, the repeats second.
    while repeats and len(places_for(repeats)) < len(need):
        repeats.pop()
    places = places_for(repeats)
    order = torch.randperm(len(places) - (cols[0] == 0), generator=g).tolist()
    places = places[:1] + [places[1:][i] for i in order] if cols[0] == 0 else [places[i] for i in order]
    if len(need) > len(places):
        if cover == "all":
            raise ValueError(f"({b}, {t}) ids cannot cover {vocab} ids: make the batch larger")
        need = need[: len(places)]
    for (r, c), token in zip(places, need, strict=False):
        grid[r, c] = token
    for spot in repeats:  # copies of grid[0, 0]: one id twice in row 0, and the same id in row 1
        grid[spot] = grid[0, 0]
    return grid[torch.randperm(b, generator=g)]  # the repeats and the coverage survive a row shuffle


def rows_to_cover(vocab: int, t: int, *, interior: bool) -> int:
    """Rows a covering_ids(cover="all") batch of width t needs for `vocab` ids plus its two repeats."""
    per_row = t - 2 if interior else t
    return max(2, math.ceil((vocab + 2) / per_row) + 1)


def table(g: torch.Generator, vocab: int, dim: int, *, norms=LM_NORMS, dtype=torch.float32) -> torch.Tensor:
    """A (vocab, dim) table whose row norms span `norms` (both ends attained), rows in random order."""
    return judge_table(seed_of(g), (vocab, dim), norms=norms).to(dtype)


def cfg(vocab, block, dim, layers, heads, hidden, dropout=0.0) -> dict:
    """The wrapper's seven keyword arguments."""
    return {
        "vocab_size": vocab,
        "block_size": block,
        "embed_dim": dim,
        "num_layers": layers,
        "num_heads": heads,
        "hidden_dim": hidden,
        "dropout": dropout,
    }
