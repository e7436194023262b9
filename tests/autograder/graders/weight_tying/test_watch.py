"""The delegation watch: a library decoder called from another thread, a forked child, or after the profile
hooks were switched off is still seen; a hand-written loop is not flagged; the library is left as found."""

from __future__ import annotations

import _thread
import importlib
import os
import sys
import threading
import time

import pytest
import torch

from autograder.graders.weight_tying.runner.watch import DELEGATES, SWITCHED_OFF, delegate_functions, watch_calls
from dnnlpy.models import gpt, sampling

GENERATE = DELEGATES[0]


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return gpt.MiniGPT(11, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16, weight_tying=True).eval()


@pytest.fixture
def ids():
    return torch.tensor([[1, 2, 3]])


def _own_loop(model, ids, n):
    with torch.no_grad():
        for _ in range(n):
            nxt = model(ids[:, -model.block_size :])[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, nxt], 1)
    return ids


def test_a_hand_written_loop_is_not_flagged_and_the_library_is_left_as_found(model, ids):
    codes = {name: fn.__code__ for name, fn in delegate_functions().items()}
    hook = sys.getprofile()
    out, seen = watch_calls(lambda: _own_loop(model, ids, 3))
    assert seen == [] and out.shape == (1, 6)
    assert {name: fn.__code__ for name, fn in delegate_functions().items()} == codes
    assert sys.getprofile() is hook
    # The library still works after the watch, with the same answer as the loop.
    assert torch.equal(model.generate(ids, 3, do_sample=False), out)


def test_a_direct_call_is_seen_with_the_right_answer(model, ids):
    out, seen = watch_calls(lambda: model.generate(ids, 3, do_sample=False))
    assert GENERATE in seen
    assert torch.equal(out, _own_loop(model, ids, 3))


def test_a_reference_saved_before_the_watch_is_seen(model, ids):
    helper = sampling.greedy  # as `from dnnlpy.models.sampling import greedy` at import time
    _, seen = watch_calls(lambda: helper(torch.randn(1, 11)))
    assert seen == [DELEGATES[1]]


def test_a_call_from_a_threading_thread_is_seen(model, ids):
    def delegate():
        out = {}
        t = threading.Thread(target=lambda: out.update(ids=model.generate(ids, 3, do_sample=False)))
        t.start()
        t.join()
        return out["ids"]

    _, seen = watch_calls(delegate)
    assert GENERATE in seen


def test_a_call_from_a_raw_thread_is_seen(model, ids):
    def delegate():
        out = {}
        _thread.start_new_thread(lambda: out.update(ids=model.generate(ids, 3, do_sample=False)), ())
        while "ids" not in out:
            time.sleep(0.001)
        return out["ids"]

    _, seen = watch_calls(delegate)
    assert GENERATE in seen


def test_switching_the_profile_hooks_off_is_seen(model, ids):
    def delegate():
        sys.setprofile(None)
        threading.setprofile(None)
        return _own_loop(model, ids, 3)  # even without a library call: the watch was switched off

    _, seen = watch_calls(delegate)
    assert [s for s in seen if s.startswith(SWITCHED_OFF)], seen


def test_a_call_after_the_hooks_are_off_is_still_seen(model, ids):
    def delegate():
        sys.setprofile(None)
        return model.generate(ids, 3, do_sample=False)

    _, seen = watch_calls(delegate)
    assert GENERATE in seen


def test_putting_the_original_code_back_is_seen(model, ids):
    fn = delegate_functions()[GENERATE]

    def delegate():
        fn.__code__ = _ORIGINAL_CODE  # found by a submission that kept it (or dug it out of the relay)
        return model.generate(ids, 3, do_sample=False)

    _, seen = watch_calls(delegate)
    assert any(s.startswith(SWITCHED_OFF) for s in seen), seen
    assert fn.__code__ is _ORIGINAL_CODE  # restored by the watch either way


_ORIGINAL_CODE = delegate_functions()[GENERATE].__code__


def test_a_reloaded_library_is_seen(model, ids):
    saved = dict(vars(sampling))

    def delegate():
        importlib.reload(sampling)  # fresh copies of the helpers, outside the relays
        return sampling.greedy(torch.randn(1, 11))

    try:
        _, seen = watch_calls(delegate)
    finally:
        vars(sampling).update(saved)  # the original functions again, for the tests that follow
    assert DELEGATES[1] in seen  # by its file and name, on the watched thread
    assert any(s.startswith(SWITCHED_OFF) for s in seen), seen


def test_a_thread_left_running_is_seen(model, ids):
    stop = threading.Event()

    def delegate():
        threading.Thread(target=stop.wait, daemon=True).start()
        return _own_loop(model, ids, 1)

    try:
        _, seen = watch_calls(delegate)
    finally:
        stop.set()
    assert any("still running" in s for s in seen), seen


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_call_in_a_forked_child_is_seen(model, ids):
    def delegate():
        pid = os.fork()
        if pid == 0:  # the child delegates and leaves at once
            try:  # no tensor work: torch's thread pool may not survive a fork; the call is recorded on entry
                gpt.MiniGPT.generate(None, None, 1)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        return _own_loop(model, ids, 1)

    _, seen = watch_calls(delegate)
    assert GENERATE in seen


def test_two_processes_forked_after_import_share_no_watch(model, ids):
    """Sweep workers (and every run a warm worker forks) come from one process that imported the watch: a
    delegating call watched in one must not be seen by a clean call watched in the other at the same time.
    The map the children of one call share was once made at import, and a sweep charged correct files."""
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other worker: delegates while the parent's watch is open
        try:
            os.read(go_r, 1)
            try:  # no tensor work: torch's thread pool may not survive a fork; the call is recorded on entry
                watch_calls(lambda: gpt.MiniGPT.generate(None, None, 1))
            except Exception:
                pass
            os.write(done_w, b"x")
        finally:
            os._exit(0)

    def clean():
        os.write(go_w, b"x")
        os.read(done_r, 1)  # the child's delegating call has finished while this watch is open
        return _own_loop(model, ids, 2)

    _, seen = watch_calls(clean)
    os.waitpid(pid, 0)
    assert seen == []
