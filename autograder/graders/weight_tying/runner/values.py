"""Both sides: the judge's weights for a state_dict of any shape, reproducible from a plan seed.

The runner loads them into the student's modules before it measures anything, and the judge fills its own
MiniGPT with the very same values, so every expected value comes from weights the judge chose, never from
what a submission reports about itself. Shapes may come from the student (a MiniGPT built with an ignored
hyper-parameter is judged as built, see ``judge/reference.py``); values never do.

Imports only torch and the standard library (the sandbox shows ``runner/`` and nothing else of the grader).

A warm worker's fork server draws what every run of a plan will draw before it forks the plan's first run
(``remember``, from ``warm.plan_ready``): its runs copy those values where each drew them, ~5 of a run's ~60 ms. Only
a memo of the same function: a value it misses is drawn as before, one it holds is the very tensor the draw
makes; what a submission does to its copy changes its own run alone. The judge's process never fills it.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence

import torch

__all__ = ["TABLE_KEY", "TABLE_NORMS", "judge_values", "judge_table", "load_judge_values", "state_shapes", "values_for"]
__all__ += ["remember", "remember_table", "forget"]

TABLE_KEY = "token_embed.weight"
# Row norms of every token table, log-spread over this range with both ends attained: a max_norm below
# the top renormalises a looked-up row, so an `nn.Embedding(..., max_norm=...)` changes the logits.
TABLE_NORMS = (0.3, 3.0)
# A tied head shows its table's values: loading "lm_head.weight" writes the same numbers into one Parameter.
_SAME_AS = {"lm_head.weight": TABLE_KEY}
# What a fork server drew for the plan its runs grade (``remember``): (seed, key, shape, gain) -> values, and
# (seed, shape, gain, norms) -> a token table. Empty in every other process.
_DRAWN: dict[tuple, torch.Tensor] = {}
_TABLES: dict[tuple, torch.Tensor] = {}


def _generator(seed: int, key: str, generator: torch.Generator | None = None) -> torch.Generator:
    """`generator` (a new one when None) seeded for (seed, key): one stream per entry, so an entry's values do
    not depend on which other keys the state has."""
    stream = (int(seed) * 1_000_003 + zlib.crc32(key.encode())) % (2**62)
    return (torch.Generator() if generator is None else generator).manual_seed(stream)


def judge_table(seed: int, shape: Sequence[int], *, gain: float = 1.0, norms=TABLE_NORMS) -> torch.Tensor:
    """A (V, D) float32 token table whose row norms run from norms[0] to norms[1] (times gain), in random order."""
    return _table(int(seed), tuple(int(n) for n in shape), float(gain), tuple(norms))


def judge_values(seed: int, key: str, shape: Sequence[int], *, gain: float = 1.0) -> torch.Tensor:
    """float32 values for one state_dict entry: a function of (seed, key, shape) alone.

    The token table (and a head tied to it) gets `judge_table`; other matrices N(0, 1/fan_in) * gain;
    biases N(0, 0.1^2) * gain; other vectors (LayerNorm scales) 1 + N(0, 0.3^2). A small gain makes every
    activation small, so a LayerNorm's eps decides its output.
    """
    return _values(int(seed), _SAME_AS.get(key, key), tuple(int(n) for n in shape), float(gain))


# Not memoised: shapes may come from a submission, and the judge grades many (``judge/models.py`` keeps the
# plan's own models instead). A draw costs microseconds at the sizes the judge builds.
def _table(seed: int, shape: tuple[int, ...], gain: float, norms: tuple[float, float]) -> torch.Tensor:
    kept = _TABLES.get((seed, shape, gain, norms))
    if kept is not None:
        return kept.clone()  # a caller may write into the table it is handed
    return _drawn_table(seed, shape, gain, norms)


def _drawn_table(seed: int, shape: tuple[int, ...], gain: float, norms: tuple[float, float]) -> torch.Tensor:
    v, d = shape
    g = _generator(seed, TABLE_KEY)
    rows = torch.randn(v, d, generator=g)
    rows = rows / rows.norm(dim=1, keepdim=True).clamp_min(1e-6)  # unit rows
    lo, hi = math.log(norms[0]), math.log(norms[1])
    spread = torch.linspace(lo, hi, v).exp() if v > 1 else torch.tensor([norms[1]])
    order = torch.randperm(v, generator=g)
    return rows * spread[order][:, None] * gain


def _values(seed: int, key: str, shape: tuple[int, ...], gain: float) -> torch.Tensor:
    if key == TABLE_KEY and len(shape) == 2:
        return _table(seed, shape, gain, TABLE_NORMS)
    out = torch.empty(shape)  # randn's own first step: the draw below is randn's
    _values_into(out, torch.Generator(), seed, key, shape, gain)
    return out


def state_shapes(module, state: Mapping | None = None) -> dict[str, list[int]]:
    """{key: shape} of module.state_dict() (or of `state`, a state_dict of it already taken)."""
    return {k: list(v.shape) for k, v in (module.state_dict() if state is None else state).items()}


def load_judge_values(module, seed: int, *, gain: float = 1.0) -> dict[str, list[int]]:
    """Write judge_values into every floating-point entry of module.state_dict(), in place (a tie stays a
    tie); return the state's shapes, which is all the judge needs to rebuild the same model (read from the
    same state_dict: writing in place changes no shape, and a second state_dict() cost as much again)."""
    state = module.state_dict()
    written = set()
    seed, gain = int(seed), float(gain)
    draw = torch.Generator()  # reseeded per key: the same stream _generator makes, one object for the module
    with torch.no_grad():
        for key, value in state.items():
            if not (isinstance(value, torch.Tensor) and value.is_floating_point()):
                continue
            shape = tuple(value.shape)
            place = (value.data_ptr(), shape)
            if place in written:  # a second name for a table already written (a tie, an alias): keep the first
                continue
            written.add(place)
            key = _SAME_AS.get(key, key)
            if type(value) is torch.Tensor and value.dtype == torch.float32 and value.is_contiguous():
                _values_into(value, draw, seed, key, shape, gain)
            else:  # a subclass sees only the copy_ it always saw; another dtype is drawn in float32, then cast
                value.copy_(judge_values(seed, key, value.shape, gain=gain))
    return state_shapes(module, state)


def _values_into(out: torch.Tensor, draw: torch.Generator, seed: int, key: str, shape: tuple, gain: float) -> None:
    """The values of (seed, key, shape, gain) drawn in place into a contiguous float32 `out` with `draw`
    reseeded for the entry: the one rule ``judge_values`` and ``load_judge_values`` share, the latter without a
    temporary per entry (a state has ~20 entries, and each temporary cost as much as the draw)."""
    kept = _DRAWN.get((seed, key, shape, gain))
    if kept is not None:  # what the same draw made before the fork (``remember``)
        out.copy_(kept)
        return
    if key == TABLE_KEY and len(shape) == 2:
        out.copy_(_table(seed, shape, gain, TABLE_NORMS))
        return
    out.normal_(generator=_generator(seed, key, draw))
    if len(shape) >= 2:
        out.mul_(gain / math.sqrt(max(shape[-1], 1)))
    elif key.endswith("bias"):
        out.mul_(0.1 * gain)
    else:
        out.mul_(0.3).add_(1.0)


def values_for(seed: int, shapes: Mapping[str, Sequence[int]], *, gain: float = 1.0) -> dict[str, torch.Tensor]:
    """judge_values for every key of `shapes` (the judge's side of load_judge_values)."""
    return {k: judge_values(seed, k, s, gain=gain) for k, s in shapes.items()}


def remember(seed: int, shapes: Mapping[str, Sequence[int]], *, gain: float = 1.0) -> None:
    """Draw now the values ``load_judge_values(module, seed, gain=gain)`` writes into a state of these `shapes`
    ({key: shape}, every entry floating-point), so that a later load copies them instead of drawing them."""
    seed, gain = int(seed), float(gain)
    for key, shape in shapes.items():
        key, shape = _SAME_AS.get(key, key), tuple(int(n) for n in shape)
        if (seed, key, shape, gain) not in _DRAWN:
            out = torch.empty(shape)
            _values_into(out, torch.Generator(), seed, key, shape, gain)
            _DRAWN[(seed, key, shape, gain)] = out


def remember_table(seed: int, shape: Sequence[int], *, gain: float = 1.0) -> None:
    """Draw now the table ``judge_table(seed, shape, gain=gain)`` returns (the default row norms)."""
    seed, shape, gain = int(seed), tuple(int(n) for n in shape), float(gain)
    if (seed, shape, gain, TABLE_NORMS) not in _TABLES:
        _TABLES[(seed, shape, gain, TABLE_NORMS)] = _drawn_table(seed, shape, gain, TABLE_NORMS)


def forget() -> None:
    """Drop what ``remember`` and ``remember_table`` drew (another plan's runs come next)."""
    _DRAWN.clear()
    _TABLES.clear()
