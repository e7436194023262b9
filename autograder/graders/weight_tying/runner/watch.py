"""Untrusted: see which library decoders run while the student's `generate` runs.

The generation loop is the student's: `generate` must not hand the work to `MiniGPT.generate` or to
dnnlpy's sampling helpers. A profile hook records every Python call whose code object is one of those
functions, however the student reached it (a method, a re-export, a name imported at module level).
Calling the model itself (`self.minigpt(...)`) and torch (`torch.argmax`) are fine and not recorded.

A hostile submission can switch the hook off; that is acceptable: the watch can only take points away
(a delegating `generate` scores zero for generation), so defeating it earns nothing a correct loop would not.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["DELEGATES", "delegate_codes", "watch_calls"]

# What counts as delegating the generation loop, by the name the evidence reports.
DELEGATES = (
    "dnnlpy.models.gpt.MiniGPT.generate",
    "dnnlpy.models.sampling.greedy",
    "dnnlpy.models.sampling.sample_top_k",
    "dnnlpy.models.sampling.sample_top_p",
    "dnnlpy.models.sampling.sample_next_token",
)


def delegate_codes() -> dict[Any, str]:
    """{code object: name} of the DELEGATES that can be imported here ({} without dnnlpy)."""
    try:
        from dnnlpy.models import gpt, sampling
    except ImportError:  # no dnnlpy: nothing to delegate to
        return {}
    found = {
        DELEGATES[0]: gpt.MiniGPT.generate,
        DELEGATES[1]: sampling.greedy,
        DELEGATES[2]: sampling.sample_top_k,
        DELEGATES[3]: sampling.sample_top_p,
        DELEGATES[4]: sampling.sample_next_token,
    }
    # MiniGPT.generate is wrapped by torch.no_grad(): the code that runs is the undecorated function's.
    return {inspect.unwrap(fn).__code__: name for name, fn in found.items()}


def watch_calls(fn: Callable[[], Any]) -> tuple[Any, list[str]]:
    """(fn(), the DELEGATES it called, in first-call order). Exceptions of fn propagate."""
    codes = delegate_codes()
    seen: list[str] = []

    def hook(frame, event, arg):
        if event == "call":
            name = codes.get(frame.f_code)
            if name is not None and name not in seen:
                seen.append(name)

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        result = fn()
    finally:
        sys.setprofile(previous)
    return result, seen
