"""Exercise 2's checks, model side: a tied dnnlpy MiniGPT with the given hyper-parameters, forward, loss."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from dnnlpy.models import gpt

from .diagnosis import close, logits_problem, shape_mismatch
from .framework import Failed, attribute, call, check
from .tied import tie_facts_problem

__all__ = ["CLS", "SMALL", "build", "inner_of"]

CLS = "MiniGPTWithWeightTying"
# Every size differs from the contract's default, so that a hard-coded default shows.
SMALL = dict(vocab_size=50, block_size=8, embed_dim=16, num_layers=2, num_heads=2, hidden_dim=32)
SIZES = ("vocab_size", "block_size", "embed_dim", "num_layers", "hidden_dim")
DEFAULTS = dict(embed_dim=128, num_layers=4, num_heads=4, hidden_dim=512, dropout=0.0)


def _args(cfg: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


def build(cls, **cfg):
    cfg = {**SMALL, **cfg}
    return call(f"{CLS}({_args(cfg)})", cls, **cfg)


def inner_of(model) -> gpt.MiniGPT:
    inner = attribute(model, "minigpt", CLS)
    if not isinstance(inner, gpt.MiniGPT):
        raise Failed(f"self.minigpt is a {type(inner).__name__}: it must be a dnnlpy.models.gpt.MiniGPT")
    return inner


# Layer settings a MiniGPT fixes, each with the misconception keyword of changing it.
SETTINGS = {
    "eps": "LayerNorm eps",
    "padding_idx": "padding_idx",
    "max_norm": "max_norm",
    "scale_grad_by_freq": "scale_grad_by_freq",
    "p": "hyper-parameter ignored (dropout)",
}


def settings_problem(inner, reference) -> str | None:
    """A layer of self.minigpt whose setting differs from the same layer of a MiniGPT built by the library."""
    mine = dict(inner.named_modules())
    for name, module in reference.named_modules():
        other = mine.get(name)
        for setting, keyword in SETTINGS.items():
            if other is not None and hasattr(module, setting) and hasattr(other, setting):
                want, got = getattr(module, setting), getattr(other, setting)
                if got != want:
                    return (
                        f"self.minigpt.{name} has {setting}={got} where MiniGPT's own layer has {setting}={want}: "
                        f"{keyword} (a replaced or rebuilt layer must compute exactly what MiniGPT's does)"
                    )
    return None


def _randomized(inner: gpt.MiniGPT) -> gpt.MiniGPT:
    """`inner` with weights of our own (in place, ties kept), so that every part of MiniGPT shows in its output."""
    with torch.no_grad():
        for p in inner.parameters():
            p.normal_(0.0, 0.5)
    return inner


def _reference(**cfg) -> gpt.MiniGPT:
    return gpt.MiniGPT(**{**SMALL, "weight_tying": True, **cfg})


@check(cls=CLS, group="exercise 2", area="parameter counts", section=9, title="self.minigpt is a dnnlpy MiniGPT")
def test_wrapper_holds_a_dnnlpy_minigpt(cls):
    inner_of(build(cls))


@check(
    cls=CLS,
    group="exercise 2",
    area="parameter identity",
    section=9,
    title="its head is its token table; the positional table stays separate",
    needs=("test_wrapper_holds_a_dnnlpy_minigpt",),
)
def test_wrapper_minigpt_is_tied(cls):
    inner = inner_of(build(cls))
    token, pos = attribute(inner, "token_embed", "self.minigpt"), attribute(inner, "pos_embed", "self.minigpt")
    table, positions = token.weight, pos.weight
    if positions is table or positions.data_ptr() == table.data_ptr() or positions.shape == table.shape:
        raise Failed(
            f"minigpt.pos_embed.weight is the token table, of shape {tuple(positions.shape)}, where a "
            f"(block_size, D) = {(SMALL['block_size'], tuple(table.shape)[-1])} table of positions belongs: positional "
            "embedding tied to the token table (only the head shares the token table)"
        )
    before = positions.detach().clone()
    ids = torch.randint(0, SMALL["vocab_size"], (1, 4))
    problem = tie_facts_problem(
        token,
        inner.lm_head,
        lambda: inner(ids),
        pos_shape=tuple(positions.shape),
        owner="self.minigpt",
        flag_off=inner.config.weight_tying is False,
    )
    if problem:
        raise Failed(f"the MiniGPT is untied or wrongly tied: {problem}")
    if not torch.equal(pos.weight.detach(), before):
        raise Failed("changing token_embed.weight also changed pos_embed.weight: positional embedding tied")


@check(
    cls=CLS,
    group="exercise 2",
    area="parameter counts",
    section=9,
    title="every hyper-parameter reaches the MiniGPT (sizes, num_heads, dropout)",
    needs=("test_wrapper_holds_a_dnnlpy_minigpt",),
)
def test_wrapper_passes_every_hyperparameter(cls):
    inner = inner_of(build(cls))
    got = {k: tuple(v.shape) for k, v in inner.state_dict().items()}
    want = {k: tuple(v.shape) for k, v in _reference().state_dict().items()}
    if got != want:
        for name in SIZES:  # which size was hard-coded (the contract's default, or another value)?
            for value in {DEFAULTS.get(name), 2 * SMALL[name], SMALL[name] // 2} - {None, 0, SMALL[name]}:
                try:
                    other = {k: tuple(v.shape) for k, v in _reference(**{name: value}).state_dict().items()}
                except (ValueError, AssertionError):
                    continue
                if other == got:
                    raise Failed(
                        f"self.minigpt was built with {name}={value}, not the {name}={SMALL[name]} given: "
                        f"hyper-parameter ignored ({name})"
                    )
        raise Failed(f"self.minigpt's weights have other shapes than a MiniGPT({_args(SMALL)}): pass every size on")
    problem = settings_problem(inner, _reference())
    if problem:
        raise Failed(problem)
    ids = torch.randint(0, SMALL["vocab_size"], (2, SMALL["block_size"]))
    inner.eval()
    with torch.no_grad():
        logits = inner(ids)
        for heads in (SMALL["num_heads"], 1, 4, 8):
            reference = _reference(num_heads=heads, weight_tying=inner.config.weight_tying)  # the tie: its own check
            reference.load_state_dict(inner.state_dict())
            if close(logits, reference.eval()(ids)):
                if heads != SMALL["num_heads"]:
                    raise Failed(
                        f"self.minigpt computes with num_heads={heads}, not the num_heads={SMALL['num_heads']} "
                        "given: hyper-parameter ignored (num_heads)"
                    )
                break
        else:
            raise Failed("self.minigpt's logits are not those of a MiniGPT with these weights and hyper-parameters")
    dropped = _randomized(inner_of(build(cls, dropout=0.5))).train()
    with torch.no_grad():
        if torch.equal(dropped(ids), dropped(ids)):
            raise Failed(
                "with dropout=0.5, two forward passes in train mode gave the same logits: hyper-parameter ignored "
                "(dropout)"
            )


@check(
    cls=CLS,
    group="exercise 2",
    area="shape flow",
    section=9,
    title="forward returns the MiniGPT's logits (B, T, V)",
    needs=("test_wrapper_holds_a_dnnlpy_minigpt",),
)
def test_wrapper_forward_returns_minigpt_logits(cls):
    model = build(cls)
    inner = _randomized(inner_of(model))
    ids = torch.randint(0, SMALL["vocab_size"], (2, 6))
    logits = call(f"{CLS}.forward", model, ids)
    with torch.no_grad():
        expected = inner(ids)
        problem = logits_problem(logits, expected, block_size=SMALL["block_size"])
    if problem and "wrong values" in problem:
        problem = (
            f"forward's logits differ from self.minigpt(input_ids) (largest difference "
            f"{float((logits.detach() - expected).abs().max()):.3g}): forward skips part of MiniGPT or computes a part "
            "differently (positional embedding, blocks, final norm, head: all of them, in order)"
        )
    if problem:
        raise Failed(problem)


# ------------------------------------------------------------------------------------------- the loss

FORMS = {
    "none": ("loss(ids)", "with no targets, predict input_ids[:, 1:] from input_ids[:, :-1]"),
    "short": (
        "loss(ids, targets of shape (B, T-1))",
        "targets of shape (B, T-1) (the chapter's form) are the next tokens of input_ids[:, :-1]",
    ),
    "full": (
        "loss(ids, targets of shape (B, T))",
        "targets of shape (B, T) (nanoGPT's form) are already shifted: they go with the logits of all of input_ids",
    ),
}


def _mean_ce(inner, inputs, targets):
    logits = inner(inputs)  # (B, T', V)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


def _check_loss(cls, form: str) -> None:
    model = build(cls)
    inner = inner_of(model)
    ids = torch.randint(0, SMALL["vocab_size"], (2, 6))  # (B, T)
    targets = {"none": None, "short": ids[:, 1:].flip(0), "full": torch.randint(0, SMALL["vocab_size"], (2, 6))}[form]
    what, rule = FORMS[form]
    try:
        loss = call(f"{CLS}.{what}", model.loss, ids, *([] if targets is None else [targets]))
    except Failed as failure:
        text = str(failure)
        if "not implemented yet" in text or not shape_mismatch(text):
            if "not implemented yet" in text:
                raise
            raise Failed(
                f"{failure}\nloss raises: loss() stops with an error instead of returning the mean next-token "
                "cross-entropy, so the model has no training objective"
            ) from None
        raise Failed(f"{failure}\n{rule}: loss target shift wrong?") from None
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise Failed(f"{what} returned {shape}, expected a scalar tensor: the mean cross-entropy over positions")
    trains = loss.requires_grad  # a loss backward() cannot reach trains nothing, whatever its value
    with torch.no_grad():
        loss = loss.detach().reshape(())
        if targets is None:
            want = _mean_ce(inner, ids[:, :-1], ids[:, 1:])
            logits = inner(ids)  # (B, T, V)
            wrong = {
                "no shift (logits of ids vs ids)": _mean_ce(inner, ids, ids),
                "shifted the wrong way (logits of ids[:, 1:] vs ids[:, :-1])": _mean_ce(inner, ids[:, 1:], ids[:, :-1]),
                "shifted the wrong way (logits at positions 1.. vs tokens 0..)": F.cross_entropy(
                    logits[:, 1:].reshape(-1, logits.size(-1)), ids[:, :-1].reshape(-1)
                ),
            }
        elif form == "short":
            want = _mean_ce(inner, ids[:, :-1], targets)
            wrong = {"targets ignored (ids shifted instead)": _mean_ce(inner, ids[:, :-1], ids[:, 1:])}
        else:
            want = _mean_ce(inner, ids, targets)
            wrong = {
                "targets ignored (ids shifted instead)": _mean_ce(inner, ids[:, :-1], ids[:, 1:]),
                "shifted again (ids[:, :-1] vs targets[:, 1:])": _mean_ce(inner, ids[:, :-1], targets[:, 1:]),
            }
    if close(loss, want):
        if trains:
            return
        raise Failed(
            f"{what} has the right value but backward() never reaches the model's weights: loss detached (a "
            "detach(), .item() or .data on the way cuts the graph, so training would not learn)"
        )
    for name, value in wrong.items():
        if close(loss, value):
            raise Failed(
                f"{what} = {float(loss):.4f}, expected {float(want):.4f}: loss target shift wrong, {name}. {rule}"
            )
    count = ids.shape[0] * (ids.shape[1] - (0 if form == "full" else 1))
    if close(loss, want * count, rtol=1e-4, atol=1e-4):
        raise Failed(
            f"{what} = {float(loss):.4f} = {count} x {float(want):.4f}: loss not mean (summed over the {count} "
            "positions; use the mean cross-entropy)"
        )
    ratio = float(loss) / float(want)
    if abs(ratio - 2) < 1e-3 or abs(ratio - 0.5) < 1e-3:
        word = "doubled" if ratio > 1 else "halved"
        raise Failed(
            f"{what} = {float(loss):.4f}, {ratio:g} x the mean cross-entropy {float(want):.4f}: loss {word}, so the "
            f"shared table's gradient is {word} too (gradient {word}): autograd already adds both paths"
        )
    raise Failed(f"{what} = {float(loss):.4f}, expected the mean next-token cross-entropy {float(want):.4f}. {rule}")


# The loss is judged against the student's own MiniGPT, tied or not: an untied head is the tie check's finding alone.
_LOSS = dict(cls=CLS, group="loss", area="shape flow", section=9, needs=("test_wrapper_holds_a_dnnlpy_minigpt",))


@check(**_LOSS, title="loss(ids): next-token cross-entropy of ids[:, 1:] given ids[:, :-1]")
def test_wrapper_loss_without_targets(cls):
    _check_loss(cls, "none")


@check(**_LOSS, title="loss(ids, targets) with targets of shape (B, T-1), the chapter's form")
def test_wrapper_loss_with_shorter_targets(cls):
    _check_loss(cls, "short")


@check(**_LOSS, title="loss(ids, targets) with targets of shape (B, T), nanoGPT's form")
def test_wrapper_loss_with_full_length_targets(cls):
    _check_loss(cls, "full")
