"""Trusted: the judge's random choices for one grading run of weight_tying, covering by construction.

Everything here is plain data (tensors, ints, floats, str, lists, dicts) so the runner can receive it
as one frame (`autograder.protocol.frames`). Sizes are tiny on purpose.

A plan is random, but what each test relies on is not left to chance: every seed's plan holds the
guarantees below (``tests/autograder/graders/weight_tying/test_plan.py`` checks them on many seeds). Two
students with the same mistake get the same mark, whatever the seed.

Each guarantee, the mistake it exposes on every seed, and the tests that rely on it:

1. The gradient ids (`lm.ids`, `gpt.ids`) hold every id of [0, V), so 0 and V-1, one id twice in a row
   and one id in two rows: every row the gradient claim covers is reached by the lookup path and the head
   path. Exposes a row without its lookup-path gradient (`padding_idx=k`), `scale_grad_by_freq`, any
   per-row slip. -> `test_*_shared_gradient_is_sum_of_paths`, `test_*_sgd_step_updates_table_once`.
2. Table rows have norms from 0.2 to 4 (`lm`) and 0.3 to 3 (`gpt`, `runner/values.py`), all looked up.
   Exposes `nn.Embedding(..., max_norm=m)` for any m below the top norm. -> shape flow, identity, gradients.
3. `gpt.ids` hold every id in columns 1..T-2 (each is an input and a target of the shifted loss); both
   target tensors hold 0 and V-1; B is neither T nor T-1. Exposes `ignore_index`, a shift that drops or
   swaps an end column, either end of the vocabulary, a target shape compared the wrong way round (B and T
   swapped). -> `test_wrapper_loss_*`.
4. Shape cases have B = 1, T = 1, T < block_size and T = block_size; ids 0 and V-1 in every case of 2+
   ids. Exposes a `squeeze()` of a size-1 dim, a positional table read off by one, a crop in forward.
   -> `test_*_shapes_and_values`, `test_*_float64`.
5. One wrapper shape case has tiny weights (every activation ~3e-3), so a LayerNorm's eps dominates the
   variance it divides by. Exposes a LayerNorm built with another `eps`. -> `test_wrapper_shapes_and_values`.
6. Generation prompts are shorter than, equal to and longer than block_size, with B = 1 and B = 3; every
   simulated decoding mistake (reference.DECODE_VARIANTS, row 0's token for every row included) changes the
   output and each greedy step wins by >= MIN_MARGIN. Exposes no / wrong crop, wrong position, missing
   append, `.item()` / `squeeze()` batch bugs, sampling.
   -> `test_generate_*`.
7. V, D and block_size are pairwise distinct, and the wrapper's tables have V >= D + 2. A transposed head
   raises; a tied positional table shows in its shape; "the logits come from this table" is a real test
   (the table's columns span a proper subspace of the V scores). -> identity, counts, shape flow.
8. Count configurations move one hyper-parameter at a time away from its default (num_heads and dropout
   included); head counts 1 / 4 / 6 at equal shapes; dropout 1 (train-mode logits fully determined) and 0.
   Exposes an ignored hyper-parameter, in the state_dict test and in the hyper-parameter's own test.
   -> parameter counts.

9. One TiedEmbeddingLM shape case has V = D (the others V != D): a transposed product x @ W runs only there and
   gives E[ids] @ E, so a head that raises on every other case is named transposed, not a crash.
   -> `test_tied_lm_shapes_and_values` (and, as its knock-ons, the tests that need forward).

Values the experiments load into the student's modules come from ``runner/values.py`` (judge_values of a
plan seed, for whatever shapes the student's state_dict has); generation loads the states drawn here.
"""

from __future__ import annotations

import math

import torch

from autograder.graders.weight_tying.judge.draw import cfg, covering_ids, randint, rows_to_cover, seed_of, table
from autograder.graders.weight_tying.judge.reference import (
    DECODE_VARIANTS,
    build_minigpt,
    decode,
    decodes_to,
    variant_matters,
)

__all__ = ["make_plan", "MIN_MARGIN", "VERSION"]

VERSION = 4
# Greedy steps must win by at least this logit margin, so that float noise of a differently written
# (but correct) model cannot flip an argmax.
MIN_MARGIN = 0.02
# Probability that sampling reproduces the whole greedy path must be below this (long case; the short
# case only needs 1e-2 since both cases and two runs are judged together).
MAX_SAMPLING_AGREEMENT = 1e-6


def _pick_vd(g: torch.Generator) -> tuple[int, int]:
    """V != D, both small."""
    while True:
        v, d = randint(g, 5, 40), randint(g, 2, 24)
        if v != d:
            return v, d


def _square_case(g: torch.Generator) -> dict:
    """A TiedEmbeddingLM shape case with V = D: a transposed product (x @ W) runs there, where every other case
    raises, and shows as E[ids] @ E (guarantee 9)."""
    v = randint(g, 6, 16)
    return {"vocab_size": v, "embed_dim": v, "seed": seed_of(g), "ids": covering_ids(g, v, 2, 3), "W": table(g, v, v)}


def _behaviour_count_cases(g: torch.Generator, base: dict) -> list[dict]:
    """Count cases that move num_heads, then dropout, away from their defaults (guarantee 8): the state_dict
    test then sees every hyper-parameter the wrapper is given, as the dedicated tests do."""
    c = base["cfg"]
    return [
        {"cfg": {**c, "num_heads": 2}, "values": seed_of(g), "table": seed_of(g), "ids": base["ids"]},
        {"cfg": {**c, "dropout": 0.25}, "values": seed_of(g), "table": seed_of(g), "ids": base["ids"]},
    ]


def _lm_plan(g: torch.Generator) -> dict:
    v, d = _pick_vd(g)
    t = max(5, math.ceil((v + 2) / 3))  # 3 rows that hold every id, plus the two repeats
    ids = covering_ids(g, v, 3, t, cover="all")
    shapes = []
    # B = 1 and T = 1 always included, then random sizes.
    for b, t_ in [(1, 1), (1, 4), (3, 1), (2, 6), (4, 3)]:
        sv, sd = _pick_vd(g)
        shapes.append(
            {
                "vocab_size": sv,
                "embed_dim": sd,
                "seed": seed_of(g),
                "ids": covering_ids(g, sv, b, t_),
                "W": table(g, sv, sd),
            }
        )
    return {
        "vocab_size": v,
        "embed_dim": d,
        "seed": seed_of(g),
        "ids": ids,
        "W1": table(g, v, d),
        "W2": table(g, v, d),
        "W3": table(g, v, d, dtype=torch.float64),
        "G": torch.randn(*ids.shape, v, generator=g),
        "lr": 0.1,
        "shapes": shapes,
    }


def _state(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _generation_case(g: torch.Generator, cfg_: dict, b: int, t: int, n: int, agreement: float) -> dict:
    """Weights and prompts whose greedy path every simulated misconception gets wrong."""
    for _ in range(200):
        with torch.random.fork_rng():  # keep the grader's global RNG untouched
            torch.manual_seed(seed_of(g))
            model = build_minigpt(cfg_).eval()
        with torch.no_grad():
            # Scale the GPT-2 init up so the next token depends sharply on the whole context.
            for name, p in model.named_parameters():
                if p.dim() >= 2 and "lm_head" not in name:
                    p.mul_(float(torch.empty(1).uniform_(15.0, 40.0, generator=g)))
        ids = covering_ids(g, cfg_["vocab_size"], b, t)
        true, margins, top1 = decode(model, ids, n)
        if margins.min() < MIN_MARGIN:
            continue
        if top1.clamp_min(1e-12).log().sum() > math.log(agreement):
            continue
        new = true[:, t:]
        if n > 1 and any(len(set(row.tolist())) < 2 for row in new):  # repeats hide missing appends
            continue
        if any(
            decodes_to(model, ids, variant, true)
            for variant in DECODE_VARIANTS
            if variant_matters(variant, b, t, n, cfg_["block_size"])
        ):
            continue
        return {"cfg": cfg_, "state": _state(model), "ids": ids, "max_new_tokens": n}
    raise RuntimeError("could not find generation weights that separate the misconceptions; change the seed")


def _distinct_block(g: torch.Generator, t: int, kind: str) -> int:
    return t if kind == "equal" else max(2, t + randint(g, 1, 5))


def _shape_cases(g: torch.Generator) -> list[dict]:
    """Wrapper sizes: B = 1, T = 1, T < block_size, T = block_size, and one case with tiny weights."""
    cases = []
    for b, t, kind in [(1, 1, "shorter"), (3, 5, "equal"), (2, 1, "shorter"), (1, 3, "equal"), (2, 4, "tiny")]:
        block = _distinct_block(g, t, kind)
        d = 4 * randint(g, 1, 5)
        if d == block:
            d += 4
        v = randint(g, 5, 40)
        while v in (d, block):
            v += 1
        layers, hidden = randint(g, 1, 4), randint(g, 3, 25)
        cases.append(
            {
                "cfg": cfg(v, block, d, layers, 4, hidden),
                "seed": seed_of(g),
                "values": seed_of(g),
                "gain": 3e-3 if kind == "tiny" else 1.0,
                "ids": covering_ids(g, v, b, t),
            }
        )
    return cases


def _gpt_plan(g: torch.Generator) -> dict:
    v = randint(g, 20, 40)
    # num_heads stays at its default (4) and dropout at 0 outside the tests of those two arguments, so
    # a submission that ignores one of them loses the points of that test, not of every area.
    main = cfg(v, 6, 12, 2, 4, 20)
    t = main["block_size"]
    b = rows_to_cover(v, t, interior=True)
    b += b in (t - 1, t)  # (B, T) and (T, B) targets differ, and so do (B, T-1) and (T-1, B)
    ids = covering_ids(g, v, b, t, cover="all", interior=True)
    gen_cfg = cfg(randint(g, 16, 28), 6, 16, 1, 4, 24)
    block = gen_cfg["block_size"]
    count_v = 31  # >= embed_dim + 2 for every count configuration
    out = {
        "cfg": main,
        "seed": seed_of(g),
        "ids": ids,
        "targets_short": covering_ids(g, v, b, t - 1),
        "targets_full": covering_ids(g, v, b, t),
        "values": {k: seed_of(g) for k in ("identity", "reload", "float64", "grad", "loss")},
        "tables": {k: seed_of(g) for k in ("identity", "reload", "float64")},
        "loss_gain": 3.0,  # sharper logits: the losses of wrong shifts differ clearly from the right one
        "G": torch.randn(b, t, v, generator=g),
        "lr": 0.5,
        "shapes": _shape_cases(g),
        # Hyper-parameters away from the defaults, one changed at a time, so an ignored one shows.
        # Head counts divide the default embed_dim too, so a hard-coded embed_dim still builds and the
        # state_dict test can name it.
        "counts": [
            {"cfg": c, "values": seed_of(g), "table": seed_of(g), "ids": covering_ids(g, count_v, 2, 5)}
            for c in (
                cfg(count_v, 5, 12, 2, 4, 20),
                cfg(count_v, 5, 20, 2, 4, 20),  # embed_dim
                cfg(count_v, 5, 12, 3, 4, 20),  # num_layers
                cfg(count_v, 5, 12, 2, 4, 44),  # hidden_dim
                cfg(count_v, 9, 12, 2, 4, 20),  # block_size
            )
        ],
        # Same shapes, different head counts: only the logits can tell them apart.
        "heads": [
            {
                "cfg": cfg(15, 6, 24, 1, h, 16),
                "seed": seed_of(g),
                "values": seed_of(g),
                "ids": covering_ids(g, 15, 2, 6),
            }
            for h in (1, 4, 6)
        ],
        "dropout": {
            # p = 1 zeroes every dropout's output in train mode: the logits are then fully determined (no random
            # mask), so the judge can compute them; p = 0 must leave train mode equal to eval mode.
            "cfg": cfg(15, 6, 12, 2, 4, 16, 1.0),
            "cfg0": cfg(15, 6, 12, 2, 4, 16, 0.0),
            "seed": seed_of(g),
            "values": seed_of(g),
            "ids": covering_ids(g, 15, 2, 6),
        },
        "generate": [
            # A prompt shorter than block_size that stays within it, one that grows well past it, one of
            # exactly block_size (B = 1), and one longer than block_size.
            {"name": "within_block", **_generation_case(g, gen_cfg, 3, 2, 3, 1e-2)},
            {"name": "past_block", **_generation_case(g, gen_cfg, 3, 4, 9, MAX_SAMPLING_AGREEMENT)},
            {"name": "at_block", **_generation_case(g, gen_cfg, 1, block, 4, 1.0)},
            {"name": "long_prompt", **_generation_case(g, gen_cfg, 2, block + 3, 4, 1.0)},
        ],
    }
    # within_block again, on a model with dropout 1 handed to generate in train mode: dropout left on while
    # decoding zeroes every activation, so each row repeats one token where the greedy path has two or more.
    within = out["generate"][0]
    out["generate_train"] = {**within, "name": "train_mode", "cfg": {**gen_cfg, "dropout": 1.0}}
    return out


def make_plan(seed: int) -> dict:
    """All random choices for one grading run, reproducible from `seed`."""
    g = torch.Generator().manual_seed(int(seed))
    threads = torch.get_num_threads()
    # Tiny models: one thread is ~50x faster than several threads competing on a busy machine.
    torch.set_num_threads(1)
    try:
        plan = {"version": VERSION, "seed": int(seed), "lm": _lm_plan(g), "gpt": _gpt_plan(g)}
        # Drawn last, so that every earlier choice of a seed stays as it was.
        plan["lm"]["shapes"].append(_square_case(g))
        plan["gpt"]["counts"] += _behaviour_count_cases(g, plan["gpt"]["counts"][0])
        return plan
    finally:
        torch.set_num_threads(threads)
