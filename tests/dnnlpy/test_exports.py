"""The public API is exactly what the docs list (common brief and dnnlpy-api.md)."""

import importlib
import inspect

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
        ("weight_tying", True),
    ]
    assert _params(gpt.MiniGPT.loss) == [("input_ids", E), ("targets", None)]
    assert _params(gpt.get_batch)[:3] == [("token_ids", E), ("block_size", E), ("batch_size", E)]
    assert _params(dnn.MultiheadAttention.__init__) == [
        ("embed_dim", E),
        ("num_heads", E),
        ("bias", True),
        ("dropout", 0.0),
    ]


def test_construction_has_no_side_effects(capsys):
    from dnnlpy.models import gpt

    state = torch.random.get_rng_state()
    gpt.MiniGPT(10, 4, embed_dim=8, num_layers=1, num_heads=2, hidden_dim=16)
    assert capsys.readouterr().out == ""
    assert not torch.equal(state, torch.random.get_rng_state())  # sanity: init did draw random numbers
