"""Exercise 2's checks, model side: a tied dnnlpy MiniGPT with the given hyper-parameters, forward, loss."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from dnnlpy.models import gpt

from .diagnosis import close, logits_problem, reread, shape_mismatch
from .self_check import Failed, attribute, call, check, failed, language, shown, tell
from .messages import misconception_title, render
from .said import Said
from .tied import tie_facts

__all__ = ["CLS", "SMALL", "build", "inner_of"]

CLS = "MiniGPTWithWeightTying"
# Every size differs from the contract's default, so that a hard-coded default shows, and from every other one
# (num_layers from num_heads too), so that two arguments passed in each other's place show.
SMALL = dict(vocab_size=50, block_size=8, embed_dim=16, num_layers=1, num_heads=2, hidden_dim=32)
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
        raise Failed(tell("checkfail.not_minigpt", kind=type(inner).__name__))
    return inner


# Layer settings a MiniGPT fixes, each with the misconception (the marking scheme's id) of changing it.
SETTINGS = {
    "eps": "layernorm_eps",
    "padding_idx": "embedding_gradient_option",
    "max_norm": "max_norm",
    "scale_grad_by_freq": "embedding_gradient_option",
    "p": "hyperparameter_ignored",
}


def settings_problem(inner, reference) -> str | None:
    """A layer of self.minigpt whose setting differs from the same layer of a MiniGPT built by the library."""
    mine = dict(inner.named_modules())
    for name, module in reference.named_modules():
        other = mine.get(name)
        for setting, misconception in SETTINGS.items():
            if other is not None and hasattr(module, setting) and hasattr(other, setting):
                want, got = getattr(module, setting), getattr(other, setting)
                if got != want:
                    keyword = misconception_title(misconception, language())
                    return tell(
                        "checkfail.layer_setting",
                        layer=name,
                        setting=setting,
                        same_setting=setting,
                        got=got,
                        want=want,
                        keyword=keyword,
                    )
    return None


def _randomized(inner: gpt.MiniGPT) -> gpt.MiniGPT:
    """`inner` with weights of our own (in place, ties kept), so that every part of MiniGPT shows in its output."""
    with torch.no_grad():
        for p in inner.parameters():
            p.normal_(0.0, 0.5)
    return inner


def _confident(inner: gpt.MiniGPT, sharper: float = 4.0) -> gpt.MiniGPT:
    """`inner` randomized, its final norm's gain and shift `sharper` times larger: logits that many times larger, so
    the model is confident (and mostly wrong) and the right loss lies far from ln V, which is where a loss taken on
    probabilities stays: a wrong loss does not look like a rounding difference."""
    _randomized(inner)
    with torch.no_grad():
        for p in inner.final_norm.parameters():
            p.mul_(sharper)
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
        want = (SMALL["block_size"], tuple(table.shape)[-1])
        raise _positional("checkfail.positions_are_the_token_table", shape=tuple(positions.shape), want=want)
    before = positions.detach().clone()
    ids = torch.randint(0, SMALL["vocab_size"], (1, 4))
    problem = tie_facts(
        token,
        inner.lm_head,
        lambda: inner(ids),
        pos_shape=tuple(positions.shape),
        owner="self.minigpt",
        flag_off=inner.config.weight_tying is False,
    )
    if problem:  # the diagnosis says the mistake in full (a lead before it would only say it twice); kept as a
        raise Failed(shown(problem), said=problem)  # value, so the check below can say it short
    if not torch.equal(pos.weight.detach(), before):
        raise _positional("checkfail.positions_follow_the_table")


def _positional(key: str, **params) -> Failed:
    """A positional table tied: section 4 teaches that positions keep a table of their own, never tied (the grader's
    pages send it there too), not the exercise's section; kept as a value, so a check below can say it short."""
    said = Said(key, **params) + reread(4)
    return Failed(shown(said), said=said)


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
                        tell(
                            "checkfail.size_ignored", name=name, same_name=name, which=name, got=value, want=SMALL[name]
                        )
                    )
        positions = got.get("pos_embed.weight")
        if positions is not None and positions == got.get("token_embed.weight"):  # the positional table tied
            want_positions = want["pos_embed.weight"]  # its own check above says so in full: said short here
            raise _positional("checkfail.positions_are_the_token_table", shape=positions, want=want_positions)
        head = got.get("lm_head.weight")
        if head is not None and head == positions != want["lm_head.weight"]:  # the head tied to the positions
            raise _positional("checkfail.head_is_the_positional_table", shape=head, want=want["lm_head.weight"])
        raise Failed(tell("checkfail.other_shapes", args=_args(SMALL)))
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
                    raise Failed(tell("checkfail.num_heads_ignored", got=heads, want=SMALL["num_heads"]))
                break
        else:
            raise Failed(tell("checkfail.logits_not_minigpts"))
    dropped = _randomized(inner_of(build(cls, dropout=0.5))).train()
    with torch.no_grad():
        if torch.equal(dropped(ids), dropped(ids)):
            raise Failed(tell("checkfail.dropout_ignored"))


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
        found = logits_problem(logits, expected, block_size=SMALL["block_size"])
        problem = shown(found)
    if found is not None and found.first().key == "diag.logits.values":  # values the diagnosis cannot name
        problem = tell("checkfail.forward_skips", d=f"{float((logits.detach() - expected).abs().max()):.3g}")
    if problem:
        raise Failed(problem)


# ------------------------------------------------------------------------------------------- the loss

FORMS = ("none", "short", "full")  # each a call and a rule in the catalog: checkfail.call.<form>, checkfail.rule.<form>


def _mean_ce(inner, inputs, targets, ignore_index: int = -100):
    logits = inner(inputs)  # (B, T', V)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=ignore_index)


@torch.no_grad()
def _fed_wrongly(inner, ids, targets) -> dict:
    """The loss of the right logits and targets fed to cross-entropy the wrong way: probabilities (a softmax
    first: cross_entropy applies log_softmax itself), or raw logits to nll_loss (it takes log-probabilities)."""
    if targets is None:
        inputs, targets = ids[:, :-1], ids[:, 1:]
    else:
        inputs = ids if targets.shape[1] == ids.shape[1] else ids[:, :-1]
    logits = inner(inputs).reshape(-1, SMALL["vocab_size"])  # (B * T', V)
    flat = targets.reshape(-1)
    return {"loss_softmax": F.cross_entropy(logits.softmax(-1), flat), "loss_nll": F.nll_loss(logits, flat)}


def _head_on_the_positions(inner, what: str) -> Failed | None:
    """The loss's failure when the head is tied to the positional table (it has that table's shape, not (V, D)):
    the logits are block_size wide, so no loss can be right; the tie check said why in full, said short here."""
    head, positions = (getattr(getattr(inner, name, None), "weight", None) for name in ("lm_head", "pos_embed"))
    want = (SMALL["vocab_size"], SMALL["embed_dim"])
    if not isinstance(head, torch.Tensor) or not isinstance(positions, torch.Tensor):
        return None
    shape = tuple(head.shape)
    if shape != tuple(positions.shape) or shape == want:
        return None
    title = tell("check.title.test_wrapper_minigpt_is_tied")
    return _positional(
        "checkfail.loss_head_is_the_positional_table",
        check=title,
        shape=shape,
        want=want,
        what=what,
        width=shape[0],
        v=SMALL["vocab_size"],
    )


def _check_loss(cls, form: str) -> None:
    model = build(cls)
    inner = _confident(inner_of(model))
    ids = torch.randint(0, SMALL["vocab_size"], (2, 6))  # (B, T)
    ids[:, 2] = 0  # token 0 among the targets of every form: a loss that skips it (ignore_index=0) shows
    full = torch.randint(0, SMALL["vocab_size"], (2, 6))
    full[:, 1] = 0
    targets = {"none": None, "short": ids[:, 1:].flip(0), "full": full}[form]
    what, rule = tell(f"checkfail.call.{form}"), tell(f"checkfail.rule.{form}")
    try:
        loss = call(f"{CLS}.{what}", model.loss, ids, *([] if targets is None else [targets]))
    except Failed as failure:
        if failure.key == "checkfail.not_implemented":
            raise
        tied = _head_on_the_positions(inner, what)  # the cause is the tie, not the loss: not a shift to fix
        if tied is not None:
            raise tied from None
        # Read in English, whatever the language shown: the call's words count too, as they always have.
        if not shape_mismatch(f"{CLS}.{render(f'checkfail.call.{form}', 'en')} {failure.english()}"):
            raise Failed(tell("checkfail.loss_raises", failure=failure)) from None
        raise Failed(tell("checkfail.shapes_do_not_pair", failure=failure, rule=rule)) from None
    tied = _head_on_the_positions(inner, what)  # a loss computed anyway: nothing to compare it with
    if tied is not None:
        raise tied
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise Failed(tell("checkfail.loss_not_scalar", what=what, got=shape))
    trains = loss.requires_grad  # a loss backward() cannot reach trains nothing, whatever its value
    with torch.no_grad():
        loss = loss.detach().reshape(())
        if targets is None:
            want = _mean_ce(inner, ids[:, :-1], ids[:, 1:])
            skipped = _mean_ce(inner, ids[:, :-1], ids[:, 1:], ignore_index=0)
            logits = inner(ids)  # (B, T, V)
            wrong = {  # checkfail.shift.<name>
                "none": _mean_ce(inner, ids, ids),
                "wrong_way": _mean_ce(inner, ids[:, 1:], ids[:, :-1]),
                "wrong_way_positions": F.cross_entropy(
                    logits[:, 1:].reshape(-1, logits.size(-1)), ids[:, :-1].reshape(-1)
                ),
            }
        elif form == "short":
            want = _mean_ce(inner, ids[:, :-1], targets)
            skipped = _mean_ce(inner, ids[:, :-1], targets, ignore_index=0)
            wrong = {"targets_ignored": _mean_ce(inner, ids[:, :-1], ids[:, 1:])}
        else:
            want = _mean_ce(inner, ids, targets)
            skipped = _mean_ce(inner, ids, targets, ignore_index=0)
            wrong = {
                "targets_ignored": _mean_ce(inner, ids[:, :-1], ids[:, 1:]),
                "shifted_again": _mean_ce(inner, ids[:, :-1], targets[:, 1:]),
            }
    if close(loss, want):
        if trains:
            return
        raise failed("checkfail.loss_detached", what=what)
    got, expected = f"{float(loss):.5f}", f"{float(want):.5f}"
    for name, value in wrong.items():
        if close(loss, value):
            raise Failed(tell(f"checkfail.shift.{name}", what=what, got=got, want=expected, rule=rule))
    if close(loss, skipped):
        raise failed("checkfail.loss_ignore_index", what=what, got=got, want=expected)
    for name, value in _fed_wrongly(inner, ids, targets).items():  # the right pairing, handed over wrongly
        if close(loss, value):  # section 5 teaches what cross-entropy takes, as the grader's pages say
            said = Said(f"checkfail.{name}", what=what, got=got, want=expected) + reread(5)
            raise Failed(shown(said), said=said)  # said as a value: a second loss check says it short
    count = ids.shape[0] * (ids.shape[1] - (0 if form == "full" else 1))
    if close(loss, want * count, rtol=1e-4, atol=1e-4):
        raise failed("checkfail.loss_not_mean", what=what, got=got, n=count, count=count, want=expected)
    ratio = float(loss) / float(want)
    if abs(ratio - 2) < 1e-3 or abs(ratio - 0.5) < 1e-3:
        word = "doubled" if ratio > 1 else "halved"
        raise failed(f"checkfail.loss_scaled.{word}", what=what, got=got, k=f"{ratio:g}", want=expected)
    raise Failed(tell("checkfail.loss_wrong", what=what, got=got, want=expected, rule=rule))


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
