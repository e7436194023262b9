"""Trusted: the judge's models of `generate`: greedy decoding and each misconception of it, run on the plan's weights.

A generation test names a misconception only when one of these models reproduces, token for token, what the
student's `generate` returned for that case (or raises where it raised): float ids are `ids_dtype` only when they
are the greedy tokens, a sequence without its prompt is `prompt_not_preserved` only when the rest is the greedy
continuation, two calls that differ are `sampling` only when a sampler drawing from the model's own softmax (the
runner seeds torch's generator before each call) gives both. A model is a `Decoder` (how each next token is
chosen: the crop, the position read, the axis of the argmax, the batch, dropout) and a `Returned` (what comes
back: the whole sequence, the new tokens only, one token short, floats). What no model reproduces names nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch
from torch import Tensor

from autograder.graders.weight_tying.judge.models import minigpt_from_state, training
from autograder.graders.weight_tying.judge.reference import IdentityMemo
from autograder.graders.weight_tying.messages import CATALOG

__all__ = [
    "RAISES",
    "Decoder",
    "Returned",
    "Model",
    "DECODERS",
    "RETURNED",
    "GREEDY",
    "FULL",
    "outcome",
    "gives",
    "explain",
    "same_outcome",
]

RAISES = "raises"  # the outcome of a case whose generate raised (what it raised is never read)


@dataclass(frozen=True)
class Decoder:
    """How a decoder chooses each next token (the defaults are greedy decoding). The misconception it shows is the
    one its message declares in the catalog (``misconception``); the right decoder has no message."""

    name: str
    message: str = ""  # the catalog id that names its mistake
    crop: str | None = "last"  # the context fed to the model: its last / first block_size tokens; None: all of it
    position: int = -1  # the position whose logits choose the token
    append: bool = True  # the chosen token is appended to the context (not only to the output)
    row0: bool = False  # every row continues with row 0's token
    axis: str | None = None  # "time": argmax over the positions, read at the last (or first) vocabulary entry
    column: int = -1
    sampler: str | None = None  # "multinomial", "replacement", "categorical": a draw instead of the argmax
    batch: str | None = None  # "squeeze": raises for a batch of one; "row": raises for several rows
    gloss: str = ""  # the catalog id of what its mistake misses, said after the sentence naming it ("" for none)

    @property
    def misconception(self) -> str | None:
        return _named(self.message)


@dataclass(frozen=True)
class Returned:
    """What a decoder's sequence comes back as (its misconception, as ``Decoder``'s, its message's)."""

    name: str
    message: str = ""

    @property
    def misconception(self) -> str | None:
        return _named(self.message)


def _named(message: str) -> str | None:
    """The misconception the catalog's `message` declares (None for no message); KeyError naming an unknown id."""
    if not message:
        return None
    if message not in CATALOG:
        raise KeyError(f"decoder message {message!r} is not in the weight_tying catalog: add it to a messages_ part")
    return CATALOG[message].names


@dataclass(frozen=True)
class Model:
    decoder: Decoder
    returned: Returned
    train: bool = False  # decoded with dropout on (the model left in train mode)

    @property
    def misconceptions(self) -> tuple[str, ...]:
        found = [self.decoder.misconception, self.returned.misconception, "dropout_in_generate" if self.train else None]
        return tuple(dict.fromkeys(m for m in found if m))

    @property
    def sampling(self) -> bool:
        return self.decoder.sampler is not None


GREEDY = Decoder("greedy")
_SAMPLING = "judge.gen.gloss.sampling"
DECODERS = (
    GREEDY,
    Decoder("crop first", "suite.gen.crop_first", crop="first"),
    Decoder("crop block_size - 1", "suite.gen.crop_short", crop="last_minus_1"),
    Decoder("no crop", "suite.gen.no_crop", crop=None),
    Decoder("first position", "suite.gen.first_position", position=0),
    Decoder("second-to-last position", "suite.gen.second_to_last_position", position=-2),
    Decoder("missing append", "judge.gen.missing_append", append=False),
    Decoder("argmax over positions", "judge.gen.model.argmax_positions", axis="time"),
    Decoder("argmax over positions, first id", "judge.gen.model.argmax_positions", axis="time", column=0),
    Decoder("row 0 for every row", "suite.gen.row0_for_every_row", row0=True),
    Decoder("batch dimension squeezed", "judge.gen.batch_of_one", batch="squeeze"),
    Decoder("token appended as a row", "judge.gen.model.batch_only_append", batch="row"),
    Decoder("multinomial", "judge.gen.model.sampling", sampler="multinomial", gloss=_SAMPLING),
    Decoder("multinomial with replacement", "judge.gen.model.sampling", sampler="replacement", gloss=_SAMPLING),
    Decoder("Categorical", "judge.gen.model.sampling", sampler="categorical", gloss=_SAMPLING),
)
FULL = Returned("the whole sequence")
RETURNED = (
    FULL,
    Returned("the new tokens only", "judge.gen.model.only_new"),
    Returned("one token short", "judge.gen.model.one_short"),
    Returned("float ids", "judge.gen.model.float"),
)
# Each call's generator seed (runner/experiments.py gpt_generate seeds torch's generator so before each call).
CALL_SEEDS = {"first": 1, "second": 2}

_MODELS = IdentityMemo(size=64)  # one judge MiniGPT per plan case
_SEQUENCES = IdentityMemo(size=2048)  # (case, decoder, train, seed) -> sequence or RAISES


def _crop(ids: Tensor, block: int, how: str | None) -> Tensor:
    if how is None:
        return ids
    if how == "first":
        return ids[:, :block]
    if how == "last_minus_1":
        return ids[:, -(block - 1) :] if block > 1 else ids[:, -1:]
    return ids[:, -block:]


def _next(last: Tensor, logits: Tensor, decoder: Decoder) -> Tensor:
    """The next token of every row (B, 1) from the step's logits (B, t, V) and the row read (B, V)."""
    if decoder.axis == "time":
        return logits.argmax(dim=1)[:, decoder.column].unsqueeze(-1)  # positions (B, V) -> one column (B, 1)
    if decoder.sampler == "categorical":
        return torch.distributions.Categorical(logits=last).sample().unsqueeze(-1)
    if decoder.sampler is not None:
        return torch.multinomial(last.softmax(-1), 1, replacement=decoder.sampler == "replacement")
    nxt = last.argmax(-1, keepdim=True)  # (B, V) -> (B, 1)
    return nxt[:1].expand_as(nxt) if decoder.row0 else nxt


@torch.no_grad()
def _decode(model, ids: Tensor, n: int, decoder: Decoder) -> Tensor | str:
    b = ids.shape[0]
    if (decoder.batch == "squeeze" and b == 1) or (decoder.batch == "row" and b > 1):
        return RAISES
    block = model.block_size
    context, out = ids, ids
    for _ in range(n):
        fed = _crop(context, block, decoder.crop)
        if fed.shape[1] > block:  # the position table has block_size rows
            return RAISES
        logits = model(fed)  # (B, t, V)
        position = decoder.position if logits.size(1) >= abs(decoder.position) or decoder.position >= 0 else -1
        nxt = _next(logits[:, position, :], logits, decoder)
        out = torch.cat([out, nxt], dim=1)  # (B, t) -> (B, t + 1)
        if decoder.append:
            context = out
    return out


def _model_of(case):
    return _MODELS.get((case,), lambda: minigpt_from_state(case["cfg"], case["state"]))


def outcome(case, decoder: Decoder, *, train: bool = False, call: str = "first") -> Tensor | str:
    """What `decoder` gives on the plan `case` (its prompt, weights and max_new_tokens): a sequence (B, T + n)
    int64, or RAISES. Kept per case: every student of a class is judged against the same few decodes."""
    seed = CALL_SEEDS[call] if decoder.sampler else 0

    def compute():
        model = _model_of(case)
        with torch.random.fork_rng(devices=[]):  # the judge's own generator, seeded as the runner seeds it
            torch.manual_seed(seed)
            if not train:
                return _decode(model, case["ids"], case["max_new_tokens"], decoder)
            with training(model):
                return _decode(model, case["ids"], case["max_new_tokens"], decoder)

    return _SEQUENCES.get((case, decoder, train, seed), compute)


def _returned(sequence: Tensor | str, returned: Returned, t: int) -> Tensor | str:
    if not isinstance(sequence, Tensor):
        return sequence
    if returned.name == "the new tokens only":
        return sequence[:, t:]
    if returned.name == "one token short":
        return sequence[:, :-1]
    if returned.name == "float ids":
        return sequence.float()
    return sequence


def same_outcome(a: object, b: object) -> bool:
    """Two outcomes are the same: tensors of one dtype and shape, equal element for element; RAISES and RAISES;
    anything else (a hang's failure) only itself."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    return a is b or (isinstance(a, str) and a == b)


def models(case, *, train_mode: bool = False) -> Iterator[Model]:
    """Every model the judge holds for a case: each decoder with each way of returning, in eval mode, and on the
    case handed over in train mode also with dropout left on."""
    for train in (False, True) if train_mode else (False,):
        for decoder in DECODERS:
            for returned in RETURNED:
                if decoder.sampler and returned.name == "float ids":
                    continue
                yield Model(decoder, returned, train)


def gives(model: Model, case, got: Tensor | str, *, call: str = "first") -> bool:
    """Whether `model` reproduces `got`, what generate returned for `case` on this call (or RAISES)."""
    want = _returned(outcome(case, model.decoder, train=model.train, call=call), model.returned, case["ids"].shape[1])
    return same_outcome(got, want)


def explain(returned: list[tuple[dict, str, Tensor | str]], *, train_mode: bool = False) -> list[Model]:
    """The models that reproduce every (case, call, what generate returned) of `returned`, the fewest mistakes
    first; [] when none does (what one generate does to all its cases is what a model must do too)."""
    if not returned:
        return []
    found = [
        model
        for model in models(returned[0][0], train_mode=train_mode)
        if all(gives(model, case, got, call=call) for case, call, got in returned)
    ]
    return sorted(found, key=lambda m: len(m.misconceptions))
