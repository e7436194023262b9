"""Untrusted: see which library decoders run while the student's `generate` runs.

The generation loop is the student's: `generate` must not hand the work to `MiniGPT.generate` or to
dnnlpy's sampling helpers. Calling the model itself (`self.minigpt(...)`) and torch (`torch.argmax`) are fine
and not recorded. For the length of one `generate` call the watch:

- swaps the code of each library decoder (the function object itself, so every way of reaching it counts: a
  method, a re-export, a name imported at module level, a reference saved earlier) for a relay that records
  the call and runs the original code; a thread, a `_thread.start_new_thread` or a forked child that calls
  it is recorded too (forked children record into memory shared with this process);
- installs a profile hook on the calling thread and on every thread `threading` starts, which records any
  code object from dnnlpy's decoder files under a decoder's name (a reloaded or re-compiled copy);
- checks afterwards that all of this is still in place: a profile hook removed or replaced, a decoder whose
  code or module attribute was put back (or reloaded), or a thread the call started that is still running
  when it returns counts as delegation suspected, reported as an entry starting with ``SWITCHED_OFF``.

`tied_by_library` watches the other half of the rule, exercise 1's construction: a TiedEmbeddingLM whose tied
pair comes from a dnnlpy MiniGPT built with weight_tying=True while it was constructed (its embedding and head
borrowed) did not tie anything itself.

What it cannot see (the README's "Residual risks" says so): a submission that digs the original code out of
the relay and runs it on an unwatched thread, copies the library's source into its own code, or runs a
fresh interpreter that imports its own dnnlpy. Every one of those is deliberate work against the grader,
not a way of writing a generation loop, and the watch can only take points away, never give them.
"""

from __future__ import annotations

import _thread
import inspect
import mmap
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

__all__ = ["DELEGATES", "SWITCHED_OFF", "delegate_functions", "delegate_codes", "watch_calls", "tied_by_library"]

# What counts as delegating the generation loop, by the name the evidence reports.
DELEGATES = (
    "dnnlpy.models.gpt.MiniGPT.generate",
    "dnnlpy.models.sampling.greedy",
    "dnnlpy.models.sampling.sample_top_k",
    "dnnlpy.models.sampling.sample_top_p",
    "dnnlpy.models.sampling.sample_next_token",
)
# The prefix of a `delegated` entry that says the watch itself was switched off or worked around.
SWITCHED_OFF = "watch switched off: "
_RELAY = "__weight_tying_watch_relay__"  # the name the relays look up in the decoder modules' globals
_ORIGINAL_CODES: dict[str, types.CodeType] = {}  # name -> the decoder's code before any watch swapped it


def delegate_functions() -> dict[str, Any]:
    """{name: the undecorated function} of the DELEGATES that can be imported here ({} without dnnlpy)."""
    try:
        from dnnlpy.models import gpt, sampling
    except ImportError:  # no dnnlpy: nothing to delegate to
        return {}
    found = (
        gpt.MiniGPT.generate,
        sampling.greedy,
        sampling.sample_top_k,
        sampling.sample_top_p,
        sampling.sample_next_token,
    )
    # MiniGPT.generate is wrapped by torch.no_grad(): the code that runs is the undecorated function's.
    return {name: inspect.unwrap(fn) for name, fn in zip(DELEGATES, found, strict=True)}


def delegate_codes() -> dict[Any, str]:
    """{code object: name} of the DELEGATES that can be imported here ({} without dnnlpy)."""
    return {fn.__code__: name for name, fn in delegate_functions().items()}


def _relay_code(index: int, code: types.CodeType) -> types.CodeType:
    """A code object with no free variables that hands (index, args, kwargs) to the relay in its globals."""
    scope: dict[str, Any] = {}
    exec(f"def relay(*args, **kwargs):\n    return {_RELAY}({index}, args, kwargs)\n", scope)  # noqa: S102
    return scope["relay"].__code__.replace(co_name=code.co_name, co_qualname=code.co_qualname)


def _module_bindings(functions: dict[str, Any]) -> list[tuple[dict, str, Any]]:
    """(module dict, attribute, object) for every dnnlpy module attribute that holds a decoder or MiniGPT
    (a reload rebinds them to fresh copies, whose code the relays do not cover)."""
    held = {id(fn) for fn in functions.values()}
    generate = sys.modules.get("dnnlpy.models.gpt")
    cls = getattr(generate, "MiniGPT", None)
    if cls is not None:
        held |= {id(cls), id(cls.__dict__.get("generate"))}
    out = []
    for name, module in list(sys.modules.items()):
        if name == "dnnlpy" or name.startswith("dnnlpy."):
            for attr, value in list(vars(module).items()):
                if id(value) in held:
                    out.append((vars(module), attr, value))
    if cls is not None:
        out.append((cls.__dict__, "generate", cls.__dict__.get("generate")))
    return out


class _Watch:
    """One watched call: install, run, check, restore."""

    def __init__(self) -> None:
        self.functions = delegate_functions()
        self.names = list(self.functions)
        self.seen: list[str] = []
        # Each decoder's own code as first seen in this process: a watch built while another one's relays are
        # still in place (or after a submission left one there) must not take a relay for the original.
        codes = {name: _ORIGINAL_CODES.setdefault(name, fn.__code__) for name, fn in self.functions.items()}
        originals = {code: name for name, code in codes.items()}
        self.by_code = originals
        self.by_place = {(c.co_filename, c.co_name) for c in originals}
        self.copies: list[Any] = []
        self.relays: dict[str, types.CodeType] = {}
        for i, (name, fn) in enumerate(self.functions.items()):
            copy = types.FunctionType(codes[name], fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
            copy.__kwdefaults__ = fn.__kwdefaults__
            self.copies.append(copy)
            if not codes[name].co_freevars:  # a relay cannot stand in for a function with a closure
                self.relays[name] = _relay_code(i, codes[name])
        self.bindings = _module_bindings(self.functions)
        # One bound-method object each: the checks compare identities, and every attribute access of a
        # method makes a new one.
        self.hook, self.relay = self._hook, self._relay
        # One byte per delegate, shared with any child forked while this call runs (MAP_SHARED survives fork),
        # and with nothing else: made per call, never at import, where every process forked from this one
        # (each sandboxed run from a warm worker, each sweep worker) would share one map.
        self.shared = mmap.mmap(-1, len(DELEGATES))

    def record(self, name: str) -> None:
        if name not in self.seen:
            self.seen.append(name)

    def _relay(self, index: int, args: tuple, kwargs: dict) -> Any:
        self.shared[index] = 1
        self.record(self.names[index])
        return self.copies[index](*args, **kwargs)

    def _hook(self, frame, event, arg) -> None:
        if event == "call":
            code = frame.f_code
            name = self.by_code.get(code)
            if name is None and (code.co_filename, code.co_name) in self.by_place:
                name = next(n for c, n in self.by_code.items() if c.co_name == code.co_name)
            if name is not None:
                self.record(name)

    def install(self) -> None:
        for name, code in self.relays.items():
            fn = self.functions[name]
            fn.__globals__[_RELAY] = self.relay
            fn.__code__ = code

    def restore(self) -> None:
        for name, fn in self.functions.items():
            fn.__code__ = self.copies[self.names.index(name)].__code__
            fn.__globals__.pop(_RELAY, None)

    def problems(self) -> list[str]:
        """What was switched off or put back while the call ran (checked before anything is restored)."""
        out = []
        if sys.getprofile() is not self.hook:
            out.append("the profile hook on the calling thread was removed or replaced (sys.setprofile)")
        if getattr(threading, "_profile_hook", self.hook) is not self.hook:
            out.append("the profile hook for new threads was removed or replaced (threading.setprofile)")
        for name, code in self.relays.items():
            fn = self.functions[name]
            if fn.__code__ is not code or fn.__globals__.get(_RELAY) is not self.relay:
                out.append(f"the watch on {name} was taken off")
        for space, attr, value in self.bindings:
            if space.get(attr) is not value:
                out.append(f"dnnlpy was changed or reloaded ({attr} rebound)")
                break
        return out


def watch_calls(fn: Callable[[], Any]) -> tuple[Any, list[str]]:
    """(fn(), the DELEGATES it called, in first-call order, then any SWITCHED_OFF entries). Exceptions of fn
    propagate."""
    watch = _Watch()
    previous, previous_threads = sys.getprofile(), getattr(threading, "_profile_hook", None)
    threads = _thread._count()
    watch.install()
    threading.setprofile(watch.hook)
    sys.setprofile(watch.hook)
    problems: list[str] = []
    try:
        result = fn()
    finally:
        problems = watch.problems()
        sys.setprofile(previous)
        threading.setprofile(previous_threads)
        watch.restore()
    if _thread._count() > threads:
        problems.append("a thread that generate started was still running when it returned")
    for i, name in enumerate(watch.names):
        if watch.shared[i]:  # a forked child called it
            watch.record(name)
    return result, watch.seen + [SWITCHED_OFF + p for p in problems]


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
