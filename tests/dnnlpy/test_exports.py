"""The public API is exactly what the docs list (common brief and dnnlpy-api.md)."""

import importlib
import inspect
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

DOCUMENTED = {
    "dnnlpy": ["nn", "models", "tokenizers", "__version__"],
    "dnnlpy.nn": ["Linear", "Embedding", "LayerNorm", "GELU", "Dropout", "MultiheadAttention", "functional"],
    "dnnlpy.nn.functional": [
        "linear",
        "softmax",
        "log_softmax",
        "gelu",
        "layer_norm",
        "causal_mask",
        "attention_weights",
        "scaled_dot_product_attention",
        "cross_entropy_loss",
    ],
    "dnnlpy.models": ["gpt", "MiniGPT", "count_parameters"],
    "dnnlpy.models.gpt": [
        "MiniGPTConfig",
        "MiniGPT",
        "MiniGPTBlock",
        "MiniGPTCausalSelfAttention",
        "MiniGPTMLP",
        "count_parameters",
        "get_batch",
        "greedy",
        "sample_top_k",
        "sample_top_p",
        "sample_next_token",
    ],
    "dnnlpy.tokenizers": ["Tokenizer", "Encoding", "load_corpus", "END_OF_TEXT"],
}


@pytest.mark.parametrize("module_name", sorted(DOCUMENTED))
def test_all_matches_documented_list(module_name):
    module = importlib.import_module(module_name)
    assert sorted(module.__all__) == sorted(DOCUMENTED[module_name])
    for name in module.__all__:
        assert getattr(module, name) is not None


def _params(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_book_signatures():
    import dnnlpy.nn as dnn
    import dnnlpy.nn.functional as dF
    from dnnlpy.models import gpt

    E = inspect.Parameter.empty
    assert _params(dnn.Linear.__init__)[:3] == [("in_features", E), ("out_features", E), ("bias", True)]
    assert _params(dF.linear) == [("x", E), ("weight", E), ("bias", None)]
    assert _params(dF.cross_entropy_loss) == [
        ("input", E),
        ("target", E),
        ("reduction", "mean"),
        ("weight", None),
        ("ignore_index", -100),
        ("label_smoothing", 0.0),
    ]
    assert _params(gpt.MiniGPT.__init__) == [
        ("vocab_size", E),
        ("block_size", E),
        ("embed_dim", 128),
        ("num_layers", 4),
        ("num_heads", 4),
        ("hidden_dim", 512),
        ("bias", True),
        ("dropout", 0.0),
        ("weight_tying", False),  # the book's default: untied unless asked (the chapter passes True)
    ]
    assert _params(gpt.MiniGPT.loss) == [("input_ids", E), ("targets", None)]
    assert _params(gpt.get_batch)[:3] == [("token_ids", E), ("block_size", E), ("batch_size", E)]
    assert _params(dnn.MultiheadAttention.__init__) == [
        ("embed_dim", E),
        ("num_heads", E),
        ("bias", True),
        ("dropout", 0.0),
    ]


# Run in a fresh interpreter: in this one dnnlpy is imported already. It snapshots every piece of global
# state a library could disturb, imports every public dnnlpy module, snapshots again and reports the
# differences after a marker line, so that anything printed by the import itself shows up before it.
_IMPORT_PROBE = r"""
import json, logging, random, sys, warnings
import numpy as np
import torch
import torch.nn.functional

PATCHABLE = {"torch": torch, "torch.nn": torch.nn, "torch.nn.functional": torch.nn.functional,
             "torch.Tensor": torch.Tensor, "builtins": __builtins__, "numpy": np}

def snapshot():
    return {
        "torch rng": torch.random.get_rng_state().tolist(),
        "python rng": repr(random.getstate()),
        "numpy rng": repr(np.random.get_state()),
        "sys.path": list(sys.path),
        "warnings filters": repr(warnings.filters),
        "logging": repr((logging.root.level, logging.root.handlers)),
        "torch settings": repr((torch.get_default_dtype(), torch.is_grad_enabled(), torch.get_num_threads(),
                                torch.are_deterministic_algorithms_enabled())),
        "objects": {f"{m}.{k}": id(v) for m, mod in PATCHABLE.items() for k, v in vars(mod).items()},
    }

before = snapshot()
import dnnlpy, dnnlpy.nn, dnnlpy.nn.functional, dnnlpy.models, dnnlpy.models.gpt, dnnlpy.models.sampling
import dnnlpy.models.blocks, dnnlpy.tokenizers
after = snapshot()
changed = [key for key in before if key != "objects" and before[key] != after[key]]
# an object replaced under the same name is a patch; a newly loaded submodule is not
changed += [name for name, ident in before["objects"].items() if after["objects"].get(name) != ident]
print("--- probe result ---")
print(json.dumps({"changed": changed, "file": dnnlpy.__file__}))
"""


def test_import_has_no_side_effects():
    """Importing dnnlpy prints nothing, draws no random numbers, and changes and patches nothing."""
    import dnnlpy

    root = str(Path(dnnlpy.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", _IMPORT_PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    printed, _, result = run.stdout.partition("--- probe result ---\n")
    report = json.loads(result)
    assert report["file"] == dnnlpy.__file__  # the probe imported this copy of dnnlpy
    assert printed == "", f"import printed to stdout: {printed!r}"
    assert run.stderr == "", f"import wrote to stderr (a warning?): {run.stderr!r}"
    assert report["changed"] == [], f"import changed global state: {report['changed']}"


def _global_settings():
    return (
        torch.get_default_dtype(),
        torch.is_grad_enabled(),
        torch.get_num_threads(),
        torch.are_deterministic_algorithms_enabled(),
        list(sys.path),
        repr(warnings.filters),
    )


def test_construction_and_use_have_no_side_effects(capfd):
    """Building and running a MiniGPT prints nothing and changes no global setting. Initialising weights
    draws from torch's RNG, as every torch module does; so the same seed gives the same model."""
    from dnnlpy.models import gpt

    settings = _global_settings()

    def build():
        torch.manual_seed(3)
        return gpt.MiniGPT(10, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16, dropout=0.1)

    model = build()
    model.loss(torch.tensor([[1, 2, 3, 4]])).backward()
    model.generate(torch.tensor([[1, 2]]), 3, do_sample=True, generator=torch.Generator().manual_seed(0))
    captured = capfd.readouterr()
    assert (captured.out, captured.err) == ("", "")
    assert _global_settings() == settings
    again = build().state_dict()
    assert all(torch.equal(v, again[k]) for k, v in model.state_dict().items())


_LAZY_PROBE = """
import sys
import dnnlpy
light = sorted(m for m in ("torch", "dnnlpy.nn", "dnnlpy.models", "tokenizers") if m in sys.modules)
layer = dnnlpy.nn.Linear(3, 2, bias=False)  # as the book writes it: the package, then an attribute
model = dnnlpy.models.gpt.MiniGPT
print(light, type(layer).__name__, model.__name__, "nn" in dir(dnnlpy))
"""


def test_dnnlpy_imports_no_torch_until_a_subpackage_is_named():
    """``import dnnlpy`` costs nothing until a subpackage is named; the book's ``import dnnlpy`` then
    ``dnnlpy.nn.Linear`` still reaches the layers."""
    run = subprocess.run([sys.executable, "-c", _LAZY_PROBE], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[]", "Linear", "MiniGPT", "True"], run.stdout
