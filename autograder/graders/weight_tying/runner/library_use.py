"""Untrusted: what the student's code took from dnnlpy instead of writing it: a tie, or the decoder.

Exercise 1 ties its own embedding and head: ``tied_by_library`` names the tables of every dnnlpy MiniGPT built
with weight_tying=True while a TiedEmbeddingLM was built, so a pair borrowed from one (the library tied it) is
told apart from a pair the student tied.

Exercise 2's generate is the student's own loop: the graded run's dnnlpy withholds the decoder
(``MiniGPT.generate``, ``dnnlpy.models.sampling``: stubs that raise, see ``autograder.sandbox.library``), so
there is nothing to hand the loop to. ``withheld_reached`` calls generate and reports which stubs it reached,
read from the stubs' own record and the exception type they raise, never from text: the judge names the
misconception from it. Reached on another thread, a stub ends the call as well. Everything here is the
runner's word: a submission that hides a stub it reached still reached nothing that decodes, and its generate
has nothing to return.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["STUBS", "tied_by_library", "withheld_reached"]

STUBS = "dnnlpy._withheld"  # the stubs' module in the grader's copy of dnnlpy (absent from the real library)


def withheld_reached(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    """(call(), []) when it reached no withheld function of dnnlpy, else (None, their names in first-call order).

    A call that reached one returns nothing: whatever it made of the stub's exception is not a loop of its
    own. Other exceptions of `call` propagate."""
    try:
        stubs = importlib.import_module(STUBS)
    except ImportError:  # the real library (a test of the runner's own): nothing is withheld
        return call(), []
    before = len(stubs.REACHED)
    try:
        with stubs.checking():
            result = call()
    except stubs.NotAvailableWhileGrading:
        result = None
    except Exception:
        if len(stubs.REACHED) <= before:
            raise
        result = None  # it reached a stub, then failed for want of what the stub would have returned
    reached = list(dict.fromkeys(stubs.REACHED[before:]))
    return (None if reached else result), reached


def tied_by_library(build: Callable[[], Any]) -> tuple[Any, list[Any]]:
    """(build(), the token tables of every dnnlpy MiniGPT built with weight_tying=True while build() ran).

    MiniGPT.__init__ is wrapped for that time only (a subclass's super().__init__() goes through it too);
    exceptions of build propagate, and the class is put back in every case."""
    try:
        from dnnlpy.models.gpt import MiniGPT
    except ImportError:  # no dnnlpy: nothing to borrow from
        return build(), []
    original = MiniGPT.__dict__["__init__"]
    built: list[Any] = []

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        built.append(self)

    MiniGPT.__init__ = init
    try:
        result = build()
    finally:
        MiniGPT.__init__ = original
    tables = []
    for model in built:
        config, embed = getattr(model, "config", None), getattr(model, "token_embed", None)
        if getattr(config, "weight_tying", False) is True and embed is not None:
            tables.append(embed.weight)
    return result, tables
