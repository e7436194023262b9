"""Untrusted: the weight_tying warm-up, run once in each warm worker's fork server before it forks any run.

What the notebook's cells and the experiments pay the first time in a process, paid here once instead of in
every child: matplotlib's first figure (Agg canvas, text and legend machinery), the notebook's tokenizer training
(dnnlpy keeps what it trained, so a run's tokenizer cell reads a copy), the first forward, loss, backward and
decoding step of a dnnlpy MiniGPT (torch's lazily resolved kernels), and the experiments' own first draws,
serialisation and hashing. No submission is here: the server has not forked yet, and it never receives one.
What it leaves behind is what a fresh interpreter cannot tell apart from its own state: every figure closed,
the random states put back, no warning remembered, no variable of the environment changed, the tokenizer's
thread pool never started; the tokenizer dnnlpy keeps is the one the cell would train.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import sys
import warnings
from collections.abc import Iterator

__all__ = ["warm_up", "plan_ready"]

# Set for the warm-up's own training only: the thread pool the tokenizers library starts would not survive the
# fork (a fork keeps the forking thread alone), and the server must hold one thread when it forks.
_NO_THREADS = "TOKENIZERS_PARALLELISM"
# The vocabulary the notebook's tokenizer cell trains to (both editions; ``test_warm_up.py`` holds them equal).
NOTEBOOK_VOCAB = 300


def warm_up() -> None:
    """Run each first-time path once; nothing of it stays observable (see the module docstring)."""
    with _as_found(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # only what the server imported (a worker for one submission imports only what that one names)
        if "matplotlib.pyplot" in sys.modules:
            _figure()
        if "dnnlpy.tokenizers" in sys.modules:
            _tokenizer()
        _model()


@contextlib.contextmanager
def _as_found() -> Iterator[None]:
    """Put back the random states (Python's, numpy's, torch's) the block changes."""
    import numpy
    import torch

    python, legacy, generator = random.getstate(), numpy.random.get_state(), torch.get_rng_state()
    try:
        yield
    finally:
        random.setstate(python)
        numpy.random.set_state(legacy)
        torch.set_rng_state(generator)


def _figure() -> None:
    """The notebook's plot: a figure, a line, a marker line, labels, a legend (never drawn: a run's Agg figure is
    not drawn either, and the first draw costs ~45 ms, more than a class of runs would save)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    try:
        ax.plot([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], label="a")
        ax.axvline(2.0, color="gray", linestyle=":", label="b")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_title("t")
        ax.legend()
    finally:
        plt.close(fig)


def _tokenizer() -> None:
    """The notebook's own training (its tokenizer cell: the shipped corpus's lines, `NOTEBOOK_VOCAB`): dnnlpy keeps
    what it trained, so each run's cell reads a copy of it instead of training again (``dnnlpy.tokenizers``)."""
    from dnnlpy.tokenizers import Tokenizer, load_corpus

    before = os.environ.get(_NO_THREADS)
    os.environ[_NO_THREADS] = "false"
    try:
        tokenizer = Tokenizer.train_from_iterator(load_corpus().splitlines(), vocab_size=NOTEBOOK_VOCAB)
        tokenizer.decode(tokenizer.encode("the model reads tokens").ids)
    finally:
        if before is None:
            del os.environ[_NO_THREADS]
        else:
            os.environ[_NO_THREADS] = before


def _model() -> None:
    """A tiny tied MiniGPT: forward, a greedy step as a student's loop takes it, the loss and its backward; a
    state_dict's save and load, the judge's values and a record's seal, as the experiments do them; a tensor
    printed."""
    import torch

    from autograder.graders.weight_tying.runner import evidence, seal, values
    from dnnlpy.models.gpt import MiniGPT

    model = MiniGPT(vocab_size=8, block_size=4, embed_dim=4, num_layers=1, num_heads=2, hidden_dim=8, weight_tying=True)
    shapes = values.load_judge_values(model, 0)
    ids = torch.tensor([[1, 2, 3]])
    model.eval()
    with torch.no_grad():
        step = model(ids)[:, -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, step], dim=1)
    model.train()
    model.loss(ids).backward()
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    model.load_state_dict(torch.load(buffer, weights_only=False))
    cases = [{"logits": model(ids).detach().clone(), "state_shapes": shapes}]
    seal.digest(evidence.GptHeads.NAME, {"cases": cases}, evidence.GptHeads)
    repr(ids), repr(cases[0]["logits"])  # a tensor printed, as the notebook's cells print them (~1.5 ms the first time)


def plan_ready(job: dict | None) -> None:
    """The fork server's memo of the judge's values for the plan in `job` (the part every job of one plan holds):
    each load and token table the experiments draw for a MiniGPT built as the plan configures it (``values.
    remember``), so that no run draws them again; None: forget them. A submission whose MiniGPT has other
    shapes draws its own, as every run did. Builds a dnnlpy MiniGPT per configuration to read its state's shapes;
    the random state it draws from is put back."""
    from autograder.graders.weight_tying.runner import experiments, values

    values.forget()
    if job is None:
        return
    loads, tables = experiments._drawn(job["plan"])
    with _as_found():
        shapes = {}
        for cfg, seed, gain in loads:
            key = tuple(sorted(cfg.items()))
            if key not in shapes:
                shapes[key] = _state_shapes(cfg)
            values.remember(seed, shapes[key], gain=gain)
        for cfg, seed in tables:
            values.remember_table(seed, (cfg["vocab_size"], cfg["embed_dim"]))


def _state_shapes(cfg: dict) -> dict[str, list[int]]:
    """{key: shape} of the floating-point entries of a tied dnnlpy MiniGPT's state built with `cfg`."""
    from dnnlpy.models.gpt import MiniGPT

    state = MiniGPT(**cfg, weight_tying=True).state_dict()
    return {key: list(value.shape) for key, value in state.items() if value.is_floating_point()}
