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
   The wrapper's cases are inputs of one model (the plan's configuration, one draw of the judge's values):
   what they tell apart is the input's shape. -> `test_*_shapes_and_values`, `test_*_float64`.
5. One wrapper shape case has tiny weights (every activation ~3e-3), so a LayerNorm's eps dominates the
   variance it divides by. Exposes a LayerNorm built with another `eps`. -> `test_wrapper_shapes_and_values`.
6. Generation prompts are shorter than, equal to and longer than block_size, with B = 1 and B = 3; every
   simulated decoding mistake (reference.DECODE_VARIANTS, row 0's token for every row included) changes the
   output and each greedy step wins by >= MIN_MARGIN. Exposes no / wrong crop, wrong position, missing
   append, `.item()` / `squeeze()` batch bugs, sampling. generate is called a second time (another RNG seed)
   in the two cases where sampling repeats the greedy path with probability under 1e-2 and MAX_SAMPLING_AGREEMENT:
   a sampler's two calls differ there; the other cases (and the train-mode one, fully determined) are called once.
   -> `test_generate_*`.
7. V, D and block_size are pairwise distinct, and the wrapper's tables have V >= D + 2. A transposed head
   raises; a tied positional table shows in its shape; "the logits come from this table" is a real test
   (the table's columns span a proper subspace of the V scores). -> identity, counts, shape flow.
8. Count configurations move one hyper-parameter at a time away from the plan's configuration (num_heads and
   dropout included); head counts 1 / 4 / 6 at equal shapes; dropout 1 (train-mode logits fully determined)
   and 0. The plan's configuration is the counts' first and the dropout run's 0, the counts' dropout move the
   dropout run's 1 and their num_layers move (to 1) the heads' 4: a run builds each once.
   Exposes an ignored hyper-parameter, in the state_dict test and in the hyper-parameter's own test.
   -> parameter counts.

9. One TiedEmbeddingLM shape case has V = D (the others V != D): a transposed product x @ W runs only there and
   gives E[ids] @ E, so a head that raises on every other case is named transposed, not a crash.
   -> `test_tied_lm_shapes_and_values` (and, as its knock-ons, the tests that need forward).
10. Outside the tiny case, a final LayerNorm with eps 0 (or 1e-6, 1e-12) in place of 1e-5 moves no value the
   judge compares at float32 tolerance (the wrapper's other shape cases, counts, heads and dropout logits, the
   gradient and its step, losses and their gradient) by more than half its tolerance: a case's values are drawn
   again until so (``judge/eps_margin.py``). The eps slip is named by the tiny case alone, never by chance by a
   case that tests something else (w51 in the counts' one-layer move, on one seed in 25). Identity and reload
   judge the span of the table (eps cannot move it); float64, judged at a tolerance a thousand times tighter,
   moves by over a hundred of its tolerances under a slip to 1e-6 (seeds 1-100), as the tiny case does.
   -> shape flow, counts, gradients, loss.

Values the experiments load into the student's modules come from ``runner/values.py`` (judge_values of a
plan seed, for whatever shapes the student's state_dict has); generation loads the states drawn here. Every
wrapper is built with the plan's `seed` (reload's second copy, which the float64 run then casts, with seed + 1),
so experiments that build one configuration share its build (``runner/builds.py``): the build seed never
reaches a value the judge computes.
"""

from __future__ import annotations

import math

import torch

from autograder.graders.weight_tying.judge.draw import cfg, covering_ids, randint, rows_to_cover, seed_of, table
from autograder.graders.weight_tying.judge.eps_margin import eps_proof, eps_share, logits_of, losses, tied_gradient
from autograder.graders.weight_tying.judge.reference import (
    DECODE_VARIANTS,
    build_minigpt,
    decode,
    decodes_to,
    variant_matters,
)

__all__ = ["make_plan", "MIN_MARGIN", "VERSION"]

VERSION = 7
# Greedy steps must win by at least this logit margin, so that float noise of a differently written
# (but correct) model cannot flip an argmax.
MIN_MARGIN = 0.02
# Probability that sampling reproduces the whole greedy path must be below this (long case; the short
# case only needs 1e-2 since both cases and two runs are judged together).
MAX_SAMPLING_AGREEMENT = 1e-6
# The tiny shape case's weights: every activation ~3e-3, so a LayerNorm's eps dominates the variance (guarantee 5).
TINY_GAIN = 3e-3


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


def _shape_cases(g: torch.Generator, base: dict, seed: int) -> list[dict]:
    """Wrapper shape cases, all of the plan's own build (guarantees 4 and 5): B = 1, T = 1, T < block_size and
    T = block_size share one draw of the judge's values, the tiny case has its own."""
    block, v = base["block_size"], base["vocab_size"]
    values, tiny = seed_of(g), seed_of(g)
    sizes = [(1, 1, 1.0), (3, block, 1.0), (2, 1, 1.0), (1, block, 1.0), (2, block - 2, TINY_GAIN)]
    return [
        {
            "cfg": dict(base),
            "seed": seed,
            "values": values if gain == 1.0 else tiny,
            "gain": gain,
            "ids": covering_ids(g, v, b, t),
        }
        for b, t, gain in sizes
    ]


# Each count configuration moves one hyper-parameter of the plan's own away from it (guarantee 8). The heads
# cases are its num_layers move with num_heads 1 / 4 / 6 (one layer: a head count shows as well, for half the
# cost), the dropout run its dropout move and the plan's own, so the three experiments share builds. num_heads
# 2 divides the default embed_dim too, so a hard-coded embed_dim still builds and the state_dict test names it.
_MOVED = ({}, {"embed_dim": 16}, {"num_layers": 1}, {"hidden_dim": 44}, {"block_size": 9})
_MOVED += ({"num_heads": 2}, {"dropout": 1.0})


def _gpt_plan(g: torch.Generator) -> dict:
    v = randint(g, 20, 40)
    # One configuration for every experiment but the counts' moves, the head counts, the dropout run and
    # generation: each run builds it once (``runner/builds.py``). num_heads stays at its default (4) and dropout
    # at 0 outside the tests of those two arguments, so a submission that ignores one of them loses the points of
    # that test, not of every area.
    main = cfg(v, 6, 12, 2, 4, 20)
    t = main["block_size"]
    b = rows_to_cover(v, t, interior=True)
    b += b in (t - 1, t)  # (B, T) and (T, B) targets differ, and so do (B, T-1) and (T-1, B)
    ids = covering_ids(g, v, b, t, cover="all", interior=True)
    # generation's own: one layer decodes ~twice as fast as the plan's two, for the ~50 steps generate takes
    gen_cfg = cfg(randint(g, 16, 28), 6, 16, 1, 4, 24)
    seed = seed_of(g)
    dropped, one_layer = {**main, "dropout": 1.0}, {**main, "num_layers": 1}
    out = {
        "cfg": main,
        "seed": seed,
        "ids": ids,
        "targets_short": covering_ids(g, v, b, t - 1),
        "targets_full": covering_ids(g, v, b, t),
        "values": {k: seed_of(g) for k in ("identity", "reload", "float64", "grad", "loss")},
        "tables": {k: seed_of(g) for k in ("identity", "reload", "float64")},
        "loss_gain": 3.0,  # sharper logits: the losses of wrong shifts differ clearly from the right one
        "G": torch.randn(b, t, v, generator=g),
        "lr": 0.5,
        "shapes": _shape_cases(g, main, seed),
        # Hyper-parameters away from the plan's, one changed at a time, so an ignored one shows (V >= D + 2 for
        # every move: "the logits come from this table" stays a real test).
        "counts": [
            {
                "cfg": {**main, **moved},
                "seed": seed,
                "values": seed_of(g),
                "table": seed_of(g),
                "ids": covering_ids(g, v, 2, 5),
            }
            for moved in _MOVED
        ],
        # Same shapes, different head counts: only the logits can tell them apart.
        "heads": [
            {"cfg": {**one_layer, "num_heads": h}, "seed": seed, "values": seed_of(g), "ids": covering_ids(g, v, 2, t)}
            for h in (1, 4, 6)
        ],
        "dropout": {
            # p = 1 zeroes every dropout's output in train mode: the logits are then fully determined (no random
            # mask), so the judge can compute them; p = 0 must leave train mode equal to eval mode.
            "cfg": dict(dropped),
            "cfg0": dict(main),
            "seed": seed,
            "values": seed_of(g),
            "ids": covering_ids(g, v, 2, t),
        },
        "generate": [
            # A prompt shorter than block_size that stays within it, one that grows well past it, one of
            # exactly block_size (B = 1), and one longer than block_size.
            # All four are loaded into one build. `calls`: generate is called twice (RNG seeded 1, then 2) where
            # sampling is unlikely to repeat the greedy path (guarantee 6), once where nothing bounds that.
            {"name": "within_block", "seed": seed, "calls": 2, **_generation_case(g, gen_cfg, 3, 2, 3, 1e-2)},
            {
                "name": "past_block",
                "seed": seed,
                "calls": 2,
                **_generation_case(g, gen_cfg, 3, 4, 9, MAX_SAMPLING_AGREEMENT),
            },
            {"name": "at_block", "seed": seed, "calls": 1, **_generation_case(g, gen_cfg, 1, t, 4, 1.0)},
            {"name": "long_prompt", "seed": seed, "calls": 1, **_generation_case(g, gen_cfg, 2, t + 3, 4, 1.0)},
        ],
    }
    # within_block again, on a model with dropout 1 handed to generate in train mode: dropout left on while
    # decoding zeroes every activation, so each row repeats one token where the greedy path has two or more. Its
    # tokens are then fully determined, so one call tells the mode apart.
    within = out["generate"][0]
    out["generate_train"] = {**within, "name": "train_mode", "cfg": {**gen_cfg, "dropout": 1.0}, "calls": 1}
    _eps_proof(out)
    return out


def _eps_proof(p: dict) -> None:
    """Guarantee 10: the values of every wrapper case the judge compares at float32 tolerance drawn again (in
    place) until a final LayerNorm eps slip moves none of its compared values by more than half the tolerance."""
    shared = [c for c in p["shapes"] if c["gain"] == 1.0]  # one draw of values for the shape cases but the tiny
    ids = [c["ids"] for c in shared]
    values = eps_proof(shared[0]["values"], lambda s: eps_share(p["cfg"], s, logits_of(*ids)))
    for c in shared:
        c["values"] = values
    for c in (*p["counts"], *p["heads"]):
        c["values"] = eps_proof(c["values"], lambda s, c=c: eps_share(c["cfg"], s, logits_of(c["ids"])))
    # The dropout runs' eval-mode logits, one model's in both runs (eval mode leaves dropout out); train mode at
    # dropout 1 feeds the final LayerNorm zeros, and at 0 is eval mode.
    d = p["dropout"]
    d["values"] = eps_proof(d["values"], lambda s: eps_share(d["cfg0"], s, logits_of(d["ids"])))
    grad = tied_gradient(p["ids"], p["G"])
    p["values"]["grad"] = eps_proof(p["values"]["grad"], lambda s: eps_share(p["cfg"], s, grad))
    loss = losses(p["ids"], [None, p["targets_short"], p["targets_full"]])
    gain = p["loss_gain"]
    p["values"]["loss"] = eps_proof(p["values"]["loss"], lambda s: eps_share(p["cfg"], s, loss, gain=gain))


def make_plan(seed: int) -> dict:
    """All random choices for one grading run, reproducible from `seed`."""
    g = torch.Generator().manual_seed(int(seed))
    threads = torch.get_num_threads()
    # Tiny models: one thread is ~50x faster than several threads competing on a busy machine.
    torch.set_num_threads(1)
    try:
        plan = {"version": VERSION, "seed": int(seed), "lm": _lm_plan(g), "gpt": _gpt_plan(g)}
        plan["lm"]["shapes"].append(_square_case(g))
        return plan
    finally:
        torch.set_num_threads(threads)
