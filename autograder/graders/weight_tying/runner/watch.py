"""Untrusted: see which library decoders run while the student's `generate` runs.

The generation loop is the student's: `generate` must not hand the work to `MiniGPT.generate` or to
dnnlpy's sampling helpers. Calling the model itself (`self.minigpt(...)`) and torch (`torch.argmax`) are fine
and not recorded. For the length of one `generate` call the watch:

- swaps the code of each library decoder (the function object itself, so every way of reaching it counts: a
  method, a re-export, a name imported at module level, a reference saved earlier) for a relay that records
  the call and runs the original code; a thread, a `_thread.start_new_thread` or a forked child that calls
  it is recorded too (forked children record into memory shared with this process);
- profiles the calling thread with the interpreter's C profiler (`_lsprof`, cProfile's engine: it keeps one
  entry per code object that ran, and costs a fraction of a Python hook, which the interpreter calls with a
  frame turned into a locals dict on every call and every C call) and installs a Python profile hook on every
  thread `threading` starts; afterwards (the threads' hook: as it runs) any code object from dnnlpy's decoder
  files under a decoder's name is recorded (a reloaded or re-compiled copy);
- checks afterwards that all of this is still in place: a profiler or profile hook removed or replaced, a decoder whose
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

import _lsprof
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
_RELAY = "__weight_tying_watch_relay__"  # the name the relays look up in the decoder modules' globals (as written
# in _relay_template)
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


# The relays' code, -1 standing for the decoder's index: a module function, so the seal watches its code.
def _relay_template(*args, **kwargs):
    return __weight_tying_watch_relay__(-1, args, kwargs)  # noqa: F821 (looked up in the decoder's globals)


def _relay_code(index: int, code: types.CodeType) -> types.CodeType:
    """A code object with no free variables that hands (index, args, kwargs) to the relay in its globals: the
    template's with the index in place of -1 (no compile per watched call), shown in a traceback as
    `<string>:2 in <the decoder's name>`, as the relays compiled from a string were."""
    template = _relay_template.__code__
    consts = tuple(index if type(c) is int and c == -1 else c for c in template.co_consts)
    return template.replace(
        co_consts=consts, co_name=code.co_name, co_qualname=code.co_qualname, co_filename="<string>", co_firstlineno=1
    )


def _dnnlpy_modules() -> list[Any]:
    """The modules of sys.modules named dnnlpy or dnnlpy.*, in its order (a name that is no str is none of them)."""
    return [
        module
        for name, module in list(sys.modules.items())
        if isinstance(name, str) and (name == "dnnlpy" or name.startswith("dnnlpy."))
    ]


def _module_bindings(functions: dict[str, Any]) -> list[tuple[dict, str, Any]]:
    """(module dict, attribute, object) for every dnnlpy module attribute that holds a decoder or MiniGPT
    (a reload rebinds them to fresh copies, whose code the relays do not cover)."""
    held = {id(fn) for fn in functions.values()}
    generate = sys.modules.get("dnnlpy.models.gpt")
    cls = getattr(generate, "MiniGPT", None)
    if cls is not None:
        held |= {id(cls), id(cls.__dict__.get("generate"))}
    out = []
    for module in _dnnlpy_modules():
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
        # The calling thread's profiler: one entry per code object that ran (C calls not even looked at).
        self.profiler = _lsprof.Profiler(subcalls=False, builtins=False)
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

    def _decoder(self, code: Any) -> str | None:
        """The decoder's name if `code` is a decoder's code or a copy of it (same file and name), else None."""
        name = self.by_code.get(code)
        if name is None and (getattr(code, "co_filename", None), getattr(code, "co_name", None)) in self.by_place:
            name = next(n for c, n in self.by_code.items() if c.co_name == code.co_name)
        return name

    def _hook(self, frame, event, arg) -> None:
        """The profile hook of the threads `threading` starts while the call runs."""
        if event == "call":
            name = self._decoder(frame.f_code)
            if name is not None:
                self.record(name)

    def profiled(self) -> list[str]:
        """Record the decoders whose code (or a copy of it) ran on the calling thread, in DELEGATES order;
        return what went wrong with the profiler (its entries cleared while the call ran)."""
        codes = [entry.code for entry in self.profiler.getstats()]
        names = {self._decoder(code) for code in codes}
        for name in DELEGATES:
            if name in names:
                self.record(name)
        if not any(code is _started.__code__ for code in codes):
            return ["the profiler on the calling thread was cleared"]
        return []

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
        if sys.getprofile() is not self.profiler:
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
    """(fn(), the DELEGATES it called, then any SWITCHED_OFF entries). Exceptions of fn propagate.

    The DELEGATES come in first-call order as the relays and the threads' hook saw them, then those only the
    calling thread's profiler saw (a copy of a decoder's code), in DELEGATES order, then those a forked child
    called."""
    watch = _Watch()
    previous, previous_threads = sys.getprofile(), getattr(threading, "_profile_hook", None)
    threads = _thread._count()
    watch.install()
    threading.setprofile(watch.hook)
    watch.profiler.enable(subcalls=False, builtins=False)
    _started()
    problems: list[str] = []
    try:
        result = fn()
    finally:
        problems = watch.problems()
        watch.profiler.disable()
        _set_profile(previous)
        threading.setprofile(previous_threads)
        watch.restore()
    problems += watch.profiled()
    if _thread._count() > threads:
        problems.append("a thread that generate started was still running when it returned")
    for i, name in enumerate(watch.names):
        if watch.shared[i]:  # a forked child called it
            watch.record(name)
    return result, watch.seen + [SWITCHED_OFF + p for p in problems]


def _started() -> None:
    """Called on the watched thread as soon as its profiler starts: an entry the profiler must still hold when
    the call returns (a profiler cleared by the student's code holds none)."""


def _set_profile(previous: Any) -> None:
    """Put back the calling thread's profiler found before the call: a C profiler (cProfile, or the watch of
    the process this one was forked from) is enabled again, since sys.setprofile takes a Python hook only."""
    if isinstance(previous, _lsprof.Profiler):
        previous.enable()
    else:
        sys.setprofile(previous)


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
