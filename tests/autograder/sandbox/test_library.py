"""The grader's copy of dnnlpy: what a grader withholds is a stub that raises and says so, the rest is the library
itself; the copy is built once per content, in a cache that only the grader may write."""

from __future__ import annotations

import os
import stat
import sys

import pytest
import torch

from autograder.sandbox.library import imported, library_copy

WITHHELD = ("dnnlpy.models.gpt:MiniGPT.generate", "dnnlpy.models.sampling")


@pytest.fixture
def copy(tmp_path) -> str:
    return library_copy(WITHHELD, tmp_path / "cache")


def _tiny():
    from dnnlpy.models import gpt

    torch.manual_seed(3)
    return gpt.MiniGPT(vocab_size=13, block_size=5, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16)


def test_withheld_functions_raise_and_are_recorded_and_the_rest_is_the_library(copy):
    ids = torch.tensor([[1, 2, 3]])
    real_logits = _tiny()(ids)
    with imported(copy):
        from dnnlpy._withheld import REACHED, NotAvailableWhileGrading
        from dnnlpy.models import gpt, sampling
        from dnnlpy.models.gpt import greedy  # a name imported from a withheld module still imports

        assert gpt.__file__.startswith(copy) and sampling.__file__.startswith(copy)
        model = _tiny()
        torch.testing.assert_close(model(ids), real_logits)  # forward and the rest: the library's own
        calls = {
            "dnnlpy.models.gpt.MiniGPT.generate": lambda: model.generate(ids, 2),
            "dnnlpy.models.sampling.greedy": lambda: greedy(real_logits[:, -1]),
            "dnnlpy.models.sampling.sample_next_token": lambda: gpt.sample_next_token(real_logits[:, -1]),
        }
        before = len(REACHED)
        for name, call in calls.items():
            with pytest.raises(NotAvailableWhileGrading, match=f"{name} is not available while grading"):
                call()
        assert REACHED[before:] == list(calls)
    from dnnlpy.models import gpt

    assert not gpt.__file__.startswith(copy) and "dnnlpy._withheld" not in sys.modules
    assert _tiny().generate(ids, 2).shape == (1, 5)  # the real library is back, decoder and all


def test_the_copy_is_built_once_per_content_and_reused(tmp_path, copy):
    again = library_copy.__wrapped__(WITHHELD, tmp_path / "cache")  # as a grader started later
    assert again == copy
    other = library_copy(("dnnlpy.models.sampling",), tmp_path / "cache")
    assert other != copy and sorted(os.listdir(tmp_path / "cache")) == sorted(
        {os.path.basename(copy), os.path.basename(other)}
    )
    for here, _dirs, files in os.walk(copy):  # readable by a sandbox's uid, writable by nobody but its owner
        for path in [here, *(os.path.join(here, f) for f in files)]:
            assert stat.S_IMODE(os.stat(path).st_mode) & 0o022 == 0, path


@pytest.mark.parametrize(
    "entry, says",
    [
        ("numpy.linalg", "only dnnlpy's own functions"),
        ("dnnlpy.models.gpt:MiniGPT.generat", "defines no such function"),
        ("dnnlpy.models.nowhere", "is not a module of dnnlpy"),
    ],
)
def test_a_withheld_entry_that_names_nothing_is_refused_by_name(tmp_path, entry, says):
    with pytest.raises(ValueError, match=says) as caught:
        library_copy((entry,), tmp_path / "cache")
    assert entry.split(":")[-1] in str(caught.value)


def test_a_cache_others_may_write_is_refused(tmp_path):
    """The warm zygote imports the copy before any sandbox exists: whoever could write the cache could run code
    there, as the grader."""
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    with pytest.raises(RuntimeError, match=r"shared.*chmod go-w"):
        library_copy(WITHHELD, shared)
    mine = tmp_path / "mine"
    built = library_copy(WITHHELD, mine)
    os.chmod(built, 0o777)  # a copy someone opened up after it was built
    with pytest.raises(RuntimeError, match="chmod go-w"):
        library_copy.__wrapped__(WITHHELD, mine)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_a_cache_owned_by_another_user_is_refused(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(RuntimeError, match="belongs to uid 65534"):
        library_copy(WITHHELD, theirs)
