"""Trusted: the judge's random choices for one grading run of weight_tying.

Everything here is plain data (tensors, ints, floats, str, lists, dicts) so the runner can receive it
through `torch.load(weights_only=True)`. Sizes are tiny on purpose: the experiments on a correct solution
run in well under two seconds.
"""

from __future__ import annotations

import math

import torch

from autograder.graders.weight_tying.judge.reference import DECODE_VARIANTS, build_minigpt, decode

__all__ = ["make_plan", "MIN_MARGIN"]

# Greedy steps must win by at least this logit margin, so that float noise of a differently written
# (but correct) model cannot flip an argmax.
MIN_MARGIN = 0.02
# Probability that sampling reproduces the whole greedy path must be below this (long case; the short
# case only needs 1e-2 since both cases and two runs are judged together).
MAX_SAMPLING_AGREEMENT = 1e-6


def _ids(g: torch.Generator, vocab: int, b: int, t: int) -> torch.Tensor:
    return torch.randint(0, vocab, (b, t), generator=g, dtype=torch.int64)


def _table(g: torch.Generator, vocab: int, dim: int, dtype=torch.float32) -> torch.Tensor:
    return (torch.randn(vocab, dim, generator=g) * 0.5).to(dtype)


def _pick_vd(g: torch.Generator) -> tuple[int, int]:
    """V != D, both small."""
    while True:
        v = int(torch.randint(5, 40, (1,), generator=g))
        d = int(torch.randint(2, 24, (1,), generator=g))
        if v != d:
            return v, d


def _lm_plan(g: torch.Generator) -> dict:
    v, d = _pick_vd(g)
    ids = _ids(g, v, 3, 5)
    shapes = []
    # B = 1 and T = 1 always included, then random sizes.
    for b, t in [(1, 1), (1, 4), (3, 1), (2, 6), (4, 3)]:
        sv, sd = _pick_vd(g)
        shapes.append(
            {
                "vocab_size": sv,
                "embed_dim": sd,
                "seed": int(torch.randint(0, 2**31 - 1, (1,), generator=g)),
                "ids": _ids(g, sv, b, t),
                "W": _table(g, sv, sd),
            }
        )
    return {
        "vocab_size": v,
        "embed_dim": d,
        "seed": int(torch.randint(0, 2**31 - 1, (1,), generator=g)),
        "ids": ids,
        "W1": _table(g, v, d),
        "W2": _table(g, v, d),
        "W3": _table(g, v, d, torch.float64),
        "G": torch.randn(3, 5, v, generator=g),
        "lr": 0.1,
        "shapes": shapes,
    }


def _cfg(vocab, block, dim, layers, heads, hidden, dropout=0.0) -> dict:
    return {
        "vocab_size": vocab,
        "block_size": block,
        "embed_dim": dim,
        "num_layers": layers,
        "num_heads": heads,
        "hidden_dim": hidden,
        "dropout": dropout,
    }


def _state(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _generation_case(g: torch.Generator, cfg: dict, b: int, t: int, n: int, agreement: float) -> dict:
    """Weights and prompts whose greedy path every simulated misconception gets wrong."""
    for _ in range(200):
        with torch.random.fork_rng():  # keep the grader's global RNG untouched
            torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=g)))
            model = build_minigpt(cfg).eval()
        with torch.no_grad():
            # Scale the GPT-2 init up so the next token depends sharply on the whole context.
            for name, p in model.named_parameters():
                if p.dim() >= 2 and "lm_head" not in name:
                    p.mul_(float(torch.empty(1).uniform_(15.0, 40.0, generator=g)))
        ids = _ids(g, cfg["vocab_size"], b, t)
        true, margins, top1 = decode(model, ids, n)
        if margins.min() < MIN_MARGIN:
            continue
        if top1.clamp_min(1e-12).log().sum() > math.log(agreement):
            continue
        new = true[:, t:]
        if any(len(set(row.tolist())) < 2 for row in new):  # repeats hide missing appends
            continue
        if any(
            torch.equal(decode(model, ids, n, variant)[0], true)
            for variant in DECODE_VARIANTS
            if variant != "correct" and (t + n > cfg["block_size"] or "crop" not in variant)
        ):
            continue
        return {"cfg": cfg, "state": _state(model), "ids": ids, "max_new_tokens": n}
    raise RuntimeError("could not find generation weights that separate the misconceptions; change the seed")


def _gpt_plan(g: torch.Generator) -> dict:
    seed = lambda: int(torch.randint(0, 2**31 - 1, (1,), generator=g))  # noqa: E731
    v = int(torch.randint(20, 40, (1,), generator=g))
    # num_heads stays at its default (4) and dropout at 0 outside the tests of those two arguments, so
    # a submission that ignores one of them loses the points of that test, not of every area.
    main = _cfg(v, 6, 12, 2, 4, 20)
    d = main["embed_dim"]
    b, t = 2, 5
    gen_cfg = _cfg(int(torch.randint(16, 28, (1,), generator=g)), 6, 16, 1, 4, 24)
    shapes = []
    for b_, t_ in [(1, 1), (3, 5), (2, 1), (1, 3)]:  # B = 1 and T = 1 included
        sv = int(torch.randint(5, 40, (1,), generator=g))
        sd = int(4 * torch.randint(1, 5, (1,), generator=g))
        sv = sv + 1 if sv == sd else sv
        block = max(t_, int(torch.randint(2, 9, (1,), generator=g)))
        block = block + 1 if block in (sv, sd) else block  # keep V, D and block_size apart
        layers = int(torch.randint(1, 4, (1,), generator=g))
        hidden = int(torch.randint(3, 25, (1,), generator=g))
        shapes.append({"cfg": _cfg(sv, block, sd, layers, 4, hidden), "seed": seed(), "ids": _ids(g, sv, b_, t_)})
    return {
        "cfg": main,
        "seed": seed(),
        "ids": _ids(g, v, b, t),
        "targets_short": _ids(g, v, b, t - 1),
        "targets_full": _ids(g, v, b, t),
        "W1": _table(g, v, d) * 0.2,
        "W2": _table(g, v, d) * 0.2,
        "W3": (_table(g, v, d) * 0.2).to(torch.float64),
        "lr": 0.5,
        "sharpen": 20.0,  # gpt_grad / gpt_loss scale the weights so losses of wrong shifts differ clearly
        "shapes": shapes,
        # Hyper-parameters away from the defaults, one changed at a time, so an ignored one shows.
        # Head counts divide the default embed_dim too, so a hard-coded embed_dim still builds and the
        # state_dict test can name it.
        "counts": [
            {"cfg": _cfg(17, 5, 12, 2, 4, 20)},
            {"cfg": _cfg(17, 5, 20, 2, 4, 20)},  # embed_dim
            {"cfg": _cfg(17, 5, 12, 3, 4, 20)},  # num_layers
            {"cfg": _cfg(17, 5, 12, 2, 4, 44)},  # hidden_dim
            {"cfg": _cfg(17, 9, 12, 1, 2, 8)},  # block_size, num_heads
        ],
        # Same shapes, different head counts: only the logits can tell them apart.
        "heads": [{"cfg": _cfg(15, 6, 24, 1, h, 16), "seed": seed(), "ids": _ids(g, 15, 2, 6)} for h in (1, 4, 6)],
        "dropout": {
            "cfg": _cfg(15, 6, 12, 2, 4, 16, 0.5),
            "cfg0": _cfg(15, 6, 12, 2, 4, 16, 0.0),
            "seed": seed(),
            "ids": _ids(g, 15, 2, 6),
        },
        "generate": [
            # Within block_size (no crop needed), then well past it.
            {"name": "within_block", **_generation_case(g, gen_cfg, 3, 2, 3, 1e-2)},
            {"name": "past_block", **_generation_case(g, gen_cfg, 3, 4, 9, MAX_SAMPLING_AGREEMENT)},
        ],
    }


def make_plan(seed: int) -> dict:
    """All random choices for one grading run, reproducible from `seed`."""
    g = torch.Generator().manual_seed(int(seed))
    threads = torch.get_num_threads()
    # Tiny models: one thread is ~50x faster than several threads competing on a busy machine.
    torch.set_num_threads(1)
    try:
        return {"version": 1, "seed": int(seed), "lm": _lm_plan(g), "gpt": _gpt_plan(g)}
    finally:
        torch.set_num_threads(threads)
