"""Fixtures shared by the tests of dnnlpy.models: small MiniGPTs and token ids."""

import pytest
import torch

from dnnlpy.models import gpt

V, BLOCK, D = 50, 8, 16


def small_model(**kwargs) -> gpt.MiniGPT:
    torch.manual_seed(0)
    config = dict(vocab_size=V, block_size=BLOCK, embed_dim=D, num_layers=2, num_heads=4, hidden_dim=32)
    config.setdefault("weight_tying", True)  # the fixtures' default is the tied model (MiniGPT's is untied)
    config.update(kwargs)
    return gpt.MiniGPT(**config)


def token_ids(b=2, t=6, seed=1):
    return torch.randint(0, V, (b, t), generator=torch.Generator().manual_seed(seed))


@pytest.fixture
def make_model():
    """small_model(**overrides): a seeded MiniGPT with V=50, block_size=8, D=16."""
    return small_model


@pytest.fixture
def make_ids():
    """token_ids(b, t, seed): seeded ids in [0, 50)."""
    return token_ids


@pytest.fixture
def tied():
    return small_model()


@pytest.fixture
def untied():
    return small_model(weight_tying=False)
