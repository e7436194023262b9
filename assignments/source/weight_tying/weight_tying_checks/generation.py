"""Exercise 2's checks, generation side: the student's own greedy loop, the prompt kept, the context cropped."""

from __future__ import annotations

import copy
import dataclasses

import torch

from dnnlpy.models import gpt, sampling
from coursecheck.selfcheck import calls_into

from .diagnosis import generated_ids_problem, greedy_problem
from .self_check import Failed, call, check, listed, shown, tell
from .wrapper import CLS, SMALL, build, inner_of

__all__ = ["LIBRARY_DECODERS", "decode"]

# Calling any of these while the student's generate runs is delegation: the loop is what the exercise grades.
# The forward pass (self.minigpt(...)) and torch.argmax are fine.
LIBRARY_DECODERS = (
    gpt.MiniGPT.generate,
    sampling.greedy,
    sampling.sample_top_k,
    sampling.sample_top_p,
    sampling.sample_next_token,
)


@torch.no_grad()
def decode(inner: gpt.MiniGPT, ids: torch.Tensor, steps: int) -> torch.Tensor:
    """The greedy tokens the student's MiniGPT gives, from the library's own decoder (the checks' reference;
    the student's generate may not call it)."""
    return inner.generate(ids, steps)


def _repeat(prompt: torch.Tensor, token: torch.Tensor, steps: int) -> torch.Tensor:
    return torch.cat([prompt, token.expand(-1, steps)], dim=1)


def _shorter(inner: gpt.MiniGPT) -> gpt.MiniGPT:
    """A shallow copy of `inner` (the same modules and weights) whose config says block_size - 1."""
    view = copy.copy(inner)
    object.__setattr__(view, "config", dataclasses.replace(inner.config, block_size=inner.block_size - 1))
    return view


@torch.no_grad()
def _variant(name: str, inner: gpt.MiniGPT, prompt: torch.Tensor, steps: int) -> torch.Tensor | None:
    """The tokens of a decoder with the mistake `name`, or None where it cannot show. Each is simulated
    without writing a decoding loop out: the library's decoder takes the steps that are right."""
    block, t = inner.block_size, prompt.shape[1]
    if name == "missing_append":  # every step sees the prompt only
        return _repeat(prompt, decode(inner, prompt, 1)[:, -1:], steps)
    if name == "first_position" and t + steps <= block:  # the logits of the first position
        return _repeat(prompt, decode(inner, prompt[:, :1], 1)[:, -1:], steps)  # position 0 sees token 0 only
    if name == "first_block" and t <= block < t + steps:  # a crop to the first block_size tokens
        head = decode(inner, prompt, block - t + 1)  # right until the context holds block_size + 1 tokens
        return _repeat(head, head[:, -1:], t + steps - head.shape[1])  # then the same first block_size for ever
    if name == "short_block" and block > 1:  # a crop to block_size - 1 tokens
        return decode(_shorter(inner), prompt, steps)
    return None


VARIANTS = ("first_block", "short_block", "first_position", "missing_append")  # checkfail.variant.<name>


def _generate(model, prompt, steps):
    return call(
        tell("checkfail.call.generate", cls=CLS, shape=tuple(prompt.shape), steps=steps),
        model.generate,
        prompt,
        steps,
    )


def _sharpened(cls, **cfg):
    """A model whose greedy path depends on which tokens it sees (larger weights, sharper logits)."""
    model = build(cls, **cfg)
    with torch.no_grad():
        for p in inner_of(model).parameters():
            if p.dim() > 1:
                p.mul_(30)
    return model


def _named(out, expected, inner, prompt, steps) -> str | None:
    found = generated_ids_problem(out, prompt, steps) or greedy_problem(out, expected)
    if found is None:
        return None
    problem = shown(found)
    if found.first().key != "diag.generate.greedy":  # anything but "differs from greedy decoding"
        return problem
    for name in VARIANTS:
        other = _variant(name, inner, prompt, steps)
        if other is not None and torch.equal(out, other):
            return tell("checkfail.variant", problem=problem, name=tell(f"checkfail.variant.{name}"))
    if _first_token_over_positions(out, inner, prompt):
        return tell("checkfail.variant", problem=problem, name=tell("checkfail.variant.argmax_positions"))
    return problem


@torch.no_grad()
def _first_token_over_positions(out, inner: gpt.MiniGPT, prompt: torch.Tensor) -> bool:
    """The first new token is what an argmax over the positions (dim=1) gives, read at the last vocabulary id,
    and not the greedy one: one step is enough to tell (no decoding loop written out here)."""
    t = prompt.shape[1]
    if not (isinstance(out, torch.Tensor) and out.dim() == 2 and out.shape[1] > t) or t > inner.block_size:
        return False
    over_positions = inner(prompt).argmax(dim=1)[:, -1]  # (B, t, V) -> (B, V) positions -> the last id's (B,)
    greedy = decode(inner, prompt, 1)[:, -1]  # the library's own decoder: what is right
    return bool(torch.equal(out[:, t], over_positions)) and not torch.equal(over_positions, greedy)


@check(
    cls=CLS,
    group="generate",
    area="argmax generation",
    section=9,
    title="generate runs its own loop (no MiniGPT.generate, no dnnlpy sampling helper)",
    needs=("test_wrapper_holds_a_dnnlpy_minigpt",),
)
def test_generate_writes_its_own_loop(cls):
    model = build(cls)
    prompt = torch.randint(0, SMALL["vocab_size"], (1, 3))
    with calls_into(LIBRARY_DECODERS) as called:
        try:
            _generate(model, prompt, 3)
        except Failed as failure:
            if failure.key == "checkfail.not_implemented":
                raise
            # Other errors are named by the next checks; this one only asks who decoded.
    if called:
        raise Failed(tell("checkfail.delegated_generate", names=listed(called)))


@check(
    cls=CLS,
    group="generate",
    area="argmax generation",
    section=9,
    title="generate keeps the prompt and appends the argmax of the last position, step by step",
    needs=("test_generate_writes_its_own_loop",),
)
def test_generate_is_greedy_and_keeps_the_prompt(cls):
    model = build(cls)
    prompt = torch.randint(0, SMALL["vocab_size"], (3, 3))
    try:
        out = _generate(model, prompt, 4)
    except Failed as failure:
        try:  # a batch of one works but three rows fail: the loop reads a single value out of the batch
            call("generate", model.generate, prompt[:1], 4)
        except Failed:
            raise failure from None
        raise Failed(tell("checkfail.batch_fails", failure=failure, n=3)) from None
    # An untrained model's next-token distribution is nearly flat: sampling would show as two different calls.
    problem = shown(
        generated_ids_problem(out, prompt, 4) or greedy_problem(out, out, again=_generate(model, prompt, 4))
    )
    if problem is None:
        try:  # a batch of one must work too (a squeeze() would drop its batch dimension)
            single = _generate(model, prompt[:1], 4)
        except Failed as failure:
            raise Failed(tell("checkfail.batch_of_one", failure=failure)) from None
        problem = shown(generated_ids_problem(single, prompt[:1], 4))
    if problem is None:  # sharper weights: each row's greedy path depends on its own tokens
        model = _sharpened(cls)
        inner = inner_of(model)
        out, expected = _generate(model, prompt, 4), decode(inner, prompt, 4)
        problem = _named(out, expected, inner, prompt, 4)
        rows_alike = all(torch.equal(out[0, 3:], row) for row in out[1:, 3:])
        if problem and rows_alike and not all(torch.equal(expected[0, 3:], row) for row in expected[1:, 3:]):
            problem = tell("checkfail.rows_alike")
    if problem:
        raise Failed(problem)


@check(
    cls=CLS,
    group="generate",
    area="argmax generation",
    section=9,
    title="generate switches dropout off while it decodes, whatever mode the model is in",
    needs=("test_generate_is_greedy_and_keeps_the_prompt",),
)
def test_generate_turns_dropout_off(cls):
    model = _sharpened(cls, dropout=1.0)
    inner = inner_of(model)
    prompt = torch.randint(0, SMALL["vocab_size"], (2, 3))
    expected = decode(inner, prompt, 4)  # eval mode
    model.train()  # as a training loop leaves it
    out = _generate(model, prompt, 4)
    if not torch.equal(out, expected):
        raise Failed(tell("checkfail.dropout_on", got=out[:, 3:].tolist(), want=expected[:, 3:].tolist()))


@check(
    cls=CLS,
    group="generate",
    area="argmax generation",
    section=9,
    title="past block_size, each step sees only the last block_size tokens",
    needs=("test_generate_is_greedy_and_keeps_the_prompt",),
)
def test_generate_crops_past_block_size(cls):
    model = _sharpened(cls)
    inner = inner_of(model)
    prompt = torch.randint(0, SMALL["vocab_size"], (2, 6))
    try:
        out = _generate(model, prompt, 6)  # 12 tokens > block_size 8
    except Failed as failure:
        raise Failed(tell("checkfail.no_crop", failure=failure)) from None
    problem = _named(out, decode(inner, prompt, 6), inner, prompt, 6)
    if problem:
        raise Failed(problem)
