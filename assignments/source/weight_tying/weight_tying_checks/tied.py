"""Exercise 1's checks: TiedEmbeddingLM holds one (V, D) table, used at both ends, with one .grad."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from dnnlpy.models import gpt

from .diagnosis import close, gradient_problem, logits_problem, tie_problem
from .said import Said, Text
from .self_check import Failed, attribute, call, check, failed, listed, shown, tell

__all__ = ["tie_facts", "table_of", "embedding_options_problem"]

CLS = "TiedEmbeddingLM"
V, D = 20, 8  # the checks' sizes; the hidden suite draws others


def _built(vocab_size: int = V, embed_dim: int = D) -> str:
    """The call as a message names it, in keyword form as the student writes it."""
    return f"{CLS}(vocab_size={vocab_size}, embed_dim={embed_dim})"


def _model(cls, vocab_size: int = V, embed_dim: int = D):
    return call(_built(vocab_size, embed_dim), cls, vocab_size=vocab_size, embed_dim=embed_dim)


def _table(model, owner: str = CLS):
    return table_of(attribute(model, "token_embed", owner), owner)


def table_of(embed, owner: str):
    weight = attribute(embed, "weight", f"{owner}.token_embed")
    if not isinstance(weight, torch.Tensor):
        raise Failed(tell("checkfail.table_not_parameter", owner=owner, kind=type(weight).__name__))
    return weight


# nn.Embedding options that change what a lookup does, with their defaults (what each one breaks: the
# catalog's checkfail.embedding.<option>).
EMBEDDING_OPTIONS = {"padding_idx": None, "max_norm": None, "scale_grad_by_freq": False}


def embedding_options_problem(embed) -> str | None:
    """The embedding option that makes it more than a lookup, named, or None."""
    for name, default in EMBEDDING_OPTIONS.items():
        value = getattr(embed, name, default)
        if value != default:
            return tell(f"checkfail.embedding.{name}", value=value)
    return None


def tie_facts(embed, head, forward, *, pos_shape=None, owner: str = CLS, flag_off: bool = False) -> Text | None:
    """What is wrong with the tie, as a message (a value: which mistake it names), or None."""
    table = table_of(embed, owner)
    weight = getattr(head, "weight", None)
    if not isinstance(weight, torch.Tensor):
        return Said("checkfail.head_not_parameter", owner=owner, kind=type(weight).__name__)
    same_shape = weight.shape == table.shape
    equal_values = same_shape and torch.equal(weight.detach(), table.detach())
    same_object, same_storage = weight is table, weight.data_ptr() == table.data_ptr()
    with torch.no_grad():  # an in-place change of the table must reach the head (the grader's test too)
        table.copy_(torch.randn_like(table))
    now = getattr(head, "weight", None)
    follows = isinstance(now, torch.Tensor) and now.shape == table.shape and torch.equal(now.detach(), table.detach())
    after_forward = False
    if not follows:
        try:
            forward()
            later = getattr(head, "weight", None)
            after_forward = isinstance(later, torch.Tensor) and later is table
        except Exception:  # forward is judged by its own check
            pass
    return tie_problem(
        head_shape=tuple(weight.shape),
        table_shape=tuple(table.shape),
        follows=follows,
        same_object=same_object,
        same_storage=same_storage,
        follows_after_forward=after_forward,
        equal_values=equal_values,
        pos_shape=pos_shape,
        flag_off=flag_off,
    )


def _built_watching_minigpt(cls):
    """(the model, the token tables of every MiniGPT built with weight_tying=True while it was built)."""
    original = gpt.MiniGPT.__dict__["__init__"]
    built = []

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        built.append(self)

    gpt.MiniGPT.__init__ = init
    try:
        model = _model(cls)
    finally:
        gpt.MiniGPT.__init__ = original
    return model, [m.token_embed.weight for m in built if m.config.weight_tying]


@check(
    cls=CLS,
    group="exercise 1",
    area="parameter counts",
    section=6,
    title="token_embed.weight is a (V, D) table",
)
def test_tied_table_has_shape_v_by_d(cls):
    shape = tuple(_table(_model(cls)).shape)
    if shape != (V, D):
        raise Failed(tell("checkfail.table_shape", got=shape, want=(V, D)))


@check(
    cls=CLS,
    group="exercise 1",
    area="parameter identity",
    section=6,
    title="lm_head.weight is token_embed.weight, from construction on",
    needs=("test_tied_table_has_shape_v_by_d",),
)
def test_tied_head_is_the_embedding_parameter(cls):
    model, borrowed = _built_watching_minigpt(cls)
    head = attribute(model, "lm_head", CLS)
    mine = (getattr(model.token_embed, "weight", None), getattr(head, "weight", None))
    if any(table is weight for table in borrowed for weight in mine):
        raise Failed(tell("checkfail.delegated_tie"))
    ids = torch.randint(0, V, (2, 3))
    found = tie_facts(model.token_embed, head, lambda: model(ids))
    if found is not None:  # kept as a value: a check below may say the mistake it names was said here
        raise Failed(shown(found), said=found)


@check(
    cls=CLS,
    group="exercise 1",
    area="parameter counts",
    section=6,
    title="the model holds V * D parameters: one table, no bias",
    needs=("test_tied_table_has_shape_v_by_d",),
)
def test_tied_holds_one_table_and_no_bias(cls):
    model = _model(cls)
    bias = getattr(attribute(model, "lm_head", CLS), "bias", None)
    if isinstance(bias, torch.Tensor):
        raise Failed(tell("checkfail.head_bias", shape=tuple(bias.shape)))
    unique = {id(p): p for p in model.parameters()}
    count = sum(p.numel() for p in unique.values())
    if count != V * D:
        names = listed(name for name, _ in model.named_parameters())
        key = "checkfail.count_two_tables" if count == 2 * V * D else "checkfail.count_extra"
        if count == 2 * V * D and len({p.data_ptr() for p in unique.values()}) < len(unique):
            key = "checkfail.count_two_parameters"  # one table in memory, two Parameter objects over it
        raise failed(key, model=_built(), n=count, names=names, want=V * D)


@check(
    cls=CLS,
    group="exercise 1",
    area="shape flow",
    section=6,
    title="forward returns the logits E[ids] @ E.T, shape (B, T, V)",
    needs=("test_tied_table_has_shape_v_by_d",),
)
def test_tied_forward_returns_logits(cls):
    model = _model(cls)
    ids = torch.randint(0, V, (3, 5))  # (B, T)
    table = model.token_embed.weight
    before = table.detach().clone()  # the table as it is before forward runs (a lookup must not change it)
    logits = call(f"{CLS}.forward", model, ids)
    expected = before[ids] @ before.T  # (B, T, D) @ (D, V) -> (B, T, V)
    found = logits_problem(logits, expected)
    problem = shown(found)
    if problem and embedding_options_problem(model.token_embed):
        raise Failed(
            tell(
                "checkfail.with_embedding_option", problem=problem, option=embedding_options_problem(model.token_embed)
            )
        )
    if found is not None and found.first().key == "diag.logits.values":  # values the diagnosis cannot name
        # Scaling the table by 2 scales E[ids] @ E.T by 4; logits that only double come from a head that
        # does not multiply by token_embed.weight.
        with torch.no_grad():
            table.mul_(2)
            doubled = call(f"{CLS}.forward", model, ids)
        if close(doubled.detach(), 2 * logits.detach()) and not close(doubled.detach(), 4 * logits.detach()):
            problem = tell("checkfail.logits_grow_like_table")
    if problem:
        raise Failed(problem)


@check(
    cls=CLS,
    group="gradients",
    area="gradient accumulation",
    section=7,
    title="the shared .grad is the lookup path's gradient plus the head path's",
    needs=("test_tied_head_is_the_embedding_parameter", "test_tied_forward_returns_logits"),
)
def test_tied_gradients_from_both_ends_add_up(cls):
    model = _model(cls, vocab_size=10, embed_dim=4)
    ids, targets = torch.tensor([[1, 2, 3], [3, 0, 9]]), torch.tensor([[2, 3, 4], [0, 9, 1]])
    table = model.token_embed.weight
    logits = call(f"{CLS}.forward", model, ids)
    call("loss.backward()", F.cross_entropy(logits.reshape(-1, 10), targets.reshape(-1)).backward)
    # The same loss with an independent copy of the table at each end: each copy gets one path's gradient.
    e_in = table.detach().clone().requires_grad_()
    e_out = table.detach().clone().requires_grad_()
    F.cross_entropy((F.embedding(ids, e_in) @ e_out.T).reshape(-1, 10), targets.reshape(-1)).backward()
    head = model.lm_head.weight
    same = head.grad is table.grad
    problem = shown(gradient_problem(table.grad, e_in.grad, e_out.grad, same_object=same))
    if problem and embedding_options_problem(model.token_embed):
        problem = tell(
            "checkfail.with_embedding_option", problem=problem, option=embedding_options_problem(model.token_embed)
        )
    if problem:
        raise Failed(problem)
