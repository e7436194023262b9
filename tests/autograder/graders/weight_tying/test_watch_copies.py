"""The delegation watch sees a copy of a library decoder's code (the relays cover only the function objects):
source compiled again, the file loaded as a second module, a code object kept from before the watch, a copy
that raises, a copy run on a `threading` thread; and it leaves a profiler that was running before it running."""

from __future__ import annotations

import cProfile
import importlib.util
import inspect
import sys
import textwrap
import threading
import types

import pytest
import torch

from autograder.graders.weight_tying.runner.watch import DELEGATES, SWITCHED_OFF, watch_calls
from dnnlpy.models import gpt, sampling

GREEDY, TOP_K = DELEGATES[1], DELEGATES[2]
_KEPT_CODE = sampling.greedy.__code__  # as a submission could keep it at import, before any watch


@pytest.fixture
def logits():
    return torch.tensor([[0.1, 2.0, -1.0, 0.5]])


def _compiled_again() -> dict:
    """sampling's source compiled from its own file and run in a fresh namespace: no module is rebound."""
    scope = {"__name__": "dnnlpy.models._copy", "__package__": "dnnlpy.models"}
    exec(compile(inspect.getsource(sampling), sampling.__file__, "exec"), scope)  # noqa: S102
    return scope


def test_source_compiled_again_is_seen_and_is_no_reload(logits):
    out, seen = watch_calls(lambda: _compiled_again()["greedy"](logits))
    assert seen == [GREEDY]  # by the copy's file and name; nothing of dnnlpy was rebound
    assert out.tolist() == [1]


def test_the_file_loaded_as_a_second_module_is_seen(logits):
    def delegate():
        spec = importlib.util.spec_from_file_location("dnnlpy.models._second", sampling.__file__)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.sample_top_k(logits, 2)

    _, seen = watch_calls(delegate)
    assert TOP_K in seen and not [s for s in seen if s.startswith(SWITCHED_OFF)], seen


def test_a_code_object_kept_from_before_the_watch_is_seen(logits):
    out, seen = watch_calls(lambda: types.FunctionType(_KEPT_CODE, vars(sampling))(logits))
    assert seen == [GREEDY]
    assert out.tolist() == [1]


def test_a_copy_that_raises_is_seen(logits):
    def delegate():
        try:
            _compiled_again()["greedy"]("not logits")
        except ValueError:
            pass
        return logits.argmax(-1)

    _, seen = watch_calls(delegate)
    assert seen == [GREEDY]


def test_a_copy_on_a_threading_thread_is_seen(logits):
    def delegate():
        out = {}
        copy = _compiled_again()["greedy"]
        thread = threading.Thread(target=lambda: out.update(ids=copy(logits)))
        thread.start()
        thread.join()
        return out["ids"]

    _, seen = watch_calls(delegate)
    assert GREEDY in seen


def test_a_copy_of_the_generate_method_is_seen():
    torch.manual_seed(0)
    model = gpt.MiniGPT(11, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16, weight_tying=True).eval()
    source = textwrap.dedent(inspect.getsource(inspect.unwrap(gpt.MiniGPT.generate)))
    scope = dict(vars(gpt))  # the method alone compiled again from gpt.py's text, in a copy of its globals
    exec(compile(source, gpt.__file__, "exec"), scope)  # noqa: S102
    generate = scope["generate"]
    _, seen = watch_calls(lambda: generate(model, torch.tensor([[1, 2]]), 2, do_sample=False))
    assert DELEGATES[0] in seen


def test_a_profiler_running_before_the_watch_runs_after_it(logits):
    def after():  # a Python function the outer profiler must see, called once the watch is over
        return 1

    outer = cProfile.Profile()
    outer.enable()
    try:
        watch_calls(lambda: logits.argmax(-1))
        assert sys.getprofile() is outer
        after()
    finally:
        outer.disable()
    assert any(getattr(e.code, "co_name", None) == "after" for e in outer.getstats())


def test_clearing_the_profiler_is_seen(logits):
    def delegate():
        out = _compiled_again()["greedy"](logits)
        sys.getprofile().clear()  # the profiler's entries, the copy's among them, wiped
        return out

    _, seen = watch_calls(delegate)
    assert any(s.startswith(SWITCHED_OFF) and "cleared" in s for s in seen), seen


def _slow_scan() -> list:
    return [m for n, m in list(sys.modules.items()) if n == "dnnlpy" or n.startswith("dnnlpy.")]


def test_the_dnnlpy_modules_are_found_as_a_loop_over_every_name_finds_them():
    from autograder.graders.weight_tying.runner.watch import _dnnlpy_modules

    odd = {"dnnlpy.odd\nname": types.ModuleType("odd"), "x\ndnnlpy.fake": types.ModuleType("fake")}
    assert _dnnlpy_modules() == _slow_scan() and len(_slow_scan()) > 3
    sys.modules.update(odd)  # names holding a newline: the loop decides
    try:
        assert _dnnlpy_modules() == _slow_scan()
        assert odd["dnnlpy.odd\nname"] in _dnnlpy_modules() and odd["x\ndnnlpy.fake"] not in _dnnlpy_modules()
    finally:
        for name in odd:
            del sys.modules[name]
